/* -k ce: sendrecv by a copy engine.
 *
 * The data moves as in -k direct, but by one cudaMemcpyAsync of our input
 * into the next rank's output (a peer pointer to the harness's receive
 * buffer, mapped in setup), on the call's stream: a copy engine pushes the
 * bytes over NVLink (~390 GB/s one way on H200, above what SM stores reach),
 * and the SMs only run the two one-block flag kernels of ce_flags.h around
 * it, with the next and previous ranks: start (the next rank's output is
 * free) and end (our copy has landed in the next rank's output, and the
 * previous rank's in ours). Everything can be captured into a CUDA graph.
 *
 * Out of place only, as -k direct (in place the copy would overwrite what
 * the next rank still sends). */
#include <stdint.h>
#include <stdlib.h>

#include "ce_flags.h"
#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "collbench/device/handshake.cuh"
#include "peer_limits.h"
#include "collbench/peer.h"

typedef struct {
  cb_peer_buffer recv; /* the harness's receive buffer of every rank */
  cb_ce_flags flags;
} srce_state;

static void cb_sr_ce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  (void)reply; /* it serves every run its row lets through */
  srce_state *st = (srce_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  cb_peer_share(ctx->world, ctx->recv_buf, ctx->recv_buf_bytes, &st->recv);
  cb_ce_flags_setup(ctx, &st->flags);
  ctx->state = st;
}

static void cb_sr_ce_teardown(cb_kernel_ctx *ctx) {
  srce_state *st = (srce_state *)ctx->state;
  cb_peer_free(ctx->world, &st->recv); /* unmaps the peers' buffers; ours is the harness's */
  cb_ce_flags_free(ctx, &st->flags);
  free(st);
  ctx->state = NULL;
}

static void cb_sr_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const srce_state *st = (const srce_state *)ctx->state;
  const int n = ctx->nranks;
  size_t bytes = call->count * cb_dtype_size(call->dtype);
  if (bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  void *dst = cb_peer_ptr_in(&st->recv, 1, (ctx->rank + 1) % n, call->recv);
  if (!dst) cb_fatal("kernel %s: the output is not in the harness's buffer", ctx->kernel_name);
  const unsigned partners = n > 1 ? CB_HS_OFFSET(1) | CB_HS_OFFSET(n - 1) : 0;
  cb_ce_flags_launch(ctx, &st->flags, partners, 0, stream);
  CB_CUDA(cudaMemcpyAsync(dst, call->send, bytes, cudaMemcpyDefault, stream));
  cb_ce_flags_launch(ctx, &st->flags, partners, 1, stream);
}

CB_KERNEL_ROW(cb_sendrecv_ce) = CB_PEER_ROW(
    "ce",
    "copy engine: cudaMemcpyAsync of every rank's input into the next rank's "
    "output, between two one-block flag kernels (out of place, as direct)",
    CB_OUT_OF_PLACE, cb_sr_ce_setup, cb_sr_ce_teardown, cb_sr_ce_launch, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(sendrecv, cb_sendrecv_ce,
                   "one `cudaMemcpyAsync` of the input into the next rank's output between two "
                   "one-block flag kernels; out of place only, as direct");
