/* Deliberate bugs, for tests/gpu/mutation.sh only: a build configured with
 * -DCOLLBENCH_MUTATE=NAME removes every wait of one kind from our kernels,
 * or breaks one ordering that a protocol's proof needs, and the validation
 * (checked_calls.c: calls back to back on fresh data) must then report
 * wrong values, or a wait that never ends (the program's spin timeout,
 * naming rank, peer and kernel); a check is trusted only once a broken
 * kernel has been seen to fail it. A mutant's header says so in every run.
 *
 * Waits removed (CB_MUTANT_SKIPS):
 *   skip_start_wait  start handshakes (direct kernels, the ce kernels)
 *   skip_end_wait    end handshakes (the same)
 *   skip_ll_poll     the LL packet poll: a packet is taken whatever its flag
 *   skip_fifo_wait   the ring's wait for a posted slice
 *   skip_fifo_credit the ring's wait for a free slot (a consumed slice)
 *   skip_ll_credit   a one-to-many LL sender's wait for its receivers' credit
 *   skip_ce_landed   the ce reduce's wait for a peer's piece to land
 *
 * Orderings broken (CB_MUTANT_BREAKS):
 *   single_half      cb_ll_slot ignores the epoch's parity: every epoch
 *                    uses half 0 of the LL scratch, so a writer one call
 *                    ahead overwrites packets its reader has still to take
 *                    (ll_tiles.cuh, "Double buffering"): a lost packet, a
 *                    poll that times out
 *   late_credit      a credited LL receiver returns its credit after its
 *                    polls instead of before them (ll_credit.cuh,
 *                    "Progress"): a new sender (a broadcast's root that
 *                    changed, -r all) waits for a credit that comes only
 *                    once its own packets are read, and the two waits time
 *                    out. Only a spin timeout naming the wait catches it;
 *                    a sendrecv sender (always the same) still progresses
 *   early_tile_done  lane 0 stores a tile's epoch before the warp's
 *                    __syncwarp (cb_ll_tile_done): a lane that has not yet
 *                    read the counter takes the next call's epoch. A
 *                    warp's lanes read the counter at one instruction, at
 *                    the top of a loop they enter together, so that order
 *                    never shows on its own; the mutant forces it
 *                    (cb_ll_epoch): lane 0 stores the epoch as it reads the
 *                    counter, and lanes 1-31 read it after that store
 *   consumed_before_barrier
 *                    the ring's receiver stores `consumed` before the
 *                    block's __syncthreads (cb_ring_signal): the sender may
 *                    refill the slot while other warps still read it
 *
 * Bounds broken (CB_MUTANT_BREAKS):
 *   write_past_end   the ring chain kernel writes a zero byte after the end
 *                    of each chunk it writes to its output
 *                    (cb_ring_chain_kernel), as an off-by-one tail would:
 *                    in reduce_scatter (one chunk, our block) only the
 *                    validation's guard after the output sees it
 *                    (checked_calls.c); copy_perf's sm kernel writes one
 *                    byte more than each copy (copy/kernels/copy_sm.cu)
 *   drop_head        the scalar loops of a split run (vec.cuh,
 *                    cb_vec_singles) leave its head out: the elements
 *                    before a run's first 16-byte boundary are never moved
 *                    or reduced. A head is non-empty only in a run that
 *                    does not start 16-byte aligned, as every run does
 *                    whose buffers -u N moves: the unaligned check sees it
 *
 * Lag. An ordering bug shows only where one side runs ahead: a rank a call
 * ahead of a reader that has still to take its packets (single_half), a
 * sender a whole FIFO ahead of a block whose warp 0 has freed a slot the
 * other warps still copy out (consumed_before_barrier). Ranks whose grids
 * are all resident on one GPU at once seldom give that schedule by
 * themselves, so in those two mutants the late side first sleeps
 * CB_MUTANT_LL_LAG_NS or CB_MUTANT_RING_LAG_NS (cb_mutant_lag): rank 0
 * before each read of a packet from its scratch, and rank 0's ring warps
 * other than warp 0 before they move a received slice. Only rank 0 lags, so
 * the others run ahead of it (a ring's ranks are as fast as its slowest, so
 * a lag on every rank leaves none ahead: seen, no catch). Two of the
 * removed waits need it too, for the same reason: with skip_end_wait rank 0
 * sleeps CB_MUTANT_HS_LAG_NS after each start handshake (handshake.cuh), so
 * its peers end their call before its stores into their buffers (or its
 * loads from them) are done; with skip_fifo_credit every ring warp of rank
 * 0 sleeps CB_MUTANT_RING_LAG_NS before it moves a received slice, so the
 * sender before it gets a FIFO ahead. Without the lag neither was caught at
 * 3 ranks on one GPU (docs/architecture.md, "Why the mutants lag").
 * A rank or a warp descheduled for as long is a schedule the proofs must
 * allow; the lag makes it certain. A normal build has no lag.
 *
 * In a normal build every test here is a constant false. */
