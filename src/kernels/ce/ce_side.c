/* The ce kernels' receive buffers, flags and side streams (ce_side.h). */
#include "ce_side.h"

#include <stdlib.h>

#include "collbench/cuda_check.h"

void cb_ce_side_setup(cb_kernel_ctx *ctx, cb_ce_side *s) {
  cb_peer_share(ctx->world, ctx->recv_buf, ctx->recv_buf_bytes, &s->recv);
  cb_ce_flags_setup(ctx, &s->flags);
  CB_CUDA(cudaEventCreateWithFlags(&s->fork, cudaEventDisableTiming));
  for (int p = 0; p < ctx->nranks - 1; p++) {
    CB_CUDA(cudaStreamCreateWithFlags(&s->side[p], cudaStreamNonBlocking));
    CB_CUDA(cudaEventCreateWithFlags(&s->join[p], cudaEventDisableTiming));
  }
}

void cb_ce_side_teardown(cb_kernel_ctx *ctx, cb_ce_side *s) {
  for (int p = 0; p < ctx->nranks - 1; p++) {
    CB_CUDA(cudaStreamDestroy(s->side[p]));
    CB_CUDA(cudaEventDestroy(s->join[p]));
  }
  CB_CUDA(cudaEventDestroy(s->fork));
  cb_peer_free(ctx->world, &s->recv); /* unmaps the peers' buffers; ours is the harness's */
  cb_ce_flags_free(ctx, &s->flags);
  free(ctx->state);
  ctx->state = NULL;
}
