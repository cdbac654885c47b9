/* Bounded waiting on the GPU. Every spin loop in collbench's kernels goes
 * through cb_spin_tick: past the timeout it prints which rank, kernel and
 * peer it was waiting for, and traps, so a lost peer is an error the host
 * reports, never a hang. copy_perf's resident kernels wait on the CPU, not
 * on a peer, and name what they wait for: they take the same bound from
 * cb_spin_expired and the same single report from cb_spin_first_reporter. */
#ifndef COLLBENCH_DEVICE_SPIN_CUH
#define COLLBENCH_DEVICE_SPIN_CUH

#include <stdint.h>
#include <stdio.h>

#include "collbench/wait.h" /* cb_spin_info: who waits */

__device__ __forceinline__ uint64_t cb_globaltimer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* State of one wait: reading the timer on every iteration would slow the
 * poll, so it is read every 1024 iterations. */
typedef struct {
  uint32_t iters;
  uint64_t start_ns;
} cb_spin;

__device__ __forceinline__ void cb_spin_init(cb_spin *s) {
  s->iters = 0;
  s->start_ns = 0;
}

/* Set by the first thread of the device to time out: every waiting thread
 * times out at about the same moment, and one line says it. The others
 * wait for that thread's trap, which ends the kernel: trapping at once
 * would end it before the line is printed. */
static __device__ int cb_spin_reported;

/* Returns in the first thread to time out, which then prints its line and
 * traps; never returns in the others. */
__device__ __forceinline__ void cb_spin_first_reporter() {
  if (atomicExch(&cb_spin_reported, 1) != 0)
    for (;;) __nanosleep(1000000);
}

/* Whether the wait s has lasted more than timeout_ns; call it once a poll.
 * The timer is read every 1024 calls, the first read starting the clock. */
__device__ __forceinline__ bool cb_spin_expired(cb_spin *s, uint64_t timeout_ns) {
  if ((++s->iters & 1023u) != 0) return false;
  uint64_t now = cb_globaltimer_ns();
  if (s->start_ns == 0) {
    s->start_ns = now;
    return false;
  }
  return now - s->start_ns > timeout_ns;
}

/* Takes its arguments by value (scalars): see cb_spin_info. */
static __device__ __noinline__ void cb_spin_timeout(int rank, int kernel_id, uint64_t name0,
                                                    uint64_t name1, int peer, uint32_t want) {
  cb_spin_first_reporter();
  uint64_t name[3] = {name0, name1, 0};
  printf("collbench: rank %d: kernel %d (%s) timed out waiting for rank %d (epoch %u), "
         "block %d thread %d\n",
         rank, kernel_id, (const char *)name, peer, want, (int)blockIdx.x, (int)threadIdx.x);
  __trap();
}

__device__ __forceinline__ void cb_spin_tick(cb_spin *s, const cb_spin_info &info, int peer,
                                             uint32_t want) {
  if (cb_spin_expired(s, info.timeout_ns))
    cb_spin_timeout(info.rank, info.kernel_id, info.name[0], info.name[1], peer, want);
}

#endif
