/* Credits for the LL kernels in which some rank writes packets and reads
 * nothing back from their receiver (CB_LL_CREDITED in ll_mesh.h: a
 * broadcast or scatter root, a sendrecv sender, a gather or reduce sender;
 * device/ll_rooted.cuh for the rooted ones). Tiles, per-tile epochs, flags and
 * the two halves of the scratch are those of ll_tiles.cuh; what this file
 * adds is the proof that a sender never overwrites packets its receiver
 * has still to read, which ll_tiles.cuh gets from reading every peer.
 *
 * The hazard. Packets of epoch e go to half e % 2 of the receiver's
 * scratch, where the receiver may still be polling for those of epoch
 * e - 2. A rank that only writes waits for nothing of its receiver: under
 * back-to-back launches (a graph replay) it can run calls e - 1 and e
 * while the receiver still polls tile t for epoch e - 2, and overwrite
 * those packets with flag(e); the receiver then never sees flag(e - 2)
 * and times out.
 *
 * Credits. Every rank has a credit area, one 64-bit word per (tile t,
 * receiver r), written only by r (CB_LL_CREDIT_WORD). When r starts its
 * work on tile t in a call of epoch e, before it polls for any packet of
 * the call, its lane 0 stores e - 1 into its word for t in the area of
 * the call's sender: "every call covering t before this one is complete
 * here" (cb_ll_return_credit). Before its first store into tile t at
 * epoch e, a sender's lane k waits, with acquire loads, until receiver k's
 * word for t in its own area holds at least e - 2, then the warp meets at
 * __syncwarp and stores (cb_ll_await_credit; the only way to a peer's
 * slot is cb_ll_push_slot, which takes the clearance the wait returns).
 *
 * Safety. Say lane k read v >= e - 2 from receiver r's word. r stored v
 * in a launch that began after r's launches for every epoch <= v of tile t
 * had completed (the counter is v: v calls covering t are complete, see
 * ll_tiles.cuh; launches on a stream are ordered). Every poll of r for
 * tile t at epoch e - 2 was in one of those launches, so it had returned
 * its packet before the launch storing v began, hence before that store;
 * the store is what the acquire load read, and the acquire orders lane k's
 * later accesses after the load; __syncwarp orders the load before every
 * lane's stores that follow (memory ordering among the warp's threads).
 * So the packets of epoch e land after r has read those of e - 2: no
 * packet is lost, and no packet of a later epoch of a half lands while r
 * polls it, which is what ll_tiles.cuh's "Counters" needs. Reads of epoch
 * e - 1 use the other half; reads of epoch e want exactly flag(e), which a
 * stale packet of that half (an older epoch of the same parity) carries
 * only if its slot went unwritten for 2 (2^32 - 1) calls covering t: not
 * every call rewrites every slot here (sendrecv writes no filler packets;
 * a rooted kernel rewrites a slot only in the calls of some roots), and
 * "Counters" needs none to.
 *
 * Why the receiver needs no fence. The credit vouches for reads made in
 * earlier launches, never in the launch that stores it, so stream order
 * does what a release would; a release store after the receiver's own
 * reads would cost a system-scope fence, waiting for the receiver's remote
 * stores too, on the critical path of every call. The store is relaxed at
 * system scope (a peer reads it while it may change). The values a
 * receiver stores into one word only grow (its counter grows, its launches
 * are ordered), and the sender compares with >=, so a later value clears
 * as well; any value read is true when read.
 *
 * Progress. Rule: a warp returns credit for every tile it covers in a
 * call before it polls for any packet of that call (the kernels do it in
 * their first loop over their tiles: CB_LL_CREDIT_DUE; the late_credit
 * mutant of device/mutation.cuh breaks the rule, returning it after the
 * polls). A sender at epoch e needs e - 2 from each receiver r. If it
 * was r's sender at r's previous call covering t (epoch e - 1), r stored
 * e - 2 then; the sender completed its own call e - 1, so every push that
 * call of r polls for has been made, and it completes. Otherwise (the
 * sender changed: a broadcast's root) r stores e - 1 for it when it starts
 * call e, before polling, which needs only r's earlier calls to complete.
 * (A receiver of many senders, a gather's or a reduce's root, stores e - 1
 * for every one of them at the start of call e, cb_ll_return_credit_all:
 * the same case, sender by sender.) The second case is the one that needs
 * the rule: credit returned after the polls would come only once the new
 * sender's packets were read, which wait for that credit (a sendrecv,
 * whose sender never changes, has only the first case). By induction on
 * calls every credit wait ends, so every push is made and every poll
 * served: no credit wait ever waits for a push of its own call,
 * whatever the grids of the ranks and the order in which their warps take
 * tiles. (Without the rule: a receiver warp taking tile a then b, polling a
 * before returning b's credit, and a new sender warp taking b then a,
 * waiting for b's credit before pushing a, would wait for each other. Our
 * warps take tiles in increasing order, which avoids that too, but the
 * proof does not lean on it.) Polls still wait on peers' warps of the same
 * call, so every warp of the grid must be resident (cb_ll_fit).
 * tests/unit/test_ll_credit_model.c runs this protocol as a model
 * (sendrecv's, broadcast's and gather's patterns) under random schedules,
 * grids, tile orders, sizes and roots: nothing lost, nothing stuck; and
 * without the credit wait, or with credit returned late, it sees the loss
 * or the hang.
 *
 * Cost. The sender's first credit load is issued while its epoch and input
 * loads are in flight (call cb_ll_await_credit after issuing them: the
 * acquire holds back the lane's later accesses, not earlier ones); in
 * steady state the credit arrived long ago (it is two calls old), so the
 * wait adds about one L2 round trip that overlaps those loads. The
 * receiver's credit is one remote store per tile, not waited for. */
