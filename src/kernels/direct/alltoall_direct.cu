/* -k direct: all-to-all by direct stores into every peer's output.
 *
 * Block q of rank r's input is block r of rank q's output: the direct
 * store kernel (device/direct_store.cuh: 16-byte stores over NVLink, start
 * and end handshakes per block, and their argument) with one run per rank,
 * block q of our input for rank q, stored into block r of its output (the
 * harness's receive buffers, mapped on every rank in setup). Every byte
 * crosses NVLink once, as a store: no scratch, no copy on the receiving
 * side, and every link carries data both ways at once.
 *
 * Out of place only: in place, block r of a peer's buffer holds the peer's
 * data for us until the peer has loaded it, and we would overwrite it with
 * ours; only a second handshake between loading and storing (or a staging
 * copy) could order the two, which costs what -k ll pays for with its
 * scratch. nccl-tests 2.19.6 times an in-place alltoall and does not check
 * it (its #wrong column says N/A); we skip it. */
#include "collbench/kernel.h"
#include "device/direct_store.cuh"
#include "peer_limits.h"

static void cb_a2a_direct_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_direct_store_setup<false>(ctx, reply, "CB_A2A_DIRECT");
}

static void cb_a2a_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t elem = cb_dtype_size(call->dtype), bytes = call->count * elem;
  const char *mine = (const char *)call->recv + (size_t)ctx->rank * bytes; /* our block */
  cb_direct_store_launch<false>(ctx, (const char *)call->send, bytes, mine, bytes, elem, 0, stream);
}

CB_KERNEL_ROW(cb_alltoall_direct) = CB_PEER_ROW_RESOURCES(
    "direct",
    "every rank stores block q of its input with 16-byte stores straight into "
    "block r of rank q's output, start and end flag handshakes per block; out of "
    "place only (in place would overwrite blocks not yet sent)",
    CB_OUT_OF_PLACE, cb_a2a_direct_setup, cb_direct_teardown, cb_a2a_direct_launch,
    cb_direct_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(alltoall, cb_alltoall_direct,
                   "every rank stores block q of its input with 16-byte stores straight into block "
                   "r of rank q's output; per-block start and end flag handshakes; out of place "
                   "only: in place, block r of a peer still holds the peer's data for us until it "
                   "has sent it");
CB_DIRECT_TUNABLES(alltoall_direct, "CB_A2A_DIRECT", "alltoall");
