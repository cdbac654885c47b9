/* Exchange by LL16 packets, the kernel of all_gather and alltoall -k ll
 * (and of sendrecv's at 2 ranks): every rank sends one run of `bytes` bytes
 * to every peer and receives one run from each. The run for rank q is
 * src + q * src_stride (all-gather: stride 0, the same run for everyone:
 * ONE_RUN, loaded once per packet; alltoall: stride `bytes`, block q of the
 * input); the run from rank q goes to out + q * out_stride (all-gather and
 * alltoall: stride `bytes`; sendrecv at 2 ranks: 0, its one peer's run is
 * its output).
 *
 * Every rank writes its runs, as LL16 packets (8 data bytes and two copies
 * of the epoch in one 16-byte store, ll_packet.cuh), into its slot of each
 * peer's scratch, and (copy_own) its own run into its own output; then it
 * polls its scratch until each peer's packets carry the epoch and copies
 * them into that peer's place in the output. One kernel, no handshake: the
 * flag travels with the data, and peers never touch our buffers, only our
 * scratch. Tiles, per-tile epochs and the double buffering: ll_tiles.cuh
 * (every run has the same length, so every call covering tile t reads tile
 * t from every peer).
 *
 * In place (out overlaps src): a lane reads packet i of every run it sends
 * (the push loop, over all of its warp's tiles) before it writes packet i
 * of any run it receives (the pull loop); no other lane of any warp touches
 * packet i; peers only write our scratch. So no byte is read after being
 * overwritten, whichever runs overlap.
 *
 * A skip_ll_poll mutant (device/mutation.cuh) takes whatever a packet
 * holds without checking its flag (in cb_ll16_read): the checks must find
 * wrong values. */
#ifndef CB_DEVICE_LL_EXCHANGE_CUH
#define CB_DEVICE_LL_EXCHANGE_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/cuda_check.h"
#include "ll_mesh.h"
#include "collbench/device/ll_packet.cuh"
#include "ll_tiles.cuh"
#include "collbench/device/pack8.cuh"

typedef struct {
  const char *src;   /* the run for rank q: src + q * src_stride */
  size_t src_stride; /* ignored with ONE_RUN */
  char *out;         /* the run from rank q: out + q * out_stride */
  size_t out_stride; /* 0 only with one peer (sendrecv at 2 ranks) */
  size_t bytes;      /* bytes of a run */
  int copy_own;      /* also copy our own run into our place in out */
  cb_ll_mesh m;
  cb_spin_info spin;
} cb_ll_exchange_args;

/* Packet i of rank src's run for us, from our scratch. */
__device__ __forceinline__ uint2 cb_ll_exchange_take(const cb_ll_exchange_args &a, uint64_t epoch,
                                                     uint32_t flag, int src, size_t i) {
  return cb_ll16_read(cb_ll_slot(a.m, 0, epoch, src, i), flag, a.spin, src);
}

template <bool ONE_RUN> __global__ void cb_ll_exchange_kernel(cb_ll_exchange_args a) {
  const cb_ll_mesh &m = a.m;
  const size_t npackets = (a.bytes + 7) / 8;
  /* Push: this warp's tiles of the run for every peer, and of our own. */
  cb_ll_tiles<CB_LL_KEEP_OPEN>(m, cb_ll_tiles_of_packets(npackets), [&](const cb_ll_at &at) {
    const size_t i = at.i;
    /* Lanes past the message write filler: every slot of a tile is
     * rewritten at every epoch of its half (ll_tiles.cuh, "Counters"). */
    const bool in_run = i < npackets;
    uint2 one = ONE_RUN && in_run ? cb_load_pack8(a.src, i, a.bytes) : make_uint2(0, 0);
    for (int p = 1; p < m.nranks; p++) {
      const int peer = (m.rank + p) % m.nranks;
      uint2 v =
          ONE_RUN || !in_run ? one : cb_load_pack8(a.src + (size_t)peer * a.src_stride, i, a.bytes);
      cb_ll16_write(cb_ll_slot(m, p, at.epoch, m.rank, i), v, at.flag);
    }
    if (a.copy_own && in_run)
      cb_store_pack8(a.out + (size_t)m.rank * a.out_stride, i, a.bytes,
                     ONE_RUN ? one
                             : cb_load_pack8(a.src + (size_t)m.rank * a.src_stride, i, a.bytes));
  });
  /* Pull: every peer's packets of the same tiles into its place. */
  cb_ll_pull_tiles(m, npackets, [&](const cb_ll_at &at) {
    for (int p = 1; p < m.nranks; p++) {
      const int src = (m.rank + p) % m.nranks;
      cb_store_pack8(a.out + (size_t)src * a.out_stride, at.i, a.bytes,
                     cb_ll_exchange_take(a, at.epoch, at.flag, src, at.i));
    }
  });
}

/* Setup (collective) of an exchange whose runs are at most max_run bytes. */
template <bool ONE_RUN>
static void cb_ll_exchange_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply, uint64_t max_run) {
  cb_ll_setup(ctx, (size_t)(max_run + 7) / 8, CB_LL_ALL_READ_ALL);
  const void *func = (const void *)cb_ll_exchange_kernel<ONE_RUN>;
  cb_ll_fit(ctx, reply, &func, 1);
}

/* One call: runs of `bytes` bytes (none launched for 0 bytes, on every rank
 * alike: see "Double buffering" in ll_tiles.cuh). */
template <bool ONE_RUN>
static void cb_ll_exchange_launch(cb_kernel_ctx *ctx, const char *src, size_t src_stride, char *out,
                                  size_t out_stride, size_t bytes, int copy_own,
                                  cudaStream_t stream) {
  if (bytes == 0) return;
  const cb_ll_state *st = (const cb_ll_state *)ctx->state;
  const size_t packets = (bytes + 7) / 8;
  cb_ll_exchange_args a;
  a.src = src;
  a.src_stride = src_stride;
  a.out = out;
  a.out_stride = out_stride;
  a.bytes = bytes;
  a.copy_own = copy_own;
  a.m = cb_ll_mesh_for(ctx, st, packets);
  a.spin = CB_SPIN_INFO(ctx);
  cb_ll_grid g = cb_ll_grid_for(st, packets);
  cb_ll_exchange_kernel<ONE_RUN><<<g.blocks, g.threads, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}

#endif
