/* -k direct: gather by direct stores into the root's output.
 *
 * Rank r's input is block r of the root's output: the direct store kernel
 * (device/direct_store.cuh: 16-byte stores over NVLink, start and end
 * handshakes per block, and their argument) with one run, our block, for
 * the root only (the root's own block too, out of place). The receive
 * buffers are the harness's (mapped on every rank in setup): no scratch, no
 * second copy. Every rank shakes hands with every other (the kernel's
 * handshakes are all-pairs), which costs a few flags beyond the root's.
 *
 * In place: the root's input already sits in its block of its output,
 * which it only reads; the other ranks store only into the other blocks.
 * The other ranks' outputs are never written. */
#include "collbench/kernel.h"
#include "device/direct_store.cuh"
#include "peer_limits.h"

static void cb_ga_direct_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_direct_store_setup<true>(ctx, reply, "CB_GA_DIRECT");
}

static void cb_ga_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  const size_t elem = cb_dtype_size(call->dtype), bytes = call->count * elem;
  if (bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  const char *src = (const char *)call->send;
  const char *mine = (const char *)call->recv + (size_t)ctx->rank * bytes; /* our block */
  char *dst[CB_MAX_PEERS] = {NULL};
  if (ctx->rank != call->root)
    dst[call->root] = (char *)cb_direct_peer_ptr(ctx, st, call->root, mine);
  else if (src != mine)
    dst[call->root] = (char *)mine;
  cb_direct_store_launch_to<true>(ctx, src, 0, dst, bytes, elem, stream);
}

CB_KERNEL_ROW(cb_gather_direct) = CB_PEER_ROW_RESOURCES(
    "direct",
    "every rank stores its block with 16-byte stores straight into the root's "
    "output; start and end flag handshakes per block",
    CB_BOTH_PLACEMENTS, cb_ga_direct_setup, cb_direct_teardown, cb_ga_direct_launch,
    cb_direct_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(
    gather, cb_gather_direct,
    "every rank stores its block with 16-byte stores straight into the root's output "
    "(all_gather's direct kernel, one destination)");
CB_DIRECT_TUNABLES(gather_direct, "CB_GA_DIRECT", "gather");
