/* sendrecv_perf: every rank sends to the next and receives from the previous. */
#include "collective.h"
#include "nccl_call.h"
#include "nccl_kernels.h"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_sendrecv = {
    .name = "sendrecv", .op_column = 1, .expect = CB_EXPECT_FROM_PREV, CB_TRAFFIC_MESSAGE};

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

/* Our kernels: each row is exported by its file, src/kernels/sendrecv_<kernel>.cu. */
extern const cb_kernel cb_sendrecv_ring, cb_sendrecv_ll, cb_sendrecv_direct, cb_sendrecv_ce;

CB_NCCL_ROWS("NCCL grouped ncclSend/ncclRecv around the ring (out of place: send and "
             "receive would share one buffer)",
             "ncclSend/ncclRecv", nccl_sendrecv, CB_OUT_OF_PLACE, CB_NCCL_NO_CE_KERNEL);

CB_DEFINE_COLLECTIVE(cb_sendrecv_collective, &cb_shape_sendrecv, &nccl, &cb_sendrecv_ring,
                     &cb_sendrecv_ll, &cb_sendrecv_direct, &cb_sendrecv_ce, &nccl_sym, &nccl_ce);