#ifndef CB_DEVICE_MUTATION_CUH
#define CB_DEVICE_MUTATION_CUH

enum {
  CB_WAIT_START,
  CB_WAIT_END,
  CB_WAIT_LL_POLL,
  CB_WAIT_FIFO,
  CB_WAIT_FIFO_CREDIT,
  CB_WAIT_LL_CREDIT,
  CB_WAIT_CE_LANDED,
  CB_ORDER_LL_HALVES,
  CB_ORDER_LL_CREDIT_FIRST,
  CB_ORDER_LL_TILE_DONE,
  CB_ORDER_FIFO_CONSUMED,
  CB_BOUND_OUTPUT_END,
  CB_BOUND_VEC_HEAD
};

#if defined(CB_MUTATE_SKIP_START_WAIT)
#define CB_MUTATED_KIND CB_WAIT_START
#elif defined(CB_MUTATE_SKIP_END_WAIT)
#define CB_MUTATED_KIND CB_WAIT_END
#elif defined(CB_MUTATE_SKIP_LL_POLL)
#define CB_MUTATED_KIND CB_WAIT_LL_POLL
#elif defined(CB_MUTATE_SKIP_FIFO_WAIT)
#define CB_MUTATED_KIND CB_WAIT_FIFO
#elif defined(CB_MUTATE_SKIP_FIFO_CREDIT)
#define CB_MUTATED_KIND CB_WAIT_FIFO_CREDIT
#elif defined(CB_MUTATE_SKIP_LL_CREDIT)
#define CB_MUTATED_KIND CB_WAIT_LL_CREDIT
#elif defined(CB_MUTATE_SKIP_CE_LANDED)
#define CB_MUTATED_KIND CB_WAIT_CE_LANDED
#elif defined(CB_MUTATE_SINGLE_HALF)
#define CB_MUTATED_KIND CB_ORDER_LL_HALVES
#elif defined(CB_MUTATE_LATE_CREDIT)
#define CB_MUTATED_KIND CB_ORDER_LL_CREDIT_FIRST
#elif defined(CB_MUTATE_EARLY_TILE_DONE)
#define CB_MUTATED_KIND CB_ORDER_LL_TILE_DONE
#elif defined(CB_MUTATE_CONSUMED_BEFORE_BARRIER)
#define CB_MUTATED_KIND CB_ORDER_FIFO_CONSUMED
#elif defined(CB_MUTATE_WRITE_PAST_END)
#define CB_MUTATED_KIND CB_BOUND_OUTPUT_END
#elif defined(CB_MUTATE_DROP_HEAD)
#define CB_MUTATED_KIND CB_BOUND_VEC_HEAD
#else
#define CB_MUTATED_KIND (-1)
#endif

/* Whether this build removes the waits of that kind (CB_WAIT_*). */
#define CB_MUTANT_SKIPS(kind) ((kind) == CB_MUTATED_KIND)

/* Whether this build breaks that ordering (CB_ORDER_*) or bound (CB_BOUND_*). */
#define CB_MUTANT_BREAKS(kind) ((kind) == CB_MUTATED_KIND)

/* The late side's sleep in the mutants that need a lag (see Lag above):
 * each call site is under its mutant's CB_MUTANT_BREAKS, a constant false
 * in every other build. An LL packet is overwritten within one call of the
 * rank ahead, except in ll2, where only a filler packet of shot 2 can be,
 * and only after the rank ahead has ended its call and begun the next
 * while rank 0 still pulls (all_reduce_ll2.cu, "What the halves guard"):
 * rank 0's pull of a tile lags n-1 times, and 5 us caught ll2 at 8 ranks
 * but not at 3 (0 wrong in 10^4 calls); 50 us caught it at 3 in 5 runs of
 * 5. A ring slot is overwritten only after the sender has taken its own
 * slices from the ranks before it, each a step of theirs with flags at
 * system scope (at 3 ranks, two steps of other ranks: 5 us caught 3 of the
 * 6 rings that can show it): 50 us. A direct kernel's peer ends as soon as
 * its own part is done, a few microseconds: 50 us. */
#define CB_MUTANT_LL_LAG_NS   50000
#define CB_MUTANT_RING_LAG_NS 50000
#define CB_MUTANT_HS_LAG_NS   50000
__device__ __forceinline__ void cb_mutant_lag(bool late, int ns) {
  if (!late) return;
  for (int slept = 0; slept < ns; slept += 1000) __nanosleep(1000);
}

#endif
