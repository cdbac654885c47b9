/* hypercube_perf: nccl-tests' hypercube all-gather: every rank ends with
 * every rank's input in rank order, moved in log2(n) exchanges of doubling
 * runs between the ranks across each dimension (a power-of-two rank count).
 *
 * NCCL only: it measures NCCL's point-to-point calls in that pattern, and
 * all_gather_perf has our all-gather kernels. */
#include "collective.h"
#include "cuda_check.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

#define NCCL_HYPERCUBE "hypercube all-gather: log2(n) grouped ncclSend/ncclRecv exchanges"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
/* hypercube: the n - 1 blocks a rank receives. */
static size_t algbw_param_times_n_minus_1(const cb_counts *c, size_t elem, int n) {
  return c->param_count * elem * (size_t)(n - 1);
}

const cb_coll_shape cb_shape_hypercube = {.name = "hypercube",
                                          .outputs_agree = 1,
                                          .expect = CB_EXPECT_GATHER,
                                          .counts = cb_counts_gathered,
                                          .bus_factor = cb_bus_factor_one,
                                          .algbw_bytes = algbw_param_times_n_minus_1,
                                          .no_op_column = "",
                                          .pow2_ranks = 1};
CB_REGISTER_COLLECTIVE(cb_shape_hypercube);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
/* Dimension by dimension (mask = 1, 2, 4, ...), we hold the run of `mask`
 * blocks starting at our rank with its low bits cleared, and swap it with
 * the rank across the dimension for theirs (nccl-tests' hypercube.cu). */
static void nccl_hypercube(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
  const int me = ctx->rank;
  const size_t block = c->count * cb_dtype_size(c->dtype);
  char *out = (char *)c->recv;
  if (out + (size_t)me * block != (const char *)c->send)
    CB_CUDA(cudaMemcpyAsync(out + (size_t)me * block, c->send, block, cudaMemcpyDeviceToDevice, s));
  for (int mask = 1; mask < ctx->nranks; mask <<= 1) {
    const int ours = me & ~(mask - 1), theirs = ours ^ mask, peer = me ^ mask;
    cb_nccl_group_start(st);
    CB_NCCL(ncclSend(out + (size_t)ours * block, c->count * (size_t)mask, cb_nccl_type(c->dtype),
                     peer, st->comm, s));
    CB_NCCL(ncclRecv(out + (size_t)theirs * block, c->count * (size_t)mask, cb_nccl_type(c->dtype),
                     peer, st->comm, s));
    cb_nccl_group_end();
  }
}
#endif

CB_NCCL_ROWS(hypercube, "NCCL " NCCL_HYPERCUBE,
             "nccl-tests' hypercube all-gather: the own block copied into place, then log2(n) "
             "grouped `ncclSend`/`ncclRecv` exchanges of doubling runs across each dimension; on a "
             "rank count that is not a power of two it prints `nRanks N is not a power of 2, "
             "skipping` and exits 0, as nccl-tests does",
             NCCL_HYPERCUBE, nccl_hypercube, CB_BOTH_PLACEMENTS, CB_NCCL_NO_CE_KERNEL);
