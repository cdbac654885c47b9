/* -k direct: scatter by the root's direct stores into every rank's output.
 *
 * The root stores block q of its input, with 16-byte stores over NVLink,
 * straight into rank q's output (the harness's receive buffers, mapped on
 * every rank in setup), and out of place block r into its own: the direct
 * store kernel (device/direct_store.cuh: start and end handshakes per block,
 * and their argument) with a run per rank; the others store nothing and
 * only shake hands (all-pairs, a few flags beyond the root's). As -k direct
 * of broadcast, the root's links carry n - 1 blocks.
 *
 * In place: rank q's output is block q of its receive buffer (the region
 * its input lies in), so the root addresses it there; the root's own block
 * is already in place and only read. */
#include "collbench/kernel.h"
#include "device/direct_store.cuh"
#include "peer_limits.h"

static void cb_sc_direct_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_direct_store_setup<false>(ctx, reply, "CB_SC_DIRECT");
}

static void cb_sc_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  const size_t elem = cb_dtype_size(call->dtype), bytes = call->count * elem;
  if (bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  const char *src = (const char *)call->send;
  char *dst[CB_MAX_PEERS] = {NULL};
  for (int q = 0; ctx->rank == call->root && q < ctx->nranks; q++) {
    /* Rank q's output, where it lies in our buffers. */
    const char *out = call->in_place ? src + (size_t)q * bytes : (const char *)call->recv;
    if (q != ctx->rank)
      dst[q] = (char *)cb_direct_peer_ptr(ctx, st, q, out);
    else if (src + (size_t)q * bytes != out)
      dst[q] = (char *)out;
  }
  cb_direct_store_launch_to<false>(ctx, src, bytes, dst, bytes, elem, stream);
}

CB_KERNEL_ROW(cb_scatter_direct) = CB_PEER_ROW_RESOURCES(
    "direct",
    "the root stores block q of its input with 16-byte stores straight into rank "
    "q's output; start and end flag handshakes per block",
    CB_BOTH_PLACEMENTS, cb_sc_direct_setup, cb_direct_teardown, cb_sc_direct_launch,
    cb_direct_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(
    scatter, cb_scatter_direct,
    "the root stores block q of its input with 16-byte stores straight into rank q's "
    "output (the direct store kernel with a run per rank)");
CB_DIRECT_TUNABLES(scatter_direct, "CB_SC_DIRECT", "scatter");
