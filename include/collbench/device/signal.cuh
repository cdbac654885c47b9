/* Flag handshakes between GPUs: a release store publishes everything the
 * thread wrote before it (data into a peer's buffer included), and an
 * acquire load that sees the value makes those writes visible to the
 * reader. System scope, because the writer and reader are different GPUs
 * (and, under mpirun, different processes). */
#ifndef CB_DEVICE_SIGNAL_CUH
#define CB_DEVICE_SIGNAL_CUH

#include <stdint.h>

#include "collbench/device/spin.cuh"

__device__ __forceinline__ void cb_store_release_sys(uint64_t *p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ uint64_t cb_load_acquire_sys(const uint64_t *p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

/* The same for a 32-bit word, for a word the CPU shares (its atomics are
 * 32-bit there: copy_perf's llhost). */
__device__ __forceinline__ void cb_store_release_sys(uint32_t *p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ uint32_t cb_load_acquire_sys(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/* A store with no ordering of its own, for a word whose readers need no
 * more than its value (the LL credits, device/ll_credit.cuh, say why). */
__device__ __forceinline__ void cb_store_relaxed_sys(uint64_t *p, uint64_t v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* Waits until *p >= want (flags only grow), bounded by the spin timeout. */
__device__ __forceinline__ void cb_wait_geq(const uint64_t *p, uint64_t want,
                                            const cb_spin_info &info, int peer) {
  cb_spin spin;
  cb_spin_init(&spin);
  while (cb_load_acquire_sys(p) < want) cb_spin_tick(&spin, info, peer, (uint32_t)want);
}

#endif
