/* Host half of the ring kernels' FIFO pipes (ring_mesh.h). */
#include "ring_mesh.h"

#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "collbench/cuda_check.h"
#include "collbench/error.h"
#include "grid_fit.h"
#include "collbench/tunables.h"

/* Ring defaults from sweeps of the all_reduce ring on 2 x H200 at 1 GiB
 * float (docs/kernels.md, "The ring's defaults"): 16 channels of
 * 128 KiB slices gave 164 GB/s, 32 x 512 KiB 311, 64 x 512 KiB 350, 96 x 512 KiB
 * 357, 128 x 512 KiB 364; 1 MiB slices and 8 slots did not help. At
 * most CB_RING_MAX_CHANNELS (ring_mesh.h) channels; a slice is moved in
 * 16-byte accesses, its slot CB_RING_SLOT_PAD bytes longer (ring_span.h).
 * Every ring kernel reads them; the ranks must agree. */
CB_REGISTER_TUNABLES(ring,
                     CB_TUNABLE_NUMBER("CB_RING_CHANNELS", 1, 128, 1, 128, CB_TUNE_AGREE,
                                       "ring kernels: channels (one FIFO pipe per channel and "
                                       "link), at most; fewer where the GPU cannot hold them all "
                                       "resident"),
                     CB_TUNABLE_NUMBER("CB_RING_SLOTS", 2, 64, 1, 4, CB_TUNE_AGREE,
                                       "ring kernels: slots of each FIFO pipe"),
                     CB_TUNABLE_NUMBER("CB_RING_SLICE", 1 << 10, 64 << 20, 16, 512 << 10,
                                       CB_TUNE_AGREE, "ring kernels: bytes a FIFO slot carries"));

/* Channels every rank can keep resident at once: the fewest blocks of any
 * of the kernel's instances that fit on any rank's GPU (a rank where none
 * fits refuses the kernel), since channel c of a rank waits on channel c of
 * its peers. */
static int fit_channels(cb_kernel_ctx *ctx, cb_setup_reply *reply, const cb_ring_spec *spec,
                        int want) {
  const void *funcs[CB_NUM_DTYPES * CB_NUM_OPS];
  int nfuncs = 0;
  for (int t = 0; t < CB_NUM_DTYPES; t++)
    for (int o = 0; o < CB_NUM_OPS; o++)
      funcs[nfuncs++] = spec->kernel_of((cb_dtype)t, (cb_redop)o);
  return cb_fit_grid_agreed(ctx, reply, funcs, nfuncs, spec->threads, 0, 0, want, 1);
}

void cb_ring_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply, const cb_ring_spec *spec) {
  cb_ring_state *st = (cb_ring_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  ctx->state = st;
  st->spec = *spec;
  /* Checked at start and equal on every rank (their rows, above, hold the
   * defaults and why): a sender indexes the receiver's FIFO with them. */
  int want = (int)cb_tunable("CB_RING_CHANNELS");
  st->slots = (int)cb_tunable("CB_RING_SLOTS");
  st->slice_bytes = (size_t)cb_tunable("CB_RING_SLICE");
  st->links = spec->links > 0 ? spec->links : 1;
  st->channels = fit_channels(ctx, reply, spec, want);
  if (st->channels == 0) return; /* refused here or on another rank: nothing allocated */
  size_t pipes = (size_t)st->links * st->channels;
  cb_peer_alloc(ctx->world, pipes * st->slots * (st->slice_bytes + CB_RING_SLOT_PAD), &st->fifo);
  cb_peer_alloc(ctx->world, pipes * 2 * CB_RING_FLAG_STRIDE * sizeof(uint64_t), &st->flags);
  CB_CUDA(cudaMalloc((void **)&st->counters, pipes * 2 * sizeof(uint64_t)));
  CB_CUDA(cudaMemset(st->counters, 0, pipes * 2 * sizeof(uint64_t)));
  CB_CUDA(cudaDeviceSynchronize());
}

void cb_ring_teardown(cb_kernel_ctx *ctx) {
  cb_ring_state *st = (cb_ring_state *)ctx->state;
  if (st->channels > 0) {
    cb_peer_free(ctx->world, &st->fifo);
    cb_peer_free(ctx->world, &st->flags);
    CB_CUDA(cudaFree(st->counters));
  }
  free(st);
  ctx->state = NULL;
}

cb_ring_mesh cb_ring_mesh_for(const cb_kernel_ctx *ctx, const cb_ring_state *st) {
  cb_ring_mesh m;
  for (int p = 0; p < CB_MAX_PEERS; p++) {
    int r = (ctx->rank + p) % ctx->nranks;
    m.fifo[p] = p < ctx->nranks ? (char *)st->fifo.ptr[r] : NULL;
    m.flags[p] = p < ctx->nranks ? (uint64_t *)st->flags.ptr[r] : NULL;
  }
  m.counters = st->counters;
  m.slice_bytes = st->slice_bytes;
  m.slot_bytes = st->slice_bytes + CB_RING_SLOT_PAD;
  m.slots = st->slots;
  m.channels = st->channels;
  m.rank = ctx->rank;
  m.nranks = ctx->nranks;
  return m;
}

void cb_ring_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r) {
  const cb_ring_state *st = (const cb_ring_state *)ctx->state;
  if (call->count == 0) return;
  cb_res_grid(r, "ring", st->spec.kernel_of(call->dtype, call->op), (unsigned)st->channels,
              (unsigned)st->spec.threads, 0);
}

void cb_ring_check_blocks(const cb_kernel_ctx *ctx, size_t block_bytes) {
  if (block_bytes % 16)
    cb_fatal("kernel %s needs blocks of whole 16-byte vectors, not %zu bytes", ctx->kernel_name,
             block_bytes);
}
