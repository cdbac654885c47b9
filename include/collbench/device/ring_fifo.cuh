/* FIFO pipes of the Simple-protocol (ring) kernels, device half; the view
 * is ring_fifo.h; our rings' host half and the memory layout are in
 * src/kernels/ring/ring_mesh.h.
 *
 * A block (one channel) moves data through a link slice by slice. A step
 * sends one slice, receives one, or both:
 *
 *   cb_ring_wait     thread 0 waits until the step can run: for a receive,
 *                    until `posted` says the sender has put the slice into
 *                    our FIFO (acquire); for a send, until `consumed` says
 *                    the receiver has taken out the slice that last used
 *                    the slot we are about to fill (acquire). Then
 *                    __syncthreads, so every thread's accesses come after
 *                    thread 0's acquires.
 *   (the block's threads move the data: read the receive slot with
 *    ld.global.cg, store into the send slot, see ring_slice.cuh)
 *   cb_ring_signal   __syncthreads, then thread 0 release-stores `posted`
 *                    (sent + 1) into the receiver's flag area and/or
 *                    `consumed` (received + 1) into the sender's.
 *
 * Ordering. The barrier before the signal orders the other threads' stores
 * into the send slot, and their loads from the receive slot, before thread
 * 0's release: bar.sync makes them happen before it at CTA scope, and a
 * release at system scope is cumulative, so the receiver that acquires
 * `posted` sees the whole slice, and the sender that acquires `consumed`
 * knows every read of the slot is performed before it overwrites it. The
 * receiver reads slots with ld.global.cg (from L2): never from an L1 line
 * left by the slot's previous use.
 *
 * Counters. `posted` and `consumed` only grow (64-bit, never reset, across
 * calls too): a waiter compares with >=, and a value later than the one it
 * waits for can only be seen after that one was stored (one writer, program
 * order, release). Each block keeps its sent/received counts on the device
 * (loaded at the start of a launch, stored at its end by thread 0), so a
 * graph replay with frozen arguments still advances them.
 *
 * Deadlock. A step that waits for a receive must never be needed by the
 * step its sender waits on: a ring's first phase only sends, and a kernel
 * whose steps both send and receive in a cycle of ranks (every rank sending
 * to r+d while receiving from r-d) makes each step's send a step of its
 * own, before the receive (see alltoall_ring.cu). */
#ifndef CB_DEVICE_RING_FIFO_CUH
#define CB_DEVICE_RING_FIFO_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/device/mutation.cuh"
#include "collbench/device/peer_pick.cuh"
#include "collbench/device/ring_fifo.h"
#include "collbench/device/signal.cuh"
#include "collbench/device/spin.cuh"

/* Link d of channel c, as this rank uses it: it sends into the FIFO of rank
 * `to` = rank + d and receives from rank `from` = rank - d. Only indices:
 * the pointers are formed from the mesh (kernel parameters) where they are
 * used, so a kernel holds no more registers than it did with the pointers
 * in its own parameters. */
typedef struct {
  size_t pipe; /* (d - 1) * channels + c: the link's place in every area */
  int d, to, from;
} cb_ring_link;

/* Where a block is in a link: slices sent and received so far. */
typedef struct {
  uint64_t sent, received;
} cb_ring_pos;

/* Rank (rank + p) % nranks's area (p = 0: ours), picked with selects
 * (peer_pick.cuh). */
template <typename P>
__device__ __forceinline__ P cb_ring_pick(P const (&arr)[CB_MAX_PEERS], int p) {
  return cb_peer_pick(arr, p);
}

__device__ __forceinline__ cb_ring_link cb_ring_link_of(const cb_ring_mesh &m, int d, int c) {
  cb_ring_link l;
  l.pipe = (size_t)(d - 1) * m.channels + c;
  l.d = d;
  l.to = (m.rank + d) % m.nranks;
  l.from = (m.rank + m.nranks - d) % m.nranks;
  return l;
}

/* The link's flag words in a rank's flag area: posted (written by the
 * sender into the receiver's area) and consumed (by the receiver into the
 * sender's). */
__device__ __forceinline__ size_t cb_ring_posted_word(const cb_ring_link &l) {
  return l.pipe * 2 * CB_RING_FLAG_STRIDE;
}
__device__ __forceinline__ size_t cb_ring_consumed_word(const cb_ring_link &l) {
  return cb_ring_posted_word(l) + CB_RING_FLAG_STRIDE;
}

