#include "grid_fit.h"

#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "error.h"

int cb_resident_blocks(const cb_kernel_ctx *ctx, const void *func, int threads, size_t smem,
                       int reserve_sms) {
  int per_sm = 0, sms = 0;
  CB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, threads, smem));
  CB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device));
  sms -= reserve_sms;
  if (sms < 0) sms = 0;
  int sharing = ctx->ranks_on_device > 0 ? ctx->ranks_on_device : 1;
  return per_sm * sms / sharing;
}

int cb_fit_grid(cb_kernel_ctx *ctx, const void *func, int threads, size_t smem, int reserve_sms,
                int want, int min_blocks) {
  int fit = cb_resident_blocks(ctx, func, threads, smem, reserve_sms);
  if (fit >= want) return want;
  if (fit >= min_blocks && fit > 0) return fit;
  cb_kernel_refuse(ctx,
                   "its blocks wait on each other and need %d resident blocks of %d threads at "
                   "once; this GPU holds %d (%d rank%s on it)",
                   min_blocks, threads, fit, ctx->ranks_on_device,
                   ctx->ranks_on_device == 1 ? "" : "s");
  return 0;
}

int cb_fit_grid_everywhere(cb_kernel_ctx *ctx, const void *const *funcs, int nfuncs, int threads,
                           size_t smem, int reserve_sms, int want, int min_blocks) {
  int fit = want;
  for (int i = 0; i < nfuncs; i++) {
    int f = cb_fit_grid(ctx, funcs[i], threads, smem, reserve_sms, want, min_blocks);
    if (f < fit) fit = f;
  }
  int *all = (int *)calloc((size_t)ctx->nranks, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(ctx->world, &fit, sizeof fit, all);
  for (int r = 0; r < ctx->nranks; r++)
    if (all[r] < fit) fit = all[r];
  free(all);
  return fit;
}
