/* Deliberate bugs, for tests/gpu/mutation.sh only: a build configured with
 * -DCOLLBENCH_MUTATE=NAME removes every wait of one kind from our kernels,
 * and the validation (checked_calls.c: calls back to back on fresh data)
 * must then report wrong values; a check is trusted only once a broken
 * kernel has been seen to fail it. A mutant's header says so in every run.
 *
 *   skip_start_wait  start handshakes (direct kernels, the ce kernels)
 *   skip_end_wait    end handshakes (the same)
 *   skip_ll_poll     the LL packet poll: a packet is taken whatever its flag
 *   skip_fifo_wait   the ring's wait for a posted slice
 *   skip_fifo_credit the ring's wait for a free slot (a consumed slice)
 *   skip_ll_credit   a one-to-many LL sender's wait for its receivers' credit
 *   skip_ce_landed   the ce reduce's wait for a peer's piece to land
 *
 * In a normal build CB_MUTANT_SKIPS is a constant false. */
#ifndef CB_DEVICE_MUTATION_CUH
#define CB_DEVICE_MUTATION_CUH

enum {
  CB_WAIT_START,
  CB_WAIT_END,
  CB_WAIT_LL_POLL,
  CB_WAIT_FIFO,
  CB_WAIT_FIFO_CREDIT,
  CB_WAIT_LL_CREDIT,
  CB_WAIT_CE_LANDED
};

#if defined(CB_MUTATE_SKIP_START_WAIT)
#define CB_MUTATED_WAIT CB_WAIT_START
#elif defined(CB_MUTATE_SKIP_END_WAIT)
#define CB_MUTATED_WAIT CB_WAIT_END
#elif defined(CB_MUTATE_SKIP_LL_POLL)
#define CB_MUTATED_WAIT CB_WAIT_LL_POLL
#elif defined(CB_MUTATE_SKIP_FIFO_WAIT)
#define CB_MUTATED_WAIT CB_WAIT_FIFO
#elif defined(CB_MUTATE_SKIP_FIFO_CREDIT)
#define CB_MUTATED_WAIT CB_WAIT_FIFO_CREDIT
#elif defined(CB_MUTATE_SKIP_LL_CREDIT)
#define CB_MUTATED_WAIT CB_WAIT_LL_CREDIT
#elif defined(CB_MUTATE_SKIP_CE_LANDED)
#define CB_MUTATED_WAIT CB_WAIT_CE_LANDED
#else
#define CB_MUTATED_WAIT (-1)
#endif

/* Whether this build removes the waits of that kind. */
#define CB_MUTANT_SKIPS(kind) ((kind) == CB_MUTATED_WAIT)

#endif
