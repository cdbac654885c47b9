/* The copy-engine all-gather half of a kernel (ce_spread.h). */
#include "ce_spread.h"

#include "cuda_check.h"
#include "error.h"
#include "grid_fit.h"

extern "C" int cb_ce_spread_setup(cb_kernel_ctx *ctx, cb_ce_spread *s) {
  if (cb_most_ranks_on_a_gpu(ctx) > 1) return 0;
  cb_peer_share(ctx->world, ctx->recv_buf, ctx->recv_buf_bytes, &s->recv);
  cb_ce_flags_setup(ctx, &s->flags);
  for (int p = 0; p < ctx->nranks; p++) {
    CB_CUDA(cudaStreamCreateWithFlags(&s->side[p], cudaStreamNonBlocking));
    CB_CUDA(cudaEventCreateWithFlags(&s->join[p], cudaEventDisableTiming));
  }
  for (int k = 0; k < CB_CE_SPREAD_MAX_PIECES; k++)
    CB_CUDA(cudaEventCreateWithFlags(&s->ready[k], cudaEventDisableTiming));
  return 1;
}

extern "C" void cb_ce_spread_free(cb_kernel_ctx *ctx, cb_ce_spread *s) {
  CB_CUDA(cudaDeviceSynchronize());
  for (int p = 0; p < ctx->nranks; p++) {
    CB_CUDA(cudaStreamDestroy(s->side[p]));
    CB_CUDA(cudaEventDestroy(s->join[p]));
  }
  for (int k = 0; k < CB_CE_SPREAD_MAX_PIECES; k++) CB_CUDA(cudaEventDestroy(s->ready[k]));
  cb_peer_free(ctx->world, &s->recv); /* unmaps the peers' buffers; ours is the harness's */
  cb_ce_flags_free(ctx, &s->flags);
}

extern "C" void cb_ce_spread_piece(cb_kernel_ctx *ctx, cb_ce_spread *s, size_t piece,
                                   const char *mine, size_t bytes, cudaStream_t stream) {
  const int n = ctx->nranks, rank = ctx->rank;
  if (piece >= CB_CE_SPREAD_MAX_PIECES) cb_fatal("kernel %s: too many pieces", ctx->kernel_name);
  CB_CUDA(cudaEventRecord(s->ready[piece], stream));
  for (int p = 1; p < n; p++) {
    const int peer = (rank + p) % n; /* from the next rank on: ranks spread over the links */
    /* Every side stream waits, even with nothing to copy, so that each is
     * forked from (and, at the end, joined into) the call's stream, which
     * a graph capture needs. */
    CB_CUDA(cudaStreamWaitEvent(s->side[peer], s->ready[piece], 0));
    if (bytes == 0) continue;
    void *dst = cb_peer_ptr_in(&s->recv, 1, peer, mine);
    if (!dst) cb_fatal("kernel %s: the output is not in the harness's buffer", ctx->kernel_name);
    CB_CUDA(cudaMemcpyAsync(dst, mine, bytes, cudaMemcpyDefault, s->side[peer]));
  }
}

extern "C" void cb_ce_spread_end(cb_kernel_ctx *ctx, cb_ce_spread *s, cudaStream_t stream) {
  const int n = ctx->nranks, rank = ctx->rank;
  for (int p = 1; p < n; p++) {
    const int peer = (rank + p) % n;
    CB_CUDA(cudaEventRecord(s->join[peer], s->side[peer]));
    CB_CUDA(cudaStreamWaitEvent(stream, s->join[peer], 0));
  }
  cb_ce_flags_launch(ctx, &s->flags, cb_ce_every_peer(n), 1, stream);
}
