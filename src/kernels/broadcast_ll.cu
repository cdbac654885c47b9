/* -k ll: broadcast by LL16 packets, for small messages.
 *
 * The root writes its input, as LL16 packets (8 data bytes and two copies
 * of the epoch in one 16-byte store, device/ll_packet.cuh), into its slot
 * of every peer's scratch, and out of place into its own output; every
 * other rank polls its scratch until the root's packets carry the epoch
 * and copies them into its output. One kernel, no handshake: the flag
 * travels with the data. Tiles and per-tile epochs: device/ll_tiles.cuh.
 * One-shot: the root's links carry n - 1 copies, which for the small
 * messages this kernel is for costs less than a chain's n - 1 hops.
 *
 * The root reads nothing back, so nothing but credits keeps it from
 * lapping a peer under back-to-back launches: the kernel is
 * CB_LL_CREDITED (ll_mesh.h, device/ll_credit.cuh). A peer's warp returns
 * credit to the call's root for all its tiles before it polls any; the
 * root's warp waits, one lane per peer, for every peer's credit of a tile
 * before pushing it. Credits go to the root of the call, so the root may
 * change from call to call.
 *
 * In place (send == recv): the root only reads its buffer; the others
 * only write theirs, and never read their input. */
#include <stdint.h>

#include "broadcast_kernels.h"
#include "cuda_check.h"
#include "device/ll_credit.cuh"
#include "device/ll_packet.cuh"
#include "device/ll_tiles.cuh"
#include "device/pack8.cuh"
#include "ll_mesh.h"

typedef struct {
  const char *src; /* the root's input (read on the root only) */
  char *out;       /* our output */
  size_t bytes;
  int root;
  int copy_own; /* the root, out of place: also copy its input into its output */
  cb_ll_push_mesh v;
  cb_spin_info spin;
} bcll_args;

/* The root's warp: its packets of each of its tiles to every peer. */
__device__ __forceinline__ void bcll_push(const bcll_args &a, size_t npackets, size_t ntiles) {
  const cb_ll_push_mesh &v = a.v;
  const cb_ll_mesh &m = v.ll;
  for (size_t t = cb_ll_first_tile(); t < ntiles; t += cb_ll_tile_stride()) {
    const uint64_t epoch = cb_ll_epoch(m, t);
    const uint32_t flag = cb_ll_flag(epoch);
    const size_t i = cb_ll_packet(t);
    const uint2 x = i < npackets ? cb_load_pack8(a.src, i, a.bytes) : make_uint2(0, 0);
    const cb_ll_clearance c = cb_ll_await_credit(v, t, epoch, 1, m.nranks - 1, a.spin);
    if (i < npackets) {
      for (int p = 1; p < m.nranks; p++) cb_ll16_write(cb_ll_push_slot(v, c, p, i), x, flag);
      if (a.copy_own) cb_store_pack8(a.out, i, a.bytes, x);
    }
    cb_ll_tile_done(m, t, epoch);
  }
}

/* A peer's warp: credit for all its tiles first, then the root's packets. */
__device__ __forceinline__ void bcll_pull(const bcll_args &a, size_t ntiles) {
  const cb_ll_push_mesh &v = a.v;
  const cb_ll_mesh &m = v.ll;
  const int root_off = (a.root - m.rank + m.nranks) % m.nranks;
  for (size_t t = cb_ll_first_tile(); t < ntiles; t += cb_ll_tile_stride())
    cb_ll_return_credit(v, t, cb_ll_epoch(m, t), root_off);
  cb_ll_receive_from(m, a.root, a.out, a.bytes, a.spin);
}

__global__ void bcll_kernel(bcll_args a) {
  const size_t npackets = (a.bytes + 7) / 8;
  const size_t ntiles = (npackets + CB_LL_TILE - 1) / CB_LL_TILE;
  if (a.v.ll.rank == a.root)
    bcll_push(a, npackets, ntiles);
  else
    bcll_pull(a, ntiles);
}

extern "C" void cb_bc_ll_setup(cb_kernel_ctx *ctx) {
  uint64_t max = ctx->max_bytes < CB_BC_LL_MAX_BYTES ? ctx->max_bytes : CB_BC_LL_MAX_BYTES;
  cb_ll_setup(ctx, (size_t)(max + 7) / 8, CB_LL_CREDITED);
  const void *func = (const void *)bcll_kernel;
  cb_ll_fit(ctx, &func, 1);
}

extern "C" void cb_bc_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_ll_state *st = (const cb_ll_state *)ctx->state;
  bcll_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* see "Double buffering" in device/ll_tiles.cuh */
  size_t packets = (a.bytes + 7) / 8;
  a.src = (const char *)call->send;
  a.out = (char *)call->recv;
  a.root = call->root;
  a.copy_own = ctx->rank == call->root && call->send != call->recv;
  a.v = cb_ll_push_mesh_for(ctx, st, packets);
  a.spin = CB_SPIN_INFO(ctx);
  cb_ll_grid g = cb_ll_grid_for(st, packets);
  bcll_kernel<<<g.blocks, g.threads, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}