/* The block's position in link l, from the device (every thread). */
__device__ __forceinline__ cb_ring_pos cb_ring_load_pos(const cb_ring_mesh &m,
                                                        const cb_ring_link &l) {
  cb_ring_pos pos;
  pos.sent = m.counters[l.pipe * 2];
  pos.received = m.counters[l.pipe * 2 + 1];
  return pos;
}

/* Thread 0, at the end of the launch, after the block's last signal. */
__device__ __forceinline__ void cb_ring_store_pos(const cb_ring_mesh &m, const cb_ring_link &l,
                                                  const cb_ring_pos &pos) {
  if (threadIdx.x == 0) {
    m.counters[l.pipe * 2] = pos.sent;
    m.counters[l.pipe * 2 + 1] = pos.received;
  }
}

/* Every thread: thread 0 waits for what the step needs, then the barrier.
 * The skip_fifo_credit mutant (device/mutation.cuh) sends without waiting
 * for the slot to be free, skip_fifo_wait receives without waiting for the
 * slice: the checks must then find wrong values. */
__device__ __forceinline__ void cb_ring_wait(const cb_ring_mesh &m, const cb_ring_link &l,
                                             const cb_ring_pos &pos, bool recv, bool send,
                                             const cb_spin_info &spin) {
  if (threadIdx.x == 0) {
    if (recv && !CB_MUTANT_SKIPS(CB_WAIT_FIFO))
      cb_wait_geq(m.flags[0] + cb_ring_posted_word(l), pos.received + 1, spin, l.from);
    if (send && pos.sent + 1 > (uint64_t)m.slots && !CB_MUTANT_SKIPS(CB_WAIT_FIFO_CREDIT))
      cb_wait_geq(m.flags[0] + cb_ring_consumed_word(l), pos.sent + 1 - m.slots, spin, l.to);
  }
  __syncthreads();
  /* consumed_before_barrier: rank 0's warps other than warp 0 take the
   * received slice late; skip_fifo_credit: all of them, so that the sender
   * before rank 0 gets a FIFO ahead (device/mutation.cuh, "Lag"). */
  if (CB_MUTANT_BREAKS(CB_ORDER_FIFO_CONSUMED))
    cb_mutant_lag(recv && m.rank == 0 && threadIdx.x >= 32, CB_MUTANT_RING_LAG_NS);
  if (CB_MUTANT_SKIPS(CB_WAIT_FIFO_CREDIT))
    cb_mutant_lag(recv && m.rank == 0, CB_MUTANT_RING_LAG_NS);
}

/* Where the next received slice is, and where the next sent slice goes:
 * `at` bytes into its slot, the call's cb_ring_slot_offset (ring_span.h),
 * which sender and receiver agree on. */
__device__ __forceinline__ const char *cb_ring_in_slot(const cb_ring_mesh &m, const cb_ring_link &l,
                                                       const cb_ring_pos &pos, size_t at) {
  return m.fifo[0] + (l.pipe * m.slots + pos.received % m.slots) * m.slot_bytes + at;
}
__device__ __forceinline__ char *cb_ring_out_slot(const cb_ring_mesh &m, const cb_ring_link &l,
                                                  const cb_ring_pos &pos, size_t at) {
  return cb_ring_pick(m.fifo, l.d) + (l.pipe * m.slots + pos.sent % m.slots) * m.slot_bytes + at;
}

/* Thread 0: `consumed` (received + 1) into the sender's flag area. */
__device__ __forceinline__ void cb_ring_free_slot(const cb_ring_mesh &m, const cb_ring_link &l,
                                                  const cb_ring_pos &pos) {
  cb_store_release_sys(cb_ring_pick(m.flags, m.nranks - l.d) + cb_ring_consumed_word(l),
                       pos.received + 1);
}

/* Every thread, after the step's data moved: the barrier, then thread 0
 * publishes the sent slice and frees the received slot (see "Ordering").
 * The consumed_before_barrier mutant (device/mutation.cuh) frees the slot
 * before the barrier, while the block's other threads may still read it:
 * thread 0's release then orders only its own reads of the slot. */
__device__ __forceinline__ void cb_ring_signal(const cb_ring_mesh &m, const cb_ring_link &l,
                                               cb_ring_pos &pos, bool recv, bool send) {
  const bool early = CB_MUTANT_BREAKS(CB_ORDER_FIFO_CONSUMED);
  if (early && recv && threadIdx.x == 0) cb_ring_free_slot(m, l, pos);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (send)
      cb_store_release_sys(cb_ring_pick(m.flags, l.d) + cb_ring_posted_word(l), pos.sent + 1);
    if (recv && !early) cb_ring_free_slot(m, l, pos);
  }
  pos.sent += send;
  pos.received += recv;
}

#endif
