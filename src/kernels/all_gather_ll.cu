/* -k ll: all-gather by LL16 packets, for small messages.
 *
 * Every rank writes its block, as LL16 packets (8 data bytes and two
 * copies of the epoch in one 16-byte store, device/ll_packet.cuh), into its
 * slot of every peer's scratch, and out of place into its own output; then
 * it polls its scratch until each peer's packets carry the epoch and copies
 * them into the peer's block of its output. One kernel, no handshake: the
 * flag travels with the data, and peers never touch our buffers, only our
 * scratch. Tiles, per-tile epochs and the double buffering:
 * device/ll_tiles.cuh (every rank's block has the same length, so every
 * call covering tile t reads tile t from every peer).
 *
 * In place: our block of our output is the input; we only read it (to push
 * it), and the packets we receive go to the other blocks. */
#include <stdint.h>

#include "all_gather_kernels.h"
#include "cuda_check.h"
#include "device/ll_packet.cuh"
#include "device/ll_tiles.cuh"
#include "device/pack8.cuh"
#include "ll_mesh.h"

typedef struct {
  const char *src; /* our block: send buffer, or our block of recv in place */
  char *out;       /* our output: n blocks */
  size_t bytes;    /* bytes of a block */
  int copy_own;    /* out of place: also copy our block into our output */
  cb_ll_mesh m;
  cb_spin_info spin;
} agll_args;

__global__ void agll_kernel(agll_args a) {
  const cb_ll_mesh &m = a.m;
  const size_t npackets = (a.bytes + 7) / 8;
  const size_t ntiles = (npackets + CB_LL_TILE - 1) / CB_LL_TILE;
  char *own = a.out + (size_t)m.rank * a.bytes;
  /* Push: our block's packets of this warp's tiles to every peer. */
  for (size_t t = cb_ll_first_tile(); t < ntiles; t += cb_ll_tile_stride()) {
    const uint64_t epoch = cb_ll_epoch(m, t);
    const uint32_t flag = cb_ll_flag(epoch);
    const size_t i = cb_ll_packet(t);
    /* Lanes past the message write filler: every slot of a tile is
     * rewritten at every epoch of its half (ll_tiles.cuh, "Counters"). */
    uint2 v = i < npackets ? cb_load_pack8(a.src, i, a.bytes) : make_uint2(0, 0);
    for (int p = 1; p < m.nranks; p++) cb_ll16_write(cb_ll_slot(m, p, epoch, m.rank, i), v, flag);
    if (a.copy_own && i < npackets) cb_store_pack8(own, i, a.bytes, v);
  }
  /* Pull: every peer's packets of the same tiles into its block. */
  for (size_t t = cb_ll_first_tile(); t < ntiles; t += cb_ll_tile_stride()) {
    const uint64_t epoch = cb_ll_epoch(m, t);
    const uint32_t flag = cb_ll_flag(epoch);
    const size_t i = cb_ll_packet(t);
    if (i < npackets) {
      for (int p = 1; p < m.nranks; p++) {
        int src = (m.rank + p) % m.nranks;
        uint2 v = cb_ll16_read(cb_ll_slot(m, 0, epoch, src, i), flag, a.spin, src);
        cb_store_pack8(a.out + (size_t)src * a.bytes, i, a.bytes, v);
      }
    }
    cb_ll_tile_done(m, t, epoch);
  }
}

extern "C" void cb_ag_ll_setup(cb_kernel_ctx *ctx) {
  /* The limit is on the table size, the whole output: a block is 1/n of it. */
  uint64_t max = ctx->max_bytes < CB_AG_LL_MAX_BYTES ? ctx->max_bytes : CB_AG_LL_MAX_BYTES;
  cb_ll_setup(ctx, (size_t)(max / (uint64_t)ctx->nranks + 7) / 8, CB_LL_ALL_READ_ALL);
  const void *func = (const void *)agll_kernel;
  cb_ll_fit(ctx, &func, 1);
}

extern "C" void cb_ag_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_ll_state *st = (const cb_ll_state *)ctx->state;
  agll_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* see "Double buffering" in device/ll_tiles.cuh */
  size_t packets = (a.bytes + 7) / 8;
  a.src = (const char *)call->send;
  a.out = (char *)call->recv;
  a.copy_own = a.src != a.out + (size_t)ctx->rank * a.bytes;
  a.m = cb_ll_mesh_for(ctx, st, packets);
  a.spin = CB_SPIN_INFO(ctx);
  cb_ll_grid g = cb_ll_grid_for(st, packets);
  agll_kernel<<<g.blocks, g.threads, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}
