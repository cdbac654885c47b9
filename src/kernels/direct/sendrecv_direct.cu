/* -k direct: sendrecv by direct stores into the next rank's output.
 *
 * Each rank stores its input, with plain 16-byte stores over NVLink,
 * straight into the next rank's output buffer (the harness's receive
 * buffers, mapped on every rank in setup): no scratch, no second copy, and
 * every rank sends and receives at once. Stores rather than loads from the
 * previous rank: a store is posted and needs no round trip, and on H200 our
 * store kernels (all_gather direct, 353-360 GB/s at 1 GiB) beat our load
 * kernels (reduce_scatter direct, 335 GB/s).
 *
 * The kernel, its per-block start and end handshakes and its epochs are
 * direct_push.h's; a rank shakes hands with its next rank (whose output it
 * stores into) and its previous one (who stores into ours).
 *
 * Out of place only: in place, we would store into the next rank's buffer
 * while it still reads that buffer to send it on (nccl-tests, too, does not
 * check in-place sendrecv: "We don't support in-place sendrecv"). */
#include "collbench/kernel.h"
#include "collbench/device/handshake.cuh"
#include "direct_push.h"
#include "peer_limits.h"

static void cb_sr_direct_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_direct_push_setup(ctx, reply, "CB_SR_DIRECT");
}

static void cb_sr_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  const int n = ctx->nranks;
  cb_direct_push p;
  p.elem_size = cb_dtype_size(call->dtype);
  p.bytes = call->count * p.elem_size;
  if (p.bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  p.src = call->send;
  p.to[0] = (char *)cb_direct_peer_ptr(ctx, st, (ctx->rank + 1) % n, call->recv); /* 1 rank: ours */
  p.count = 1;
  p.partners = n > 1 ? CB_HS_OFFSET(1) | CB_HS_OFFSET(n - 1) : 0;
  p.traffic = p.bytes;
  cb_direct_push_launch(ctx, &p, stream);
}

/* One run, to the next rank: its bytes set the blocks. */
static void cb_sr_direct_resources(const cb_kernel_ctx *ctx, const cb_call *call,
                                   cb_kernel_resources *r) {
  cb_direct_resources_for(ctx, call, call->count * cb_dtype_size(call->dtype), r);
}

CB_KERNEL_ROW(cb_sendrecv_direct) = CB_PEER_ROW_RESOURCES(
    "direct",
    "every rank stores its input with 16-byte stores straight into the next rank's "
    "output, start and end flag handshakes per block with its two neighbours (out "
    "of place: in place it would overwrite what the next rank still sends)",
    CB_OUT_OF_PLACE, cb_sr_direct_setup, cb_direct_teardown, cb_sr_direct_launch,
    cb_sr_direct_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(sendrecv, cb_sendrecv_direct,
                   "16-byte stores straight into the next rank's output, per-block start and end "
                   "flag handshakes with both neighbours; out of place only: in place it would "
                   "overwrite what the next rank still sends (nccl-tests times in-place sendrecv "
                   "with its check off: \"We don't support in-place sendrecv\")");
CB_DIRECT_TUNABLES(sendrecv_direct, "CB_SR_DIRECT", "sendrecv");