#ifndef CB_DEVICE_LL_CREDIT_CUH
#define CB_DEVICE_LL_CREDIT_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/device/ll_packet.cuh"
#include "device/ll_tiles.cuh"
#include "collbench/device/pack8.cuh"
#include "collbench/device/peer_pick.cuh"
#include "collbench/device/signal.cuh"
#include "collbench/device/spin.cuh"
#include "collbench/device/mutation.cuh"
#include "ll_mesh.h"

/* What a sender may store: packets of this epoch into the tile it cleared. */
typedef struct {
  uint64_t epoch;
} cb_ll_clearance;

/* Rank (rank + p) % nranks's credit area (p = 0: ours), by selects: see
 * cb_ll_scratch_of. */
__device__ __forceinline__ uint64_t *cb_ll_credit_of(const cb_ll_push_mesh &v, int p) {
  return cb_peer_pick(v.credit, p);
}

/* Where in its call a receiver's warp returns its credit: in its first
 * loop over its tiles, before it polls for any packet of the call (the
 * rule of Progress), or once its polls are done, where the late_credit
 * mutant (device/mutation.cuh) returns it. The kernels name both points;
 * the credit goes out at one. */
enum { CB_LL_BEFORE_POLLS, CB_LL_AFTER_POLLS };

/* A constant expression, so that a normal build compiles the kernels as
 * if the point that returns nothing were not there. */
#define CB_LL_CREDIT_DUE(when)                                                                     \
  ((when) == (CB_MUTANT_BREAKS(CB_ORDER_LL_CREDIT_FIRST) ? CB_LL_AFTER_POLLS : CB_LL_BEFORE_POLLS))

/* Receiver, every lane of the warp, for every tile t it covers in the call
 * of `epoch`, before it polls for any packet of the call (see Progress):
 * tells the call's sender, the rank at ring offset `sender`, that every
 * earlier call covering t is complete here. */
__device__ __forceinline__ void cb_ll_return_credit(const cb_ll_push_mesh &v, size_t t,
                                                    uint64_t epoch, int sender) {
  if ((threadIdx.x & 31) == 0)
    cb_store_relaxed_sys(cb_ll_credit_of(v, sender) + CB_LL_CREDIT_WORD(t, v.ll.rank), epoch - 1);
}

/* Receiver of many senders (a gather's or a reduce's root), every lane of
 * the warp, under the same rule: cb_ll_return_credit to every other rank,
 * lane k to the rank at ring offset k + 1. */
