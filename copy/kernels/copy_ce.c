/* -k 0 ce and -k 1 batch: the copy engines, through the CUDA runtime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_kernels.h"
#include "cuda_check.h"
#include "error.h"

/* ---- ce: one cudaMemcpyAsync per copy -------------------------------------- */

void cb_copy_ce_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s) {
  (void)ctx;
  /* cudaMemcpyDefault: unified addressing tells host, device and peer apart. */
  for (int i = 0; i < copies; i++)
    CB_CUDA(cudaMemcpyAsync(call->dst, call->src, call->bytes, cudaMemcpyDefault, s));
}

/* ---- batch: one cudaMemcpyBatchAsync per window (CUDA 12.8) ---------------- */

#define BATCH_MIN_VERSION 12080

typedef struct {
  void **dsts;
  const void **srcs;
  size_t *sizes;
} batch_state;

const char *cb_copy_batch_unavailable(void) {
#if CUDART_VERSION < BATCH_MIN_VERSION
  return "built with a CUDA runtime older than 12.8: no cudaMemcpyBatchAsync";
#else
  return NULL;
#endif
}

const char *cb_copy_batch_setup(cb_copy_ctx *ctx) {
  static char why[128];
  int driver = 0;
  CB_CUDA(cudaDriverGetVersion(&driver));
  if (driver < BATCH_MIN_VERSION) {
    snprintf(why, sizeof why,
             "the CUDA driver supports CUDA %d.%d: cudaMemcpyBatchAsync needs 12.8", driver / 1000,
             driver % 1000 / 10);
    return why;
  }
  batch_state *st = calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  size_t n = (size_t)ctx->window;
  st->dsts = malloc(n * sizeof *st->dsts);
  st->srcs = malloc(n * sizeof *st->srcs);
  st->sizes = malloc(n * sizeof *st->sizes);
  if (!st->dsts || !st->srcs || !st->sizes) cb_fatal("out of host memory");
  ctx->state = st;
  return NULL;
}

void cb_copy_batch_teardown(cb_copy_ctx *ctx) {
  batch_state *st = ctx->state;
  free(st->dsts);
  free(st->srcs);
  free(st->sizes);
  free(st);
  ctx->state = NULL;
}

void cb_copy_batch_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s) {
#if CUDART_VERSION >= BATCH_MIN_VERSION
  batch_state *st = ctx->state;
  for (int i = 0; i < copies; i++) {
    st->dsts[i] = call->dst;
    st->srcs[i] = call->src;
    st->sizes[i] = call->bytes;
  }
  /* One attribute for every copy: read the source in stream order, which is
   * valid for every kind of memory (pinned, pageable, device, peer). The
   * location hints only apply to managed memory; zero leaves them unset. */
  struct cudaMemcpyAttributes attr;
  memset(&attr, 0, sizeof attr);
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  size_t attr_idx = 0;
#if CUDART_VERSION >= 13000
  CB_CUDA(cudaMemcpyBatchAsync((void *const *)st->dsts, (const void *const *)st->srcs, st->sizes,
                               (size_t)copies, &attr, &attr_idx, 1, s));
#else
  size_t fail_idx = 0;
  CB_CUDA(cudaMemcpyBatchAsync(st->dsts, (void **)st->srcs, st->sizes, (size_t)copies, &attr,
                               &attr_idx, 1, &fail_idx, s));
#endif
#else
  (void)ctx, (void)call, (void)copies, (void)s;
  cb_fatal("kernel batch: built without cudaMemcpyBatchAsync");
#endif
}
