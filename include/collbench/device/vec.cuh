/* 16-byte vector paths with scalar head and tail. A run of bytes is moved
 * (or reduced) as an unaligned head, then 16-byte vectors, then a tail;
 * vectors are used only where every pointer the run touches is aligned for
 * them, which holds when all those pointers have the same address mod 16.
 * The harness's blocks are whole 16-byte multiples at 16-byte aligned
 * offsets, so there head and tail are empty; any other count or offset
 * still works, more slowly. */
#ifndef CB_DEVICE_VEC_CUH
#define CB_DEVICE_VEC_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stddef.h>
#include <stdint.h>

#include "collbench/device/mutation.cuh"

/* The split of a run of `bytes` bytes of elem-byte elements. */
typedef struct {
  size_t head; /* bytes before the first vector (a whole number of elements) */
  size_t nvec; /* 16-byte vectors after the head */
  size_t tail; /* byte offset of the tail: head + 16 * nvec */
} cb_vec_split;

/* first: one pointer of the run; same_mod16: whether every other pointer
 * of the run has first's address mod 16. Host side, at launch. */
static inline cb_vec_split cb_vec_split_make(const void *first, int same_mod16, size_t bytes,
                                             size_t elem) {
  cb_vec_split s;
  uintptr_t mis = (uintptr_t)first % 16;
  if (!same_mod16 || mis % elem != 0) { /* no aligned vector for all: everything singly */
    s.head = bytes;
    s.nvec = 0;
  } else {
    s.head = (16 - mis) % 16;
    if (s.head > bytes) s.head = bytes;
    s.nvec = (bytes - s.head) / 16;
  }
  s.tail = s.head + 16 * s.nvec;
  return s;
}

/* The units (bytes or elements) moved singly, the head's and the tail's, of
 * a run of n units whose head ends at `head` and whose tail starts at
 * `tail`: how many, and the unit of the i-th of them, the head's first.
 * Every scalar loop walks them so, each unit once. The drop_head mutant
 * (mutation.cuh) leaves the head out: a run that does not start 16-byte
 * aligned (a buffer -u moves) loses its first elements. */
static __host__ __device__ __forceinline__ size_t cb_vec_singles(size_t head, size_t tail,
                                                                 size_t n) {
  if (CB_MUTANT_BREAKS(CB_BOUND_VEC_HEAD)) return n - tail;
  return head + (n - tail);
}
static __host__ __device__ __forceinline__ size_t cb_vec_single_at(size_t head, size_t tail,
                                                                   size_t i) {
  if (CB_MUTANT_BREAKS(CB_BOUND_VEC_HEAD)) return tail + i;
  return i < head ? i : tail + (i - head);
}

/* Whether p has the same address mod 16 as first. */
static inline int cb_same_mod16(const void *first, const void *p) {
  return ((uintptr_t)first - (uintptr_t)p) % 16 == 0;
}

/* 16 bytes from memory a peer wrote before a handshake we acquired: through
 * L2 (ld.global.cg), never from an L1 line of an earlier access. */
__device__ __forceinline__ uint4 cb_ld_cg16(const void *p) {
  return __ldcg((const uint4 *)p);
}

/* One element the same way, for every datatype: __ldcg has overloads for
 * the built-in types and __half/__nv_bfloat16 (cuda_fp16.h, cuda_bf16.h),
 * not for fp8, which is loaded as its byte. */
template <typename T> __device__ __forceinline__ T cb_ld_cg(const T *p) {
  return __ldcg(p);
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 cb_ld_cg<__nv_fp8_e4m3>(const __nv_fp8_e4m3 *p) {
  __nv_fp8_e4m3 v;
  v.__x = (__nv_fp8_storage_t)__ldcg((const unsigned char *)p);
  return v;
}
template <>
__device__ __forceinline__ __nv_fp8_e5m2 cb_ld_cg<__nv_fp8_e5m2>(const __nv_fp8_e5m2 *p) {
  __nv_fp8_e5m2 v;
  v.__x = (__nv_fp8_storage_t)__ldcg((const unsigned char *)p);
  return v;
}

#endif
