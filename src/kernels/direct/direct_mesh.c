/* Host half of the direct kernels' shared state (direct_mesh.h). */
#include "direct_mesh.h"

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "collbench/cuda_check.h"
#include "collbench/error.h"
#include "grid_fit.h"
#include "collbench/tunables.h"

/* device/handshake.cuh: one 64-bit word per (block, source rank). */
#define AREA_BYTES(blocks) ((size_t)(blocks)*CB_MAX_PEERS * sizeof(uint64_t))

void cb_direct_setup(cb_kernel_ctx *ctx, const char *prefix) {
  cb_direct_state *st = (cb_direct_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  /* Checked at start, equal on every rank (the kernel's rows,
   * CB_DIRECT_TUNABLES): block b pairs with block b of every peer, and a
   * call's blocks follow from the bytes. */
  char name[64];
  snprintf(name, sizeof name, "%s_BLOCKS", prefix);
  st->max_blocks = (int)cb_tunable(name);
  snprintf(name, sizeof name, "%s_BLOCK_BYTES", prefix);
  st->block_bytes = (size_t)cb_tunable(name);
  cb_peer_share(ctx->world, ctx->send_buf, ctx->send_buf_bytes, &st->bufs[0]);
  cb_peer_share(ctx->world, ctx->recv_buf, ctx->recv_buf_bytes, &st->bufs[1]);
  cb_peer_alloc(ctx->world, AREA_BYTES(st->max_blocks), &st->flags);
  CB_CUDA(cudaMalloc((void **)&st->epochs, (size_t)st->max_blocks * sizeof *st->epochs));
  CB_CUDA(cudaMemset(st->epochs, 0, (size_t)st->max_blocks * sizeof *st->epochs));
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

void cb_direct_fit(cb_kernel_ctx *ctx, cb_setup_reply *reply, const void *const *funcs,
                   int nfuncs) {
  cb_direct_state *st = (cb_direct_state *)ctx->state;
  /* Block b of every rank handshakes with block b of every peer: the same
   * count everywhere, or a block would wait for a peer block never launched. */
  st->max_blocks =
      cb_fit_grid_agreed(ctx, reply, funcs, nfuncs, CB_DIRECT_THREADS, 0, 0, st->max_blocks, 1);
  st->nfuncs = nfuncs <= CB_NUM_DTYPES * CB_NUM_OPS ? nfuncs : 0;
  for (int i = 0; i < st->nfuncs; i++) st->funcs[i] = funcs[i];
}

void cb_direct_teardown(cb_kernel_ctx *ctx) {
  cb_direct_state *st = (cb_direct_state *)ctx->state;
  cb_peer_free(ctx->world, &st->bufs[0]); /* unmaps the peers' buffers; ours are the harness's */
  cb_peer_free(ctx->world, &st->bufs[1]);
  cb_peer_free(ctx->world, &st->flags);
  CB_CUDA(cudaFree(st->epochs));
  free(st);
  ctx->state = NULL;
}

int cb_direct_blocks(const cb_direct_state *st, size_t traffic) {
  size_t want = (traffic + st->block_bytes - 1) / st->block_bytes;
  if (want == 0) want = 1;
  return want < (size_t)st->max_blocks ? (int)want : st->max_blocks;
}

void cb_direct_resources_for(const cb_kernel_ctx *ctx, const cb_call *call, size_t traffic,
                             cb_kernel_resources *r) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  if (traffic == 0) return;
  cb_res_grid(r, "direct", cb_func_for(st->funcs, st->nfuncs, call->dtype, call->op),
              (unsigned)cb_direct_blocks(st, traffic), CB_DIRECT_THREADS, 0);
}

void cb_direct_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  cb_direct_resources_for(ctx, call, cb_direct_run_traffic(ctx->nranks, bytes), r);
}

void *cb_direct_peer_ptr(const cb_kernel_ctx *ctx, const cb_direct_state *st, int r,
                         const void *local_ptr) {
  void *p = cb_peer_ptr_in(st->bufs, 2, r, local_ptr);
  if (!p) cb_fatal("kernel %s: a call's buffer is not the harness's", ctx->kernel_name);
  return p;
}

void cb_direct_areas(const cb_kernel_ctx *ctx, const cb_direct_state *st,
                     uint64_t *area[CB_MAX_PEERS]) {
  for (int r = 0; r < CB_MAX_PEERS; r++)
    area[r] = r < ctx->nranks ? (uint64_t *)st->flags.ptr[r] : NULL;
}
