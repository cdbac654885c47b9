/* Tiles and epochs of the LL packet kernels (-k ll); the host half is
 * src/kernels/ll/ll_mesh.h.
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
 *
 * Counters. They are 64-bit, so they only grow in any run (2^64 calls).
 * A packet carries 32 flag bits, cb_ll_flag(e) = 1 + e mod (2^32 - 1)
 * (ll_flag.h): never 0, so zeroed scratch never matches. A slot of tile t
 * in half h is written by one source only, with packets of tile t whose
 * epoch has parity h (cb_ll_slot), and a source's epochs of tile t are the
 * reader's (the counters grow alike). When a reader polls the slot for
 * epoch e, then, it holds zero or a packet of an epoch e' of parity h with
 * e' <= e: no packet of a later epoch of that half (e + 2 or more) lands
 * before the poll returns (double buffering below, or the credits of
 * ll_credit.cuh). The flags of e' and e are equal only when e - e' is a
 * multiple of 2^32 - 1, and (both of one parity, 2^32 - 1 odd) so of
 * 2 (2^32 - 1) = 8,589,934,590. A stale packet (e' < e) matches, then,
 * only if its slot went unwritten for about 8.6e9 calls covering tile t
 * and is read after them: at 2 us a call (an 8-byte LL call in graph
 * mode) that is 17,180 s, 4.8 hours of back-to-back calls of one kernel
 * in one process, every one covering tile t and none writing that slot; a
 * stress makes 1e6 calls of a kernel. No slot is ever reset, and none
 * needs to be rewritten at every epoch of its half: sendrecv writes no
 * filler packets past the message, and a rooted kernel (ll_rooted.cuh)
 * writes a slot only in the calls whose root is the slot's source (one to
 * many) or the rank it is in (many to one). The all-read-all kernels do
 * fill whole tiles (lanes past the message write filler packets), so
 * there the slot holds e - 2 or zero until the packet of e lands.
 * (Scratch is sized in whole tiles.)
 *
 * Double buffering. Scratch has two halves, chosen by epoch parity. Our
 * warp for tile t at epoch e+2 writing half e%2 of a peer must not
 * overwrite packets the peer is still reading for tile t at epoch e: it
 * cannot, because we finished tile t at epoch e+1 only after reading the
 * peer's packets of tile t at e+1, which the peer wrote in a launch that
 * started after its launch for epoch e had completed (stream order). This
 * needs every call that covers tile t to read at least one packet of tile
 * t from every peer (lane 0's packet always exists), and no launch at all
 * for an empty message: the CB_LL_ALL_READ_ALL pattern of ll_mesh.h. A
 * kernel in which some rank writes tiles and reads none back (a broadcast
 * root, a sendrecv sender) has no such proof; it uses the credits of
 * device/ll_credit.cuh instead.
 *
 * No fence anywhere: the flag travels with the data (ll_packet.cuh), the
 * counters are read and written only by the warp owning the tile within a
 * launch, and launches on a stream are ordered. */
#ifndef CB_DEVICE_LL_TILES_CUH
#define CB_DEVICE_LL_TILES_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/device/mutation.cuh"
#include "ll_flag.h"
#include "ll_mesh.h"
#include "collbench/device/peer_pick.cuh"

__device__ __forceinline__ size_t cb_ll_first_tile() {
  return ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
}

__device__ __forceinline__ size_t cb_ll_tile_stride() {
  return (size_t)gridDim.x * blockDim.x / 32;
}

/* Tiles of a run of `packets` packets. */
__device__ __forceinline__ size_t cb_ll_tiles_of_packets(size_t packets) {
  return (packets + CB_LL_TILE - 1) / CB_LL_TILE;
}

/* Tiles of a run of `bytes` bytes. */
__device__ __forceinline__ size_t cb_ll_tiles_of(size_t bytes) {
  return cb_ll_tiles_of_packets((bytes + 7) / 8);
}

/* Packet index of this lane in tile t. */
__device__ __forceinline__ size_t cb_ll_packet(size_t t) {
  return t * CB_LL_TILE + (threadIdx.x & 31);
}

/* The epoch of this call for tile t. Every lane of the warp calls it,
 * together (the early_tile_done mutant's __syncwarp needs them all). */
__device__ __forceinline__ uint64_t cb_ll_epoch(const cb_ll_mesh &m, size_t t) {
  if (!CB_MUTANT_BREAKS(CB_ORDER_LL_TILE_DONE)) return m.epochs[t] + 1;
  /* early_tile_done (device/mutation.cuh): lane 0's store of the epoch
   * lands before lanes 1-31 read the counter. */
  volatile uint64_t *counter = m.epochs + t;
  const bool lane0 = (threadIdx.x & 31) == 0;
  uint64_t epoch = lane0 ? *counter + 1 : 0;
  if (lane0) *counter = epoch;
  __syncwarp();
  return lane0 ? epoch : *counter + 1;
}

