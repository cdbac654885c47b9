/* alltoallv_perf: every rank sends every rank a piece of its input, the
 * pieces' sizes set by distance in rank space (nccl-tests' generated
 * pattern, common/coll/alltoallv_pattern.h; NCCL_TESTS_ALLTOALLV_SPREAD).
 *
 * NCCL only. Our alltoall kernels move equal blocks; a kernel of ours for
 * uneven pieces would be theirs with per-peer offsets, and nothing it
 * measures would differ from -k of alltoall_perf at the pieces' sizes. */
#include "alltoallv_env.h"
#include "alltoallv_pattern.h"
#include "collective.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

#define NCCL_ALLTOALLV "grouped ncclSend/ncclRecv of every rank's piece"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
/* alltoallv: the count is the per-peer block of alltoall (nccl-tests' paramcount),
 * which sets the total each rank sends; that total is cut into pieces by
 * distance (alltoallv_pattern.h), and send and receive hold the pieces. */
static void counts_alltoallv(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  (void)rank;
  size_t base = cb_block_count(bytes, elem, nranks);
  size_t total = base * (size_t)nranks * elem, pieces = 0;
  for (int to = 0; to < nranks; to++)
    pieces += cb_a2av_peer_bytes(0, to, nranks, total, cb_alltoallv_spread()) / elem;
  c->param_count = base;
  c->send_count = c->recv_count = pieces;
  c->send_inplace_offset = c->recv_inplace_offset = 0;
}
/* alltoallv: what the busiest rank sends or receives (every rank alike here). */
static size_t algbw_larger_side(const cb_counts *c, size_t elem, int n) {
  (void)n;
  return (c->send_count > c->recv_count ? c->send_count : c->recv_count) * elem;
}

const cb_coll_shape cb_shape_alltoallv = {.name = "alltoallv",
                                          .expect = CB_EXPECT_ALLTOALLV,
                                          .counts = counts_alltoallv,
                                          .bus_factor = cb_bus_factor_n_minus_1_over_n,
                                          .algbw_bytes = algbw_larger_side,
                                          .environment = cb_alltoallv_environment};
CB_REGISTER_COLLECTIVE(cb_shape_alltoallv);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
/* Every piece goes out of our input and comes into our output in rank
 * order; empty pieces are not posted (nccl-tests does the same). */
static void nccl_alltoallv(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
  const int n = ctx->nranks, me = ctx->rank;
  const size_t elem = cb_dtype_size(c->dtype), total = c->count * (size_t)n * elem;
  const double spread = cb_alltoallv_spread();
  const char *send = (const char *)c->send;
  char *recv = (char *)c->recv;
  cb_nccl_group_start(st);
  for (int r = 0; r < n; r++) {
    size_t out = cb_a2av_peer_bytes(me, r, n, total, spread) / elem;
    size_t in = cb_a2av_peer_bytes(r, me, n, total, spread) / elem;
    if (out) CB_NCCL(ncclSend(send, out, cb_nccl_type(c->dtype), r, st->comm, s));
    if (in) CB_NCCL(ncclRecv(recv, in, cb_nccl_type(c->dtype), r, st->comm, s));
    send += out * elem;
    recv += in * elem;
  }
  cb_nccl_group_end();
}
#endif

/* Out of place only, as alltoall_perf: in place a rank's pieces for its
 * peers would be overwritten by theirs before NCCL reads them (nccl-tests
 * times in-place alltoallv but does not check it). */
CB_NCCL_ROWS(alltoallv, "NCCL " NCCL_ALLTOALLV ", out of place (NCCL gives no in-place alltoallv)",
             "grouped `ncclSend`/`ncclRecv` of every rank's pieces, as nccl-tests; out of place "
             "only (nccl-tests times in-place alltoallv but does not check it). Its pattern: each "
             "rank's message cut into per-peer pieces by distance in rank space "
             "(`NCCL_TESTS_ALLTOALLV_SPREAD`, "
             "[options.md](options.md#nccl-tests-environment-variables))",
             NCCL_ALLTOALLV, nccl_alltoallv, CB_OUT_OF_PLACE, CB_NCCL_NO_CE_KERNEL);
