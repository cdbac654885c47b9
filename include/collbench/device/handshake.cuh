/* Block-level handshakes between the same block of every rank, for kernels
 * that load from or store to their peers' buffers directly.
 *
 * Each rank has a flag area (peer memory) of one 64-bit word per (block,
 * source rank): word CB_HS_WORD(b, s) of rank q's area is written only by
 * block b of rank s, with values that only grow, so a waiter compares with
 * >= and a value never has to be reset. A kernel at epoch e (a per-block
 * counter kept on the device, so graph replays advance it) uses two values:
 *   CB_HS_START(e) = 2e-1  "my kernel of epoch e is running": everything my
 *                          stream did before it (writing my input, reading
 *                          or validating my output) is complete;
 *   CB_HS_END(e)   = 2e    "my block's accesses to your buffers in epoch e
 *                          are done" (stores landed, loads performed).
 * One word carries both because a block sends START(e), END(e),
 * START(e+1), ... in that order; reaching END(e) on every rank needs every
 * rank's END(e), so no rank is ever more than one step ahead, and a waiter
 * that sees a later value than the one it wants can only see it after the
 * value it wants was sent (same writer, program order, release), which is
 * what >= accepts. */
#ifndef CB_DEVICE_HANDSHAKE_CUH
#define CB_DEVICE_HANDSHAKE_CUH

#include <stdint.h>

#include "collbench/device/mutation.cuh"
#include "collbench/device/spin.cuh"
#include "collbench/peer.h"
#include "collbench/device/peer_pick.cuh"
#include "collbench/device/signal.cuh"

#define CB_HS_WORD(block, src) ((size_t)(block)*CB_MAX_PEERS + (size_t)(src))
#define CB_HS_START(e)         (2 * (uint64_t)(e)-1)
#define CB_HS_END(e)           (2 * (uint64_t)(e))

/* Bytes of a flag area for max_blocks blocks. */
#define CB_HS_AREA_BYTES(max_blocks) ((size_t)(max_blocks)*CB_MAX_PEERS * sizeof(uint64_t))

/* Every rank's flag area, as this rank addresses it. */
typedef struct {
  uint64_t *area[CB_MAX_PEERS];
} cb_hs_areas;

/* Rank r's flag area (r < CB_MAX_PEERS), by selects: an index known only
 * at run time would copy the kernel's parameter block to local memory
 * (see cb_ll_scratch_of, peer_pick.cuh). */
__device__ __forceinline__ uint64_t *cb_hs_area_of(const cb_hs_areas &hs, int r) {
  return cb_peer_pick(hs.area, r);
}

/* One thread's part of a handshake with one peer: release-store value into
 * the peer's word for (block, rank), then wait (acquire, bounded: a lost
 * peer ends in a timeout naming it and the epoch) until our word for
 * (block, peer) reaches value. */
__device__ __forceinline__ void cb_hs_serve(const cb_hs_areas &hs, int rank, int peer, int block,
                                            uint64_t epoch, uint64_t value,
                                            const cb_spin_info &info) {
  /* START values are odd, END values even (a mutant may skip one kind). */
  const bool wait = !CB_MUTANT_SKIPS(value & 1 ? CB_WAIT_START : CB_WAIT_END);
  cb_store_release_sys(cb_hs_area_of(hs, peer) + CB_HS_WORD(block, rank), value);
  const uint64_t *mine = cb_hs_area_of(hs, rank) + CB_HS_WORD(block, peer);
  cb_spin spin;
  cb_spin_init(&spin);
  while (wait && cb_load_acquire_sys(mine) < value)
    cb_spin_tick(&spin, info, peer, (uint32_t)epoch);
}

/* skip_end_wait: rank 0 starts its part of a call late (device/mutation.cuh,
 * "Lag"), so that its peers, which no longer wait at the end, end first. */
__device__ __forceinline__ void cb_hs_mutant_lag(int rank, uint64_t value) {
  if (CB_MUTANT_SKIPS(CB_WAIT_END)) cb_mutant_lag(rank == 0 && (value & 1), CB_MUTANT_HS_LAG_NS);
}

/* Called by every thread of the block, with value CB_HS_START(epoch) or
 * CB_HS_END(epoch). Threads 0..n-2 serve one peer each (cb_hs_serve).
 *
 * The first __syncthreads orders every access the block's threads made
 * before the call (stores into a peer's buffer, loads from it) before the
 * release store of the serving thread: bar.sync makes them happen before it
 * at CTA scope, and st.release.sys is cumulative, so a peer that acquires
 * the value sees the stores and knows the loads are done. The second
 * __syncthreads orders every peer's acquired value before anything the
 * block's threads do after the call (the acquire of the serving thread
 * happens before the barrier, the barrier before the other threads' next
 * accesses). */
__device__ __forceinline__ void cb_block_handshake(const cb_hs_areas &hs, int rank, int nranks,
                                                   int block, uint64_t epoch, uint64_t value,
                                                   const cb_spin_info &info) {
  __syncthreads();
  if ((int)threadIdx.x < nranks - 1)
    cb_hs_serve(hs, rank, (rank + 1 + (int)threadIdx.x) % nranks, block, epoch, value, info);
  __syncthreads();
  cb_hs_mutant_lag(rank, value);
}

/* Ring offsets of peers (bit p: rank (rank + p) % nranks, 0 < p < nranks)
 * for cb_block_handshake_with. */
#define CB_HS_OFFSET(p) (1u << (p))

/* cb_block_handshake with some of the peers only: those at the ring
 * offsets set in `offsets` (thread k serves the k-th). Both ranks of a
 * pair name each other in the same call (a sendrecv rank: its next and
 * previous ranks; a broadcast: the root and each other rank), so each
 * pair still exchanges START(e), END(e), START(e + 1), ... in order, and
 * the argument at the top of the file holds pair by pair. The barriers
 * order as in cb_block_handshake. */
__device__ __forceinline__ void cb_block_handshake_with(const cb_hs_areas &hs, int rank, int nranks,
                                                        int block, uint64_t epoch, uint64_t value,
                                                        unsigned offsets,
                                                        const cb_spin_info &info) {
  __syncthreads();
  int k = (int)threadIdx.x, p = 0;
  for (; p < nranks; p++) /* p: the offset of our thread's peer, the k-th one set */
    if (((offsets >> p) & 1u) && k-- == 0) break;
  if (p > 0 && p < nranks) cb_hs_serve(hs, rank, (rank + p) % nranks, block, epoch, value, info);
  __syncthreads();
  cb_hs_mutant_lag(rank, value);
}

#endif
