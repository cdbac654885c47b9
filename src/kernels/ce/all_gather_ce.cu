/* -k ce: all-gather by copy engines.
 *
 * The data moves as in -k direct, but by cudaMemcpyAsync instead of SM
 * stores, between a start and an end flag kernel: the copy-engine push of
 * ce_push.cu (which has the protocol and its argument) with one run, our
 * block, for every rank. CB_AG_CE_PARALLEL=0 puts every copy on the call's
 * stream instead of one side stream per peer.
 *
 * In place: our block of our output is the input and is not copied; peers
 * copy only into the other blocks. */
#include "ce_push.h"
#include "collbench/kernel.h"
#include "peer_limits.h"
#include "collbench/tunables.h"

static void cb_ag_ce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ce_push_setup(ctx, reply, "CB_AG_CE_PARALLEL");
}

static void cb_ag_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  size_t bytes = call->count * cb_dtype_size(call->dtype);
  char *mine = (char *)call->recv + (size_t)ctx->rank * bytes; /* our block of our output */
  cb_ce_push_launch(ctx, (const char *)call->send, 0, mine, bytes, stream);
}

/* Our own block is copied unless it is in place already. */
static void cb_ag_ce_resources(const cb_kernel_ctx *ctx, const cb_call *call,
                               cb_kernel_resources *r) {
  size_t bytes = call->count * cb_dtype_size(call->dtype);
  const char *mine = (const char *)call->recv + (size_t)ctx->rank * bytes;
  cb_ce_push_resources(ctx, bytes, (const char *)call->send != mine, r);
}

CB_KERNEL_ROW(cb_all_gather_ce) =
    CB_PEER_ROW_RESOURCES("ce",
                          "copy engines: cudaMemcpyAsync of every rank's block into every peer's "
                          "output, between two one-block flag kernels",
                          CB_BOTH_PLACEMENTS, cb_ag_ce_setup, cb_ce_push_teardown, cb_ag_ce_launch,
                          cb_ag_ce_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(all_gather, cb_all_gather_ce,
                   "copy engines: `cudaMemcpyAsync` of every rank's block into every peer's output "
                   "(one side stream per peer, `CB_AG_CE_PARALLEL`), between two one-block flag "
                   "kernels (start, end); out of place, the own block by a copy engine or a kernel "
                   "(`CB_CE_OWN_COPY`)");
CB_REGISTER_TUNABLES(all_gather_ce,
                     CB_TUNABLE_NUMBER("CB_AG_CE_PARALLEL", 0, 1, 1, 1, CB_TUNE_AGREE,
                                       "all_gather -k ce: 1, one copy stream per peer; 0, every "
                                       "copy on the call's stream"));
