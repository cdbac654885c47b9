/* Host half of the LL packet kernels' shared state (ll_mesh.h). */
#include "ll_mesh.h"

#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "collbench/cuda_check.h"
#include "collbench/error.h"
#include "grid_fit.h"
#include "collbench/tunables.h"

/* The LL grid: a rank's own choice (nothing its peers see depends on it). */
CB_REGISTER_TUNABLES(ll,
                     CB_TUNABLE_NUMBER("CB_LL_BLOCK_WARPS", 0, 16, 1, 0, CB_TUNE_PER_RANK,
                                       "LL kernels: warps per block; 0, by size (2 up to 64 tiles "
                                       "of 32 packets, 4 above)"),
                     CB_TUNABLE_NUMBER("CB_LL_MAX_WARPS", 0, 2048, 1, 0, CB_TUNE_PER_RANK,
                                       "LL kernels: warps at most, each taking several tiles; 0, "
                                       "1024"));

/* Every launched warp must be resident at once: a warp polling for a
 * peer's packets may wait on a peer warp that waits on one of ours.
 * cb_ll_fit caps the grid at what the GPU holds; on an H100/H200 (132 SMs,
 * 64 warps each) the budget below fits with room to spare. */
#define LL_DEFAULT_WARPS 1024

void cb_ll_setup(cb_kernel_ctx *ctx, size_t max_packets, cb_ll_pattern pattern) {
  if (pattern != CB_LL_ALL_READ_ALL && pattern != CB_LL_CREDITED)
    cb_fatal("kernel %s: unknown LL pattern %d", ctx->kernel_name, (int)pattern);
  cb_ll_state *st = (cb_ll_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  st->pattern = pattern;
  /* Whole tiles: writers fill the last tile of a message with filler
   * packets (device/ll_tiles.cuh, "Counters"). */
  st->tiles = (max_packets + CB_LL_TILE - 1) / CB_LL_TILE;
  st->slot_packets = st->tiles * CB_LL_TILE;
  /* This rank's own choice (its rows, above): its grid changes nothing its
   * peers see (packets carry their own flags, in the same places). */
  st->block_warps = (int)cb_tunable("CB_LL_BLOCK_WARPS");
  st->max_warps = (int)cb_tunable("CB_LL_MAX_WARPS");
  size_t bytes = 2 * (size_t)ctx->nranks * st->slot_packets * sizeof(uint4);
  cb_peer_alloc(ctx->world, bytes > 0 ? bytes : sizeof(uint4), &st->scratch);
  size_t counters = (st->tiles > 0 ? st->tiles : 1) * sizeof *st->epochs;
  CB_CUDA(cudaMalloc((void **)&st->epochs, counters));
  CB_CUDA(cudaMemset(st->epochs, 0, counters));
  if (pattern == CB_LL_CREDITED) /* zeroed: no call is complete yet */
    cb_peer_alloc(ctx->world, (st->tiles > 0 ? st->tiles : 1) * CB_MAX_PEERS * sizeof(uint64_t),
                  &st->credits);
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

/* Warps of blocks of block_warps warps that can all be resident. */
static int resident_warps(cb_kernel_ctx *ctx, const void *const *funcs, int nfuncs,
                          int block_warps) {
  return cb_resident_blocks_all(ctx, funcs, nfuncs, block_warps * 32, 0, 0) * block_warps;
}

void cb_ll_fit(cb_kernel_ctx *ctx, cb_setup_reply *reply, const void *const *funcs, int nfuncs) {
  cb_ll_state *st = (cb_ll_state *)ctx->state;
  /* The block sizes cb_ll_grid_for picks: the override, or 2 and 4 warps. */
  int cap = st->block_warps ? resident_warps(ctx, funcs, nfuncs, st->block_warps)
                            : resident_warps(ctx, funcs, nfuncs, 2);
  if (!st->block_warps) {
    int four = resident_warps(ctx, funcs, nfuncs, 4);
    cap = four < cap ? four : cap;
  }
  int budget = st->max_warps ? st->max_warps : LL_DEFAULT_WARPS;
  if (cap <= 0) {
    cb_kernel_refuse(reply,
                     "its warps wait on each other and not one block can be resident (%d "
                     "rank%s on this GPU%s)",
                     ctx->ranks_on_device, ctx->ranks_on_device == 1 ? "" : "s",
                     cb_whole_sms_words(ctx));
    return;
  }
  st->warp_cap = cap;
  st->nfuncs = nfuncs <= CB_NUM_DTYPES * CB_NUM_OPS ? nfuncs : 0;
  for (int i = 0; i < st->nfuncs; i++) st->funcs[i] = funcs[i];
  if (cap < budget)
    cb_kernel_note(reply,
                   "its warps wait on each other and this GPU holds %d of them at once (%d "
                   "rank%s on it%s): the grid has at most %d warps, not %d",
                   cap, ctx->ranks_on_device, ctx->ranks_on_device == 1 ? "" : "s",
                   cb_whole_sms_words(ctx), cap, budget);
}

void cb_ll_teardown(cb_kernel_ctx *ctx) {
  cb_ll_state *st = (cb_ll_state *)ctx->state;
  cb_peer_free(ctx->world, &st->scratch);
  if (st->pattern == CB_LL_CREDITED) cb_peer_free(ctx->world, &st->credits);
  CB_CUDA(cudaFree(st->epochs));
  free(st);
  ctx->state = NULL;
}

/* The view shared by both patterns. */
static cb_ll_mesh mesh_view(const cb_kernel_ctx *ctx, const cb_ll_state *st, size_t packets) {
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

static void check_pattern(const cb_kernel_ctx *ctx, const cb_ll_state *st, cb_ll_pattern want) {
  if (st->pattern != want)
    cb_fatal("kernel %s: asks for the %s LL view but was set up for %s", ctx->kernel_name,
             want == CB_LL_CREDITED ? "credited" : "all-read-all",
             st->pattern == CB_LL_CREDITED ? "credits" : "all-read-all");
}

cb_ll_mesh cb_ll_mesh_for(const cb_kernel_ctx *ctx, const cb_ll_state *st, size_t packets) {
  check_pattern(ctx, st, CB_LL_ALL_READ_ALL);
  return mesh_view(ctx, st, packets);
}

cb_ll_push_mesh cb_ll_push_mesh_for(const cb_kernel_ctx *ctx, const cb_ll_state *st,
                                    size_t packets) {
  check_pattern(ctx, st, CB_LL_CREDITED);
  cb_ll_push_mesh v;
  v.ll = mesh_view(ctx, st, packets);
  for (int p = 0; p < CB_MAX_PEERS; p++)
    v.credit[p] =
        p < ctx->nranks ? (uint64_t *)st->credits.ptr[(ctx->rank + p) % ctx->nranks] : NULL;
  return v;
}

/* Default shape by size, from all_reduce on 2 x H200 in graph mode
 * (docs/kernels.md, "LL epochs per tile"): up to 64 tiles (16 KiB per
 * rank) one warp per tile in blocks of 2 warps (16 KiB: 2.55-2.62 us, in
 * blocks of 4 2.69-2.70); above, blocks of 4 warps and up to 1024 warps,
 * each warp taking several tiles (1 MiB: 9.7-9.9 us; 256 warps: 16-18 us). */
cb_ll_grid cb_ll_grid_for(const cb_ll_state *st, size_t packets) {
  size_t tiles = (packets + CB_LL_TILE - 1) / CB_LL_TILE;
  size_t block_warps = st->block_warps ? (size_t)st->block_warps : tiles <= 64 ? 2 : 4;
  size_t max_warps = st->max_warps ? (size_t)st->max_warps : LL_DEFAULT_WARPS;
  size_t warps = tiles < max_warps ? tiles : max_warps;
  if (warps < block_warps) block_warps = warps;
  if (st->warp_cap) { /* whole blocks within the cap */
    size_t cap = (size_t)st->warp_cap;
    if (block_warps > cap) block_warps = cap;
    cap = cap / block_warps * block_warps;
    if (warps > cap) warps = cap;
  }
  cb_ll_grid g;
  g.threads = (unsigned)(block_warps * 32);
  g.blocks = (unsigned)((warps + block_warps - 1) / block_warps);
  return g;
}

void cb_ll_resources_for(const cb_kernel_ctx *ctx, const cb_call *call, size_t packets,
                         const void *func, cb_kernel_resources *r) {
  const cb_ll_state *st = (const cb_ll_state *)ctx->state;
  if (packets == 0) return;
  if (!func) func = cb_func_for(st->funcs, st->nfuncs, call->dtype, call->op);
  const cb_ll_grid g = cb_ll_grid_for(st, packets);
  cb_res_grid(r, "LL", func, g.blocks, g.threads, 0);
}

void cb_ll_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r) {
  cb_ll_resources_for(ctx, call, (call->count * cb_dtype_size(call->dtype) + 7) / 8, NULL, r);
}
