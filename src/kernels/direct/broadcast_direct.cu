/* -k direct: broadcast by the root's direct stores into every peer's output.
 *
 * The root stores its input, with plain 16-byte stores over NVLink,
 * straight into every peer's output buffer (the harness's receive buffers,
 * mapped on every rank in setup), and out of place into its own; each
 * thread stores its vectors into every destination in turn, so all the
 * root's links are busy at once. No scratch, no second copy.
 *
 * Push (the root stores) rather than pull (every peer loads from the
 * root's input): both move the same bytes over the root's links, but a
 * store is posted and needs no round trip, and on H200 our store kernels
 * (all_gather direct, 353-360 GB/s at 1 GiB) beat our load kernels
 * (reduce_scatter direct, 335 GB/s); with pull, n - 1 peers' loads would
 * also contend for the root's memory with nothing to pace them. Either way
 * the root's links carry n - 1 copies, so at 3 or more ranks the chain of
 * -k ring, where every link carries one copy, is the one for large
 * messages.
 *
 * The kernel, its per-block start and end handshakes and its epochs are
 * direct_push.h's; handshakes are between the root and each other rank
 * (the root may change from call to call: each pair still exchanges its
 * words in order). Peers launch the same blocks and only shake hands.
 *
 * In place (send == recv): the root only reads its buffer; peers' buffers
 * are only written, by the root. */
#include "collbench/kernel.h"
#include "collbench/device/handshake.cuh"
#include "direct_push.h"
#include "peer_limits.h"

static void cb_bc_direct_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_direct_push_setup(ctx, reply, "CB_BC_DIRECT");
}

static void cb_bc_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  const int n = ctx->nranks, rank = ctx->rank, root = call->root;
  cb_direct_push p;
  p.elem_size = cb_dtype_size(call->dtype);
  p.bytes = call->count * p.elem_size;
  if (p.bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  p.src = call->send;
  p.count = 0;
  p.partners = 0;
  for (int k = 1; k < n; k++) {
    int peer = (rank + k) % n; /* from the next rank on: consecutive roots start on other links */
    if (rank == root) p.to[p.count++] = (char *)cb_direct_peer_ptr(ctx, st, peer, call->recv);
    if (rank == root || peer == root) p.partners |= CB_HS_OFFSET(k);
  }
  if (rank == root && call->send != call->recv) p.to[p.count++] = (char *)call->recv;
  p.traffic = cb_direct_run_traffic(n, p.bytes); /* what the root sends */
  cb_direct_push_launch(ctx, &p, stream);
}

CB_KERNEL_ROW(cb_broadcast_direct) = CB_PEER_ROW_RESOURCES(
    "direct",
    "the root stores its input with 16-byte stores straight into every peer's "
    "output, start and end flag handshakes per block between the root and each peer",
    CB_BOTH_PLACEMENTS, cb_bc_direct_setup, cb_direct_teardown, cb_bc_direct_launch,
    cb_direct_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(
    broadcast, cb_broadcast_direct,
    "the root stores its input with 16-byte stores straight into every peer's output "
    "(a push: posted stores beat loads on H200); per-block start and end flag "
    "handshakes between the root and each peer; the root's links carry n−1 copies");
CB_DIRECT_TUNABLES(broadcast_direct, "CB_BC_DIRECT", "broadcast");
