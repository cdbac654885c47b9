/* sendrecv_perf: every rank sends to the next and receives from the previous. */
#include "collective.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_sendrecv = {
    .name = "sendrecv", .op_column = 1, .expect = CB_EXPECT_FROM_PREV, CB_TRAFFIC_MESSAGE};
CB_REGISTER_COLLECTIVE(cb_shape_sendrecv);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
static void nccl_sendrecv(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
  int next = (ctx->rank + 1) % ctx->nranks, prev = (ctx->rank - 1 + ctx->nranks) % ctx->nranks;
  cb_nccl_group_start(st);
  CB_NCCL(ncclSend(c->send, c->count, cb_nccl_type(c->dtype), next, st->comm, s));
  CB_NCCL(ncclRecv(c->recv, c->count, cb_nccl_type(c->dtype), prev, st->comm, s));
  cb_nccl_group_end();
}
#endif

/* Our kernels register themselves, each in its own file (registry.h). */

CB_NCCL_ROWS(sendrecv,
             "NCCL grouped ncclSend/ncclRecv around the ring (out of place: send and "
             "receive would share one buffer)",
             "grouped `ncclSend`/`ncclRecv`, out of place only", "ncclSend/ncclRecv", nccl_sendrecv,
             CB_OUT_OF_PLACE, CB_NCCL_NO_CE_KERNEL);
