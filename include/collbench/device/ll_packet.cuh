/* LL ("low-latency") packets: data and its flag travel in one store, so a
 * reader that sees the flag has the data, with no fence and no separate
 * signal. The flag is the sender's epoch, a counter that only grows, so a
 * stale packet never carries the flag a reader waits for.
 *
 *   LL16: {data0, flag, data1, flag}: 8 data bytes in one 16-byte store.
 *   LL8:  {data, flag}: 4 data bytes in one 8-byte store.
 *
 * Why no fence is needed: a 16-byte (8-byte) aligned vector store by one
 * thread is performed as a single access, so a volatile load of the same
 * 16 (8) bytes sees either the old packet or the whole new one, never half;
 * the reader checks every flag word of the packet. Volatile (not cached in
 * L1, not merged or hoisted by the compiler) is what makes the poll see the
 * peer's store at all. */
#ifndef CB_DEVICE_LL_PACKET_CUH
#define CB_DEVICE_LL_PACKET_CUH

#include <stdint.h>

#include "collbench/device/mutation.cuh"
#include "collbench/device/spin.cuh"
#include "collbench/device/volatile.cuh"

__device__ __forceinline__ void cb_ll16_write(uint4 *dst, uint2 data, uint32_t flag) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(dst), "r"(data.x), "r"(flag),
               "r"(data.y), "r"(flag)
               : "memory");
}

/* One volatile load of a packet (uint4: LL16, uint2: LL8): its data into
 * *data; whether every flag word of it equals flag. */
__device__ __forceinline__ bool cb_ll_load(const uint4 *src, uint32_t flag, uint2 *data) {
  const uint4 v = cb_load_volatile(src); /* {data0, flag, data1, flag} */
  *data = make_uint2(v.x, v.z);
  return v.y == flag && v.w == flag;
}
__device__ __forceinline__ bool cb_ll_load(const uint2 *src, uint32_t flag, uint32_t *data) {
  const uint2 v = cb_load_volatile(src); /* {data, flag} */
  *data = v.x;
  return v.y == flag;
}

/* Polls one packet until every flag word of it equals flag, a bounded spin
 * naming peer; returns its data. */
template <typename PACKET, typename DATA>
__device__ __forceinline__ DATA cb_ll_poll(const PACKET *src, uint32_t flag,
                                           const cb_spin_info &info, int peer) {
  cb_spin spin;
  cb_spin_init(&spin);
  for (;;) {
    DATA data;
    const bool flagged = cb_ll_load(src, flag, &data);
    if (flagged || CB_MUTANT_SKIPS(CB_WAIT_LL_POLL)) return data;
    cb_spin_tick(&spin, info, peer, flag);
  }
}

/* Polls one LL16 packet until both its flags equal flag; returns its data. */
__device__ __forceinline__ uint2 cb_ll16_read(const uint4 *src, uint32_t flag,
                                              const cb_spin_info &info, int peer) {
  return cb_ll_poll<uint4, uint2>(src, flag, info, peer);
}

__device__ __forceinline__ void cb_ll8_write(uint2 *dst, uint32_t data, uint32_t flag) {
  asm volatile("st.volatile.global.v2.u32 [%0], {%1,%2};" ::"l"(dst), "r"(data), "r"(flag)
               : "memory");
}

__device__ __forceinline__ uint32_t cb_ll8_read(const uint2 *src, uint32_t flag,
                                                const cb_spin_info &info, int peer) {
  return cb_ll_poll<uint2, uint32_t>(src, flag, info, peer);
}

#endif
