/* -k ce: broadcast by copy engines.
 *
 * The data moves as in -k direct, but by cudaMemcpyAsync instead of SM
 * stores: the root copies its input into every peer's output (peer
 * pointers to the harness's receive buffers, mapped in setup), and out of
 * place into its own. The copies, their side streams and the one-block
 * flag kernels around them (start: the peers' outputs are free; end: the
 * root's copies have landed), between the root and each other rank, are
 * ce_rooted.h's; peers only run the flag kernels.
 *
 * In place (send == recv): the root's buffer is only read. */
#include "ce_rooted.h"
#include "collbench/kernel.h"
#include "peer_limits.h"

static void cb_bc_ce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ce_rooted_setup(ctx, reply);
}

static void cb_bc_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const int n = ctx->nranks, rank = ctx->rank;
  cb_ce_copy copies[CB_MAX_PEERS];
  int ncopies = 0;
  if (rank == call->root) {
    for (int p = 1; p < n; p++) /* from the next rank on: consecutive roots use other links */
      copies[ncopies++] = cb_ce_copy_of(call->send, call->recv, (rank + p) % n);
    if (call->send != call->recv) copies[ncopies++] = cb_ce_copy_of(call->send, call->recv, rank);
  }
  cb_ce_rooted_launch(ctx, call->root, copies, ncopies, call->count * cb_dtype_size(call->dtype),
                      stream);
}

CB_KERNEL_ROW(cb_broadcast_ce) = CB_PEER_ROW(
    "ce",
    "copy engines: cudaMemcpyAsync of the root's input into every peer's output "
    "(one side stream per peer), between two one-block flag kernels",
    CB_BOTH_PLACEMENTS, cb_bc_ce_setup, cb_ce_rooted_teardown, cb_bc_ce_launch, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(broadcast, cb_broadcast_ce,
                   "copy engines: `cudaMemcpyAsync` of the root's input into every peer's output "
                   "(one side stream per peer), between two one-block flag kernels");
