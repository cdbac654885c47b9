/* alltoall_perf: block s of rank r's output is block r of rank s's input. */
#include "collective.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

/* NCCL's alltoall as nccl-tests 2.19 calls it: ncclAlltoAll from NCCL 2.28
 * on (the only way to its copy-engine path), grouped send/receive before. */
#define NCCL_ALLTOALL "ncclAlltoAll (grouped ncclSend/ncclRecv before NCCL 2.28)"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
static void counts_alltoall(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  (void)rank;
  size_t base = cb_block_count(bytes, elem, nranks);
  c->param_count = base;
  c->send_count = c->recv_count = base * (size_t)nranks;
  c->send_inplace_offset = c->recv_inplace_offset = 0;
}

const cb_coll_shape cb_shape_alltoall = {
    .name = "alltoall", .expect = CB_EXPECT_ALLTOALL, CB_TRAFFIC_BLOCKS(counts_alltoall)};
CB_REGISTER_COLLECTIVE(cb_shape_alltoall);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#pragma weak ncclAlltoAll /* NCCL 2.28 */
#endif

/* As nccl-tests 2.19: ncclAlltoAll where the library has it (NCCL 2.28,
 * and the only way to its copy-engine path), else grouped send/receive. */
static void nccl_alltoall(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  if (ncclAlltoAll && cb_nccl_library_version() >= NCCL_VERSION(2, 28, 0)) {
    CB_NCCL_WATCHED(st, "ncclAlltoAll",
                    ncclAlltoAll(c->send, c->recv, c->count, cb_nccl_type(c->dtype), st->comm, s));
    return;
  }
#endif
  size_t block = c->count * cb_dtype_size(c->dtype);
  cb_nccl_group_start(st);
  for (int r = 0; r < ctx->nranks; r++) {
    CB_NCCL(ncclSend((const char *)c->send + r * block, c->count, cb_nccl_type(c->dtype), r,
                     st->comm, s));
    CB_NCCL(
        ncclRecv((char *)c->recv + r * block, c->count, cb_nccl_type(c->dtype), r, st->comm, s));
  }
  cb_nccl_group_end();
}
#endif

/* Our kernels register themselves, each in its own file (registry.h). */

CB_NCCL_ROWS(alltoall, "NCCL " NCCL_ALLTOALL ", out of place (NCCL gives no in-place alltoall)",
             "`ncclAlltoAll` (NCCL ≥ 2.28, as nccl-tests 2.19 calls it; grouped "
             "`ncclSend`/`ncclRecv` before), out of place only",
             NCCL_ALLTOALL, nccl_alltoall, CB_OUT_OF_PLACE, CB_NCCL_CE_KERNEL);

/* In place, only -k ll is safe: the others write into a peer's buffer
 * straight away (or through a FIFO, ring) while the block they overwrite
 * still holds data the peer has yet to send (see their files). */
