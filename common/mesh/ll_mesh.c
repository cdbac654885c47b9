/* Host half of the LL packet kernels' shared state (ll_mesh.h). */
#include "ll_mesh.h"

#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "env.h"
#include "error.h"
#include "grid_fit.h"

/* Every launched warp must be resident at once: a warp polling for a
 * peer's packets may wait on a peer warp that waits on one of ours. An
 * H100/H200 SM holds 32 blocks and 64 warps, so its 132 SMs hold 4224
 * one-warp blocks and 8448 warps; 2048 warps in blocks of 1 to 16 warps
 * stay within both (the LL kernels use few registers). */
#define LL_MAX_WARPS       2048
#define LL_MAX_BLOCK_WARPS 16

void cb_ll_setup(cb_kernel_ctx *ctx, size_t max_packets) {
  cb_ll_state *st = (cb_ll_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  /* Whole tiles: writers fill the last tile of a message with filler
   * packets (device/ll_tiles.cuh, "Counters"). */
  st->tiles = (max_packets + CB_LL_TILE - 1) / CB_LL_TILE;
  st->slot_packets = st->tiles * CB_LL_TILE;
  st->block_warps = (int)cb_env_long("CB_LL_BLOCK_WARPS", 0, 0, LL_MAX_BLOCK_WARPS);
  st->max_warps = (int)cb_env_long("CB_LL_MAX_WARPS", 0, 0, LL_MAX_WARPS);
  size_t bytes = 2 * (size_t)ctx->nranks * st->slot_packets * sizeof(uint4);
  cb_peer_alloc(ctx->world, bytes > 0 ? bytes : sizeof(uint4), &st->scratch);
  size_t counters = (st->tiles > 0 ? st->tiles : 1) * sizeof *st->epochs;
  CB_CUDA(cudaMalloc((void **)&st->epochs, counters));
  CB_CUDA(cudaMemset(st->epochs, 0, counters));
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

void cb_ll_teardown(cb_kernel_ctx *ctx) {
  cb_ll_state *st = (cb_ll_state *)ctx->state;
  cb_peer_free(ctx->world, &st->scratch);
  CB_CUDA(cudaFree(st->epochs));
  free(st);
  ctx->state = NULL;
}

cb_ll_mesh cb_ll_mesh_for(const cb_kernel_ctx *ctx, const cb_ll_state *st, size_t packets) {
  if (packets > st->slot_packets)
    cb_fatal("kernel %s: %zu packets per rank exceed its scratch of %zu", ctx->kernel_name, packets,
             st->slot_packets);
  cb_ll_mesh m;
  for (int p = 0; p < CB_MAX_PEERS; p++)
    m.scratch[p] = p < ctx->nranks ? (uint4 *)st->scratch.ptr[(ctx->rank + p) % ctx->nranks] : NULL;
  m.epochs = st->epochs;
  m.slot_packets = st->slot_packets;
  m.rank = ctx->rank;
  m.nranks = ctx->nranks;
  return m;
}

/* Default shape by size, from all_reduce on 2 x H200 in graph mode
 * (results/h200x2/2026-11-30-s3/ll_shape*.txt): up to 64 tiles (16 KiB per
 * rank) one warp per tile in blocks of 2 warps (blocks of 4 were 0.05-0.1
 * us slower at 16 KiB); above, blocks of 4 warps and up to 1024 warps,
 * each warp taking several tiles (1 MiB: 9.5 us; 256 warps: 16-19 us). */
cb_ll_grid cb_ll_grid_for(const cb_ll_state *st, size_t packets) {
  size_t tiles = (packets + CB_LL_TILE - 1) / CB_LL_TILE;
  size_t block_warps = st->block_warps ? (size_t)st->block_warps : tiles <= 64 ? 2 : 4;
  size_t max_warps = st->max_warps ? (size_t)st->max_warps : 1024;
  size_t warps = tiles < max_warps ? tiles : max_warps;
  if (warps < block_warps) block_warps = warps;
  cb_ll_grid g;
  g.threads = (unsigned)(block_warps * 32);
  g.blocks = (unsigned)((warps + block_warps - 1) / block_warps);
  return g;
}

void cb_ll_check_resident(cb_kernel_ctx *ctx, const cb_ll_state *st, const void *func,
                          size_t max_packets) {
  cb_ll_grid g = cb_ll_grid_for(st, max_packets > 0 ? max_packets : 1);
  cb_fit_grid(ctx, func, (int)g.threads, 0, 0, (int)g.blocks, (int)g.blocks);
}
