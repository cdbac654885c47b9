/* Tiles and epochs of the LL packet kernels (all_reduce, all_gather,
 * reduce_scatter -k ll); the host half is common/mesh/ll_mesh.h.
 *
 * A message is cut into tiles of CB_LL_TILE (32) packets; one warp handles
 * a tile, one packet per lane, and warp w of the grid takes tiles w, w + W,
 * w + 2W, ... (W warps in the grid). Every peer writes its packets for tile
 * t into tile t of its slot in our scratch.
 *
 * Epochs. Each tile has its own counter on the device (so a CUDA graph
 * replay, whose kernel arguments are frozen, still advances it). A warp
 * reads counter t at the start of its work on tile t, tags its packets with
 * epoch = counter + 1, waits for packets carrying that epoch, and when its
 * lanes are done (__syncwarp: every lane has read the counter and finished
 * its reads) lane 0 stores the epoch back. Every rank runs the same calls
 * in the same order and every call covers tiles 0..T-1 of its size, so
 * counter t grows by one per call covering t on every rank alike, whatever
 * grid each rank launched: the grid shape is free per size and per rank.
 * A stale packet in a slot carries an older epoch than any reader waits
 * for, so no slot is ever reset.
 *
 * Counters are 64-bit, so they only grow in any run (2^64 calls). A
 * packet carries 32 flag bits, cb_ll_flag(e) = 1 + e mod (2^32 - 1): never
 * 0, so zeroed scratch never matches, and never equal for e and e - 2.
 * Writers fill whole tiles (lanes past the message write filler packets),
 * so every slot of tile t in half h is rewritten at every epoch of parity
 * h: when a reader waits for epoch e, the slot holds epoch e - 2 (or zero)
 * until the writer's packet of epoch e lands, and no older packet can
 * match however long the run. (Scratch is sized in whole tiles.)
 *
 * Double buffering. Scratch has two halves, chosen by epoch parity. Our
 * warp for tile t at epoch e+2 writing half e%2 of a peer must not
 * overwrite packets the peer is still reading for tile t at epoch e: it
 * cannot, because we finished tile t at epoch e+1 only after reading the
 * peer's packets of tile t at e+1, which the peer wrote in a launch that
 * started after its launch for epoch e had completed (stream order). This
 * needs every call that covers tile t to read at least one packet of tile
 * t from every peer (lane 0's packet always exists), and no launch at all
 * for an empty message.
 *
 * No fence anywhere: the flag travels with the data (ll_packet.cuh), the
 * counters are read and written only by the warp owning the tile within a
 * launch, and launches on a stream are ordered. */
#ifndef CB_DEVICE_LL_TILES_CUH
#define CB_DEVICE_LL_TILES_CUH

#include <stddef.h>
#include <stdint.h>

#include "ll_flag.h"
#include "ll_mesh.h"

__device__ __forceinline__ size_t cb_ll_first_tile() {
  return ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
}

__device__ __forceinline__ size_t cb_ll_tile_stride() {
  return (size_t)gridDim.x * blockDim.x / 32;
}

/* Packet index of this lane in tile t. */
__device__ __forceinline__ size_t cb_ll_packet(size_t t) {
  return t * CB_LL_TILE + (threadIdx.x & 31);
}

/* The epoch of this call for tile t. */
__device__ __forceinline__ uint64_t cb_ll_epoch(const cb_ll_mesh &m, size_t t) {
  return m.epochs[t] + 1;
}

/* The 32-bit flag of a packet of epoch: ll_flag.h. */

/* Called by every lane of the warp after its last use of tile t. */
__device__ __forceinline__ void cb_ll_tile_done(const cb_ll_mesh &m, size_t t, uint64_t epoch) {
  __syncwarp();
  if ((threadIdx.x & 31) == 0) m.epochs[t] = epoch;
}

/* Rank (rank + p) % nranks's scratch (p = 0: ours). Selects, not an
 * index: an index known only at run time would get the kernel's whole
 * parameter block copied to local memory at every launch, and unrolling
 * the peer loops instead (constant indices) made the kernel larger and
 * measurably slower at 8-16 KiB (results/h200x2/2026-11-30-s3). */
__device__ __forceinline__ uint4 *cb_ll_scratch_of(const cb_ll_mesh &m, int p) {
  uint4 *s = m.scratch[0];
#pragma unroll
  for (int k = 1; k < CB_MAX_PEERS; k++) s = p == k ? m.scratch[k] : s;
  return s;
}

/* Packet i from rank src, in the scratch of rank (rank + p) % nranks
 * (p = 0: ours), half of epoch's parity. */
__device__ __forceinline__ uint4 *cb_ll_slot(const cb_ll_mesh &m, int p, uint64_t epoch, int src,
                                             size_t i) {
  return cb_ll_scratch_of(m, p) + ((size_t)(epoch & 1) * m.nranks + src) * m.slot_packets + i;
}

#endif
