/* -k ce: all-to-all by copy engines.
 *
 * Block q of our input goes, by cudaMemcpyAsync (a copy engine, one side
 * stream per peer so several work at once), into block r of rank q's
 * output, between a start and an end flag kernel: the copy-engine push of
 * ce_push.cu (which has the protocol and its argument) with one run per
 * rank. CB_A2A_CE_PARALLEL=0 puts every copy on the call's stream.
 *
 * Out of place only, for the reason -k direct gives (alltoall_direct.cu):
 * in place, our copy into block r of a peer's buffer would overwrite the
 * peer's data for us before its own copy has read it. */
#include "ce_push.h"
#include "collbench/kernel.h"
#include "peer_limits.h"
#include "collbench/tunables.h"

static void cb_a2a_ce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ce_push_setup(ctx, reply, "CB_A2A_CE_PARALLEL");
}

static void cb_a2a_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  size_t bytes = call->count * cb_dtype_size(call->dtype);
  char *mine = (char *)call->recv + (size_t)ctx->rank * bytes; /* our block of our output */
  cb_ce_push_launch(ctx, (const char *)call->send, bytes, mine, bytes, stream);
}

/* Out of place: block r of our input always goes into block r of our output. */
static void cb_a2a_ce_resources(const cb_kernel_ctx *ctx, const cb_call *call,
                                cb_kernel_resources *r) {
  cb_ce_push_resources(ctx, call->count * cb_dtype_size(call->dtype), 1, r);
}

CB_KERNEL_ROW(cb_alltoall_ce) = CB_PEER_ROW_RESOURCES(
    "ce",
    "copy engines: cudaMemcpyAsync of block q of every rank's input into block r "
    "of rank q's output, between two one-block flag kernels; out of place only",
    CB_OUT_OF_PLACE, cb_a2a_ce_setup, cb_ce_push_teardown, cb_a2a_ce_launch, cb_a2a_ce_resources,
    CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(alltoall, cb_alltoall_ce,
                   "copy engines: `cudaMemcpyAsync` of block q of every rank's input into block r "
                   "of rank q's output (one side stream per peer, `CB_A2A_CE_PARALLEL`), between "
                   "two one-block flag kernels; out of place only, as direct");
CB_REGISTER_TUNABLES(alltoall_ce,
                     CB_TUNABLE_NUMBER("CB_A2A_CE_PARALLEL", 0, 1, 1, 1, CB_TUNE_AGREE,
                                       "alltoall -k ce: 1, one copy stream per peer; 0, every "
                                       "copy on the call's stream"));