/* The 32-bit flag of a packet of epoch: ll_flag.h. */

/* Called by every lane of the warp after its last use of tile t. The
 * early_tile_done mutant (device/mutation.cuh) stores before the
 * __syncwarp, racing with any lane that has still to read the counter. */
__device__ __forceinline__ void cb_ll_tile_done(const cb_ll_mesh &m, size_t t, uint64_t epoch) {
  const bool early = CB_MUTANT_BREAKS(CB_ORDER_LL_TILE_DONE);
  if (early && (threadIdx.x & 31) == 0) m.epochs[t] = epoch;
  __syncwarp();
  if (!early && (threadIdx.x & 31) == 0) m.epochs[t] = epoch;
}

/* One of this warp's tiles in a loop of cb_ll_tiles: its index t, the
 * call's epoch of it (cb_ll_epoch), the flag of that epoch and this lane's
 * packet in it. */
typedef struct {
  size_t t;
  uint64_t epoch;
  uint32_t flag;
  size_t i;
} cb_ll_at;

/* Whether a loop of cb_ll_tiles closes each tile (cb_ll_tile_done) after
 * its body: in a call's last loop over its tiles only (an earlier loop
 * leaves them open for the later ones, which read the same epoch). */
enum { CB_LL_KEEP_OPEN, CB_LL_CLOSE };

/* Every lane of the warp, together: for each of this warp's tiles among
 * the first ntiles (w, w + W, ...: see above), in increasing order, reads
 * the tile's epoch (cb_ll_epoch, every lane), runs body(at), then (CLOSE)
 * closes the tile. The body is the kernel's: its loads, packet writes and
 * polls of that tile, in the order it writes them. */
template <int CLOSE, typename BODY>
__device__ __forceinline__ void cb_ll_tiles(const cb_ll_mesh &m, size_t ntiles, const BODY &body) {
  for (size_t t = cb_ll_first_tile(); t < ntiles; t += cb_ll_tile_stride()) {
    cb_ll_at at;
    at.t = t;
    at.epoch = cb_ll_epoch(m, t);
    at.flag = cb_ll_flag(at.epoch);
    at.i = cb_ll_packet(t);
    body(at);
    if (CLOSE == CB_LL_CLOSE) cb_ll_tile_done(m, t, at.epoch);
  }
}

/* A call's last loop over its tiles of a run of `npackets` packets (the
 * pull): take(at) for each lane whose packet is in the run, then every lane
 * closes the tile. */
template <typename TAKE>
__device__ __forceinline__ void cb_ll_pull_tiles(const cb_ll_mesh &m, size_t npackets,
                                                 const TAKE &take) {
  cb_ll_tiles<CB_LL_CLOSE>(m, cb_ll_tiles_of_packets(npackets), [&](const cb_ll_at &at) {
    if (at.i < npackets) take(at);
  });
}

/* Rank (rank + p) % nranks's scratch (p = 0: ours). Selects, not an
 * index: an index known only at run time would get the kernel's whole
 * parameter block copied to local memory at every launch, and unrolling
 * the peer loops instead (constant indices) made the kernel larger and
 * measurably slower at 8-16 KiB (docs/kernels.md, "LL epochs per tile").
 * The selects: peer_pick.cuh. */
__device__ __forceinline__ uint4 *cb_ll_scratch_of(const cb_ll_mesh &m, int p) {
  return cb_peer_pick(m.scratch, p);
}

/* Packet i from rank src, in the scratch of rank (rank + p) % nranks
 * (p = 0: ours), half of epoch's parity (half 0 for every epoch in the
 * single_half mutant, device/mutation.cuh). */
__device__ __forceinline__ uint4 *cb_ll_slot(const cb_ll_mesh &m, int p, uint64_t epoch, int src,
                                             size_t i) {
  /* p = 0 is a read of our own scratch: rank 0 lags there in the
   * single_half mutant (device/mutation.cuh, "Lag"). */
  if (CB_MUTANT_BREAKS(CB_ORDER_LL_HALVES))
    cb_mutant_lag(p == 0 && m.rank == 0, CB_MUTANT_LL_LAG_NS);
  const size_t half = CB_MUTANT_BREAKS(CB_ORDER_LL_HALVES) ? 0 : (size_t)(epoch & 1);
  return cb_ll_scratch_of(m, p) + (half * m.nranks + src) * m.slot_packets + i;
}

#endif
