/* Bounds for host waits that nothing else bounds: a call into a library that
 * may wait on the host for a peer without a timeout of its own (NCCL's
 * communicator setup, buffer registration, the lazy connection a collective
 * may make, teardown; an MPI collective). A thread arms its watch before such
 * a call and disarms it after; one watchdog thread per process looks at every
 * watch four times a second, and when one stays armed past its timeout it
 * ends the process with one line naming the call and who made it (cb_fatal,
 * whose exit hook first aborts NCCL's communicators, so their kernels stop).
 *
 * GPU waits are bounded by cb_gpu_wait and the kernels' own spins; this is
 * for the calls those cannot see into. Arming is a few relaxed stores and
 * one release increment, cheap enough around every launch of a timed loop. */
#ifndef CB_WATCHDOG_H
#define CB_WATCHDOG_H

#ifdef __cplusplus
extern "C" {
#endif

/* Arms the calling thread's watch: fail after timeout_s seconds (<= 0: do
 * nothing) in call (a name such as "ncclCommInitRankConfig"), made by who
 * ("kernel 0 (nccl) on rank 1"). Both strings must outlive the watch. One
 * watch per thread: a second arm replaces the first. */
void cb_watchdog_arm(int timeout_s, const char *call, const char *who);
void cb_watchdog_disarm(void);

/* Starts the watchdog thread now rather than at the first arm: it also
 * writes this process's heartbeat on the liveness board (liveness.h). */
void cb_watchdog_start(void);

/* The timeout for waits whose caller does not know -T (the world's MPI
 * collectives): 0 (unbounded) until the program sets it from its options. */
void cb_watchdog_set_default(int timeout_s);
int cb_watchdog_default(void);

#ifdef __cplusplus
}
#endif

#endif
