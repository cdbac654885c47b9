/* The 32-bit flag an LL packet of a 64-bit epoch carries: 1 + epoch mod
 * (2^32 - 1). Never 0 (zeroed scratch never matches), and equal for two
 * epochs of one parity (one half of a slot) only when they are a multiple
 * of 2 (2^32 - 1) apart: a slot holds no later epoch than its reader waits
 * for, so a stale packet matches only after its slot went unwritten for
 * that many calls (device/ll_tiles.cuh, "Counters"). Folded without a
 * 64-bit division: 2^32 is 1 modulo 2^32 - 1, so the two 32-bit halves
 * add. Host and device (tests/unit/test_ll_flag.c). */
#ifndef CB_LL_FLAG_H
#define CB_LL_FLAG_H

#include <stdint.h>

#ifdef __CUDACC__
#define CB_LL_FLAG_FN __host__ __device__ __forceinline__
#else
#define CB_LL_FLAG_FN static inline
#endif

CB_LL_FLAG_FN uint32_t cb_ll_flag(uint64_t epoch) {
  uint64_t s = (epoch & 0xffffffffull) + (epoch >> 32); /* < 2^33 */
  s = (s & 0xffffffffull) + (s >> 32);                  /* <= 2^32 */
  uint32_t r = s >= 0xffffffffull ? (uint32_t)(s - 0xffffffffull) : (uint32_t)s;
  return 1u + r;
}

#endif
