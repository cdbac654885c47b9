/* -k ce: scatter by copy engines.
 *
 * The data moves as in -k direct, but by cudaMemcpyAsync instead of SM
 * stores: the root copies block q of its input into rank q's output (peer
 * pointers to the harness's receive buffers, mapped in setup), and out of
 * place block r into its own. The copies, their side streams and the
 * one-block flag kernels around them (start: the outputs are free; end: the
 * root's copies have landed), between the root and each other rank, are
 * ce_rooted.h's, as -k ce of broadcast; the others only run the flag
 * kernels.
 *
 * In place: rank q's output is block q of its receive buffer, where the
 * root addresses it; the root's own block is already in place. */
#include "ce_rooted.h"
#include "collbench/kernel.h"
#include "peer_limits.h"

static void cb_sc_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const int n = ctx->nranks, rank = ctx->rank;
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  const char *src = (const char *)call->send;
  cb_ce_copy copies[CB_MAX_PEERS];
  int ncopies = 0;
  for (int p = 0; rank == call->root && p < n; p++) {
    const int q = (rank + 1 + p) % n; /* from the next rank on, ours last */
    const char *out = call->in_place ? src + (size_t)q * bytes : (const char *)call->recv;
    if (q != rank || src + (size_t)q * bytes != out)
      copies[ncopies++] = cb_ce_copy_of(src + (size_t)q * bytes, out, q);
  }
  cb_ce_rooted_launch(ctx, call->root, copies, ncopies, bytes, stream);
}

CB_KERNEL_ROW(cb_scatter_ce) =
    CB_PEER_ROW("ce",
                "copy engines: the root's cudaMemcpyAsync of block q into rank q's output (one "
                "side stream per rank), between two one-block flag kernels",
                CB_BOTH_PLACEMENTS, cb_ce_rooted_setup, cb_ce_rooted_teardown, cb_sc_ce_launch,
                CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(
    scatter, cb_scatter_ce,
    "copy engines: the root's `cudaMemcpyAsync` of block q into rank q's output (one "
    "side stream per rank), between two one-block flag kernels (broadcast's ce)");
