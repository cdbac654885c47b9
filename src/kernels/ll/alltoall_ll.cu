/* -k ll: all-to-all by LL16 packets, for small messages.
 *
 * Every rank writes block q of its input, as LL16 packets, into its slot of
 * rank q's scratch, and out of place its own block into its own output;
 * then it polls its scratch until each peer's packets carry the epoch and
 * copies them into that peer's block of its output: the LL exchange kernel
 * (device/ll_exchange.cuh, which has the protocol and its argument) with
 * one run per peer. Every call reads a packet of every tile from every peer
 * (all blocks have the same length), so the scratch's double buffering
 * holds (device/ll_tiles.cuh).
 *
 * In place, timed and checked (nccl-tests 2.19.6 times an in-place alltoall
 * but does not check it: its #wrong column says N/A): a lane reads packet i
 * of every block of our buffer (to push it) before it writes packet i of
 * any block (from the packets received), and no other lane touches packet
 * i; the data crosses through the peers' scratch, never straight into our
 * buffer. */
#include "collbench/kernel.h"
#include "device/ll_exchange.cuh"

static void cb_a2a_ll_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ll_exchange_setup<false>(ctx, reply, cb_ll_run_block_bytes(ctx));
}

static void cb_a2a_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  const char *src = (const char *)call->send;
  char *out = (char *)call->recv;
  /* In place our own block is already where it belongs. */
  cb_ll_exchange_launch<false>(ctx, src, bytes, out, bytes, bytes, src != out, stream);
}

CB_KERNEL_ROW(cb_alltoall_ll) =
    CB_LL_ROW("ll",
              "LL16: every rank pushes block q of its input to rank q as packets, each rank "
              "copies the packets it receives into its output; in place too (through scratch)",
              CB_OUT_OF_PLACE | CB_IN_PLACE, cb_a2a_ll_setup, cb_a2a_ll_launch, CB_WAITS_LL);
CB_REGISTER_KERNEL(alltoall, cb_alltoall_ll,
                   "LL16: every rank pushes block q of its input to rank q's scratch as packets, "
                   "each rank copies what it receives into its output; up to 1 MiB (the whole "
                   "input); in place too, timed and checked (nccl-tests 2.19.6 times in-place "
                   "alltoall but does not check it, `#wrong` N/A): every block passes through "
                   "scratch");
