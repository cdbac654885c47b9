#include "grid_fit.h"

#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "collbench/cuda_check.h"
#include "collbench/error.h"

int cb_shared_resident_blocks(int per_sm, int sms, int ranks_on_device) {
  if (per_sm <= 0 || sms <= 0) return 0;
  long total = (long)per_sm * sms;
  if (ranks_on_device <= 1) return (int)total;
  return (int)(total * CB_SHARED_GPU_PERCENT / 100 / ranks_on_device);
}

static int keeps_whole_sms(const cb_kernel_ctx *ctx) {
  return ctx->beside_nccl && ctx->ranks_on_device > 1;
}

int cb_ctx_resident_blocks(const cb_kernel_ctx *ctx, int per_sm, int sms) {
  const int one_an_sm = keeps_whole_sms(ctx) && per_sm > 1;
  return cb_shared_resident_blocks(one_an_sm ? 1 : per_sm, sms, ctx->ranks_on_device);
}

const char *cb_whole_sms_words(const cb_kernel_ctx *ctx) {
  return keeps_whole_sms(ctx) ? ", one block an SM, whole SMs left to NCCL's kernels" : "";
}

int cb_resident_blocks_all(const cb_kernel_ctx *ctx, const void *const *funcs, int nfuncs,
                           int threads, size_t smem, int reserve_sms) {
  int fewest = -1, sms = 0;
  for (int i = 0; i < nfuncs; i++) {
    int per_sm = 0;
    CB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, funcs[i], threads, smem));
    if (fewest < 0 || per_sm < fewest) fewest = per_sm;
  }
  CB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device));
  return cb_ctx_resident_blocks(ctx, fewest, sms - reserve_sms);
}

/* The decision, from the blocks that fit: want, fewer (noted), or refused. */
static int decide(cb_kernel_ctx *ctx, cb_setup_reply *reply, int fit, int threads, int want,
                  int min_blocks) {
  const char *ranks = ctx->ranks_on_device == 1 ? "" : "s";
  if (fit >= want) return want;
  if (fit >= min_blocks && fit > 0) {
    cb_kernel_note(
        reply,
        "its blocks wait on each other and %d blocks of %d threads cannot all be resident "
        "(this GPU holds %d, %d rank%s on it%s): it launches at most %d",
        want, threads, fit, ctx->ranks_on_device, ranks, cb_whole_sms_words(ctx), fit);
    return fit;
  }
  cb_kernel_refuse(reply,
                   "its blocks wait on each other and need %d resident blocks of %d threads at "
                   "once; this GPU holds %d (%d rank%s on it%s)",
                   min_blocks > 0 ? min_blocks : 1, threads, fit, ctx->ranks_on_device, ranks,
                   cb_whole_sms_words(ctx));
  return 0;
}

int cb_fit_grid_all(cb_kernel_ctx *ctx, cb_setup_reply *reply, const void *const *funcs, int nfuncs,
                    int threads, size_t smem, int reserve_sms, int want, int min_blocks) {
  int fit = cb_resident_blocks_all(ctx, funcs, nfuncs, threads, smem, reserve_sms);
  return decide(ctx, reply, fit, threads, want, min_blocks);
}

/* The smallest (least) or largest of v over every rank. */
static int over_ranks(cb_kernel_ctx *ctx, int v, int least) {
  int *all = malloc((size_t)ctx->nranks * sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(ctx->world, &v, sizeof v, all);
  for (int r = 0; r < ctx->nranks; r++)
    if (least ? all[r] < v : all[r] > v) v = all[r];
  free(all);
  return v;
}

int cb_most_ranks_on_a_gpu(cb_kernel_ctx *ctx) {
  return over_ranks(ctx, ctx->ranks_on_device, 0);
}

int cb_refuse_shared_gpus(cb_kernel_ctx *ctx, cb_setup_reply *reply, const char *why) {
  int most = cb_most_ranks_on_a_gpu(ctx);
  if (most > 1)
    cb_kernel_refuse(reply,
                     "%s, and with %d ranks on one GPU their streams may share in-order "
                     "hardware queues",
                     why, most);
  return most > 1;
}

int cb_fit_grid_agreed(cb_kernel_ctx *ctx, cb_setup_reply *reply, const void *const *funcs,
                       int nfuncs, int threads, size_t smem, int reserve_sms, int want,
                       int min_blocks) {
  int mine = cb_resident_blocks_all(ctx, funcs, nfuncs, threads, smem, reserve_sms);
  return decide(ctx, reply, over_ranks(ctx, mine, 1), threads, want, min_blocks);
}

const void *cb_func_for(const void *const *funcs, int nfuncs, cb_dtype dtype, cb_redop op) {
  if (nfuncs == 1) return funcs[0];
  if (nfuncs == CB_NUM_DTYPES * CB_NUM_OPS && (unsigned)dtype < CB_NUM_DTYPES &&
      (unsigned)op < CB_NUM_OPS)
    return funcs[(int)dtype * CB_NUM_OPS + (int)op];
  return NULL;
}