__device__ __forceinline__ void cb_ll_return_credit_all(const cb_ll_push_mesh &v, size_t t,
                                                        uint64_t epoch) {
  const int lane = threadIdx.x & 31;
  if (lane < v.ll.nranks - 1)
    cb_store_relaxed_sys(cb_ll_credit_of(v, lane + 1) + CB_LL_CREDIT_WORD(t, v.ll.rank), epoch - 1);
}

/* Receiver, every lane of the warp, at point `when` of its call (see
 * CB_LL_CREDIT_DUE), for every tile of a run of `bytes` bytes it covers:
 * credit to the rank at ring offset `sender`, or, EVERY_SENDER, to every
 * other rank (cb_ll_return_credit_all; sender unused). The call's epoch of
 * tile t is counter t + 1 before the polls; after them it is the counter
 * itself, which lane 0 stored in cb_ll_tile_done (the __syncwarp here
 * orders those stores before every lane's loads). */
template <bool EVERY_SENDER>
__device__ __forceinline__ void cb_ll_credit_tiles(const cb_ll_push_mesh &v, size_t bytes,
                                                   int sender, int when) {
  if (!CB_LL_CREDIT_DUE(when)) return;
  if (when == CB_LL_AFTER_POLLS) __syncwarp();
  const size_t ntiles = cb_ll_tiles_of(bytes);
  for (size_t t = cb_ll_first_tile(); t < ntiles; t += cb_ll_tile_stride()) {
    const uint64_t epoch = when == CB_LL_BEFORE_POLLS ? cb_ll_epoch(v.ll, t) : v.ll.epochs[t];
    if (EVERY_SENDER)
      cb_ll_return_credit_all(v, t, epoch);
    else
      cb_ll_return_credit(v, t, epoch, sender);
  }
}

/* Sender, every lane of the warp, before its first store into tile t at
 * `epoch`, for the receivers at ring offsets first .. first + count - 1
 * (count < 32): lane k waits until receiver k has returned credit for
 * epoch - 2. Issue the loads the stores need before calling. */
__device__ __forceinline__ cb_ll_clearance cb_ll_await_credit(const cb_ll_push_mesh &v, size_t t,
                                                              uint64_t epoch, int first, int count,
                                                              const cb_spin_info &info) {
  const int lane = threadIdx.x & 31;
  if (lane < count && !CB_MUTANT_SKIPS(CB_WAIT_LL_CREDIT)) {
    const int receiver = (v.ll.rank + first + lane) % v.ll.nranks;
    const uint64_t *word = v.credit[0] + CB_LL_CREDIT_WORD(t, receiver);
    /* Acquire: our stores below happen after the load that saw the credit. */
    uint64_t got = cb_load_acquire_sys(word);
    if (got + 2 < epoch) {
      cb_spin spin;
      cb_spin_init(&spin);
      do {
        cb_spin_tick(&spin, info, receiver, (uint32_t)(epoch - 2));
        got = cb_load_acquire_sys(word);
      } while (got + 2 < epoch);
    }
  }
  /* Orders every lane's acquire before every lane's stores that follow. */
  __syncwarp();
  cb_ll_clearance c;
  c.epoch = epoch;
  return c;
}

/* Where our packet i of the cleared tile goes in the scratch of the rank
 * at ring offset p. */
__device__ __forceinline__ uint4 *cb_ll_push_slot(const cb_ll_push_mesh &v,
                                                  const cb_ll_clearance &c, int p, size_t i) {
  return cb_ll_slot(v.ll, p, c.epoch, v.ll.rank, i);
}

/* Receiver, every lane of the warp, after returning credit for all its
 * tiles: for each of the warp's tiles, polls the packets rank src sent
 * into our scratch and stores their data into out (bytes long), then
 * closes the tile (one source: sendrecv, broadcast). */
__device__ __forceinline__ void cb_ll_receive_from(const cb_ll_mesh &m, int src, char *out,
                                                   size_t bytes, const cb_spin_info &info) {
  cb_ll_pull_tiles(m, (bytes + 7) / 8, [&](const cb_ll_at &at) {
    uint2 x = cb_ll16_read(cb_ll_slot(m, 0, at.epoch, src, at.i), at.flag, info, src);
    cb_store_pack8(out, at.i, bytes, x);
  });
}

#endif
