/* -k direct: all-gather by direct stores into every peer's output.
 *
 * Rank r's input is block r of every rank's output: the direct store
 * kernel (device/direct_store.cuh: 16-byte stores over NVLink, start and
 * end handshakes per block, and their argument) with one run, our block,
 * for every rank. The receive buffers are the harness's (ctx->recv_buf,
 * mapped on every rank in setup): no scratch, no second copy.
 *
 * In place: our input already sits in block r of our output, which we only
 * read; peers store only into the other blocks of our output, and nobody
 * else ever writes block r. So no byte is read after being overwritten. */
#include "collbench/kernel.h"
#include "device/direct_store.cuh"
#include "peer_limits.h"

static void cb_ag_direct_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_direct_store_setup<true>(ctx, reply, "CB_AG_DIRECT");
}

static void cb_ag_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t elem = cb_dtype_size(call->dtype), bytes = call->count * elem;
  const char *mine = (const char *)call->recv + (size_t)ctx->rank * bytes; /* our block */
  const char *src = (const char *)call->send;
  cb_direct_store_launch<true>(ctx, src, 0, mine, bytes, elem, src == mine, stream);
}

CB_KERNEL_ROW(cb_all_gather_direct) =
    CB_PEER_ROW_RESOURCES("direct",
                          "every rank stores its block with 16-byte stores straight into every "
                          "peer's output, start and end flag handshakes per block",
                          CB_BOTH_PLACEMENTS, cb_ag_direct_setup, cb_direct_teardown,
                          cb_ag_direct_launch, cb_direct_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(all_gather, cb_all_gather_direct,
                   "every rank stores its block with 16-byte stores straight into every peer's "
                   "output buffer; per-block start and end flag handshakes (release/acquire) with "
                   "the same block of every peer; for mid and large messages");
CB_DIRECT_TUNABLES(all_gather_direct, "CB_AG_DIRECT", "all_gather");
