/* -k ce: gather by copy engines.
 *
 * The data moves as in -k direct, but by cudaMemcpyAsync instead of SM
 * stores: every other rank copies its input into its block of the root's
 * output (peer pointers to the harness's receive buffers, mapped in setup),
 * the root out of place its own. The copies and the one-block flag kernels
 * around them (start: the root's output is free; end: every copy into it has
 * landed), between the root and each other rank, are ce_rooted.h's; the
 * root's copy engines take n - 1 incoming copies at once.
 *
 * In place: the root's block of its output is its input and is not copied.
 * The other ranks' outputs are never written. */
#include "ce_rooted.h"
#include "collbench/kernel.h"
#include "peer_limits.h"

static void cb_ga_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  const char *mine = (const char *)call->recv + (size_t)ctx->rank * bytes; /* our block */
  cb_ce_copy copy = cb_ce_copy_of(call->send, mine, call->root);
  int ncopies = ctx->rank != call->root || call->send != mine;
  cb_ce_rooted_launch(ctx, call->root, &copy, ncopies, bytes, stream);
}

CB_KERNEL_ROW(cb_gather_ce) =
    CB_PEER_ROW("ce",
                "copy engines: every rank's cudaMemcpyAsync of its block into the root's output, "
                "between two one-block flag kernels",
                CB_BOTH_PLACEMENTS, cb_ce_rooted_setup, cb_ce_rooted_teardown, cb_ga_ce_launch,
                CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(gather, cb_gather_ce,
                   "copy engines: every rank's `cudaMemcpyAsync` of its block into the root's "
                   "output, between two one-block flag kernels (broadcast's ce, reversed)");
