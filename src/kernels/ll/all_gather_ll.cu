/* -k ll: all-gather by LL16 packets, for small messages.
 *
 * Every rank writes its block, as LL16 packets, into its slot of every
 * peer's scratch, and out of place into its own output; then it polls its
 * scratch until each peer's packets carry the epoch and copies them into
 * the peer's block of its output: the LL exchange kernel
 * (device/ll_exchange.cuh, which has the protocol and its argument) with
 * one run, our block, for every peer.
 *
 * In place: our block of our output is the input; we only read it (to push
 * it), and the packets we receive go to the other blocks. */
#include "collbench/kernel.h"
#include "device/ll_exchange.cuh"

static void cb_ag_ll_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ll_exchange_setup<true>(ctx, reply, cb_ll_run_block_bytes(ctx));
}

static void cb_ag_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  const char *src = (const char *)call->send;
  char *out = (char *)call->recv;
  int copy_own = src != out + (size_t)ctx->rank * bytes;
  cb_ll_exchange_launch<true>(ctx, src, 0, out, bytes, bytes, copy_own, stream);
}

CB_KERNEL_ROW(cb_all_gather_ll) =
    CB_LL_ROW("ll",
              "LL16: every rank pushes its block to every peer as packets, each rank "
              "copies the packets it receives into its output",
              CB_BOTH_PLACEMENTS, cb_ag_ll_setup, cb_ag_ll_launch, CB_WAITS_LL);
CB_REGISTER_KERNEL(
    all_gather, cb_all_gather_ll,
    "LL16: every rank pushes its block to every peer's scratch as packets, each rank "
    "copies what it receives into its output; one warp per 32-packet tile, each tile "
    "with its own epoch; up to 1 MiB (the whole output)");
