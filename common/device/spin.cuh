/* Bounded waiting on the GPU. Every spin loop in collbench's kernels goes
 * through cb_spin_tick: past the timeout it prints which rank, kernel and
 * peer it was waiting for, and traps, so a lost peer is an error the host
 * reports, never a hang. */
#ifndef CB_DEVICE_SPIN_CUH
#define CB_DEVICE_SPIN_CUH

#include <stdint.h>
#include <stdio.h>

/* Who is waiting, passed by value to every kernel that spins. */
typedef struct {
  int rank;
  int kernel_id;
  char kernel_name[16];
  uint64_t timeout_ns;
} cb_spin_info;

/* Who waits and for how long, from the kernel's context (host side). */
#define CB_SPIN_INFO(ctx)                                                                          \
  cb_spin_info_make((ctx)->rank, (ctx)->kernel_id, (ctx)->kernel_name, (ctx)->timeout_s)
static inline cb_spin_info cb_spin_info_make(int rank, int kernel_id, const char *name,
                                             int timeout_s) {
  cb_spin_info s;
  s.rank = rank;
  s.kernel_id = kernel_id;
  snprintf(s.kernel_name, sizeof s.kernel_name, "%s", name);
  s.timeout_ns = (uint64_t)timeout_s * 1000000000ull;
  return s;
}

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

static __device__ __noinline__ void cb_spin_timeout(const cb_spin_info &info, int peer,
                                                    uint32_t want) {
  if (atomicExch(&cb_spin_reported, 1) != 0)
    for (;;) __nanosleep(1000000);
  printf("collbench: rank %d: kernel %d (%s) timed out waiting for rank %d (epoch %u), "
         "block %d thread %d\n",
         info.rank, info.kernel_id, info.kernel_name, peer, want, (int)blockIdx.x,
         (int)threadIdx.x);
  __trap();
}

__device__ __forceinline__ void cb_spin_tick(cb_spin *s, const cb_spin_info &info, int peer,
                                             uint32_t want) {
  if ((++s->iters & 1023u) != 0) return;
  uint64_t now = cb_globaltimer_ns();
  if (s->start_ns == 0)
    s->start_ns = now;
  else if (now - s->start_ns > info.timeout_ns)
    cb_spin_timeout(info, peer, want);
}

#endif
