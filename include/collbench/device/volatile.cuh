/* Loads that read memory afresh each time (and a store that writes it at
 * once): never served from L1, never
 * merged with another or hoisted out of a loop by the compiler. What a poll
 * of memory another GPU or the CPU writes needs, where nothing else orders
 * the read (an LL packet, whose flag travels in the same access as its
 * data; a word compared for equality only). One access each: a 16-byte
 * aligned uint4 is read whole. */
#ifndef COLLBENCH_DEVICE_VOLATILE_CUH
#define COLLBENCH_DEVICE_VOLATILE_CUH

#include <stdint.h>

__device__ __forceinline__ uint4 cb_load_volatile(const uint4 *p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ uint2 cb_load_volatile(const uint2 *p) {
  uint2 v;
  asm volatile("ld.volatile.global.v2.u32 {%0,%1}, [%2];"
               : "=r"(v.x), "=r"(v.y)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ uint32_t cb_load_volatile(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ unsigned char cb_load_volatile(const unsigned char *p) {
  unsigned v;
  asm volatile("ld.volatile.global.u8 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return (unsigned char)v;
}

/* A store that goes to memory at once, ordering nothing: for a word whose
 * reader needs only its value (an echo to the CPU). */
__device__ __forceinline__ void cb_store_volatile(uint32_t *p, uint32_t v) {
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

#endif
