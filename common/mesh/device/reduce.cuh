/* Element-wise reduction of packed vectors (8 or 16 bytes) for every
 * datatype and op, the op a compile-time parameter. Avg sums, and divides
 * once at the end (cb_finalize), so an exact sum gives an exact average. */
#ifndef CB_DEVICE_REDUCE_CUH
#define CB_DEVICE_REDUCE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "types.h"

/* The op on two values. A struct, so the 16-bit float types can be
 * specialised for every op at once (functions cannot be partially
 * specialised); __hadd and friends are overloaded for both of them. */
template <typename T, int OP> struct cb_op {
  static __device__ __forceinline__ T apply(T a, T b) {
    if (OP == CB_PROD) return (T)(a * b);
    if (OP == CB_MIN) return a < b ? a : b;
    if (OP == CB_MAX) return a > b ? a : b;
    return (T)(a + b); /* sum, avg */
  }
};

template <typename H, int OP> __device__ __forceinline__ H cb_apply_16bit(H a, H b) {
  if (OP == CB_PROD) return __hmul(a, b);
  if (OP == CB_MIN) return __hmin(a, b);
  if (OP == CB_MAX) return __hmax(a, b);
  return __hadd(a, b);
}
template <int OP> struct cb_op<__half, OP> {
  static __device__ __forceinline__ __half apply(__half a, __half b) {
    return cb_apply_16bit<__half, OP>(a, b);
  }
};
template <int OP> struct cb_op<__nv_bfloat16, OP> {
  static __device__ __forceinline__ __nv_bfloat16 apply(__nv_bfloat16 a, __nv_bfloat16 b) {
    return cb_apply_16bit<__nv_bfloat16, OP>(a, b);
  }
};

template <typename T, int OP> __device__ __forceinline__ T cb_apply(T a, T b) {
  return cb_op<T, OP>::apply(a, b);
}

template <typename T> __device__ __forceinline__ T cb_divide(T v, int n) {
  return (T)(v / (T)n);
}
template <> __device__ __forceinline__ __half cb_divide<__half>(__half v, int n) {
  return __hdiv(v, __int2half_rn(n));
}
template <>
__device__ __forceinline__ __nv_bfloat16 cb_divide<__nv_bfloat16>(__nv_bfloat16 v, int n) {
  return __hdiv(v, __int2bfloat16_rn(n));
}

/* a op= b, element-wise over the T elements packed in V (uint2 or uint4). */
template <typename T, int OP, typename V> __device__ __forceinline__ V cb_reduce_pack(V a, V b) {
  union U {
    V v;
    T t[sizeof(V) / sizeof(T)];
  } x, y;
  x.v = a;
  y.v = b;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(V) / sizeof(T)); k++) x.t[k] = cb_apply<T, OP>(x.t[k], y.t[k]);
  return x.v;
}

/* The last step of a reduction of n inputs: avg divides, others keep. */
template <typename T, int OP, typename V>
__device__ __forceinline__ V cb_finalize_pack(V a, int n) {
  if (OP != CB_AVG) return a;
  union U {
    V v;
    T t[sizeof(V) / sizeof(T)];
  } x;
  x.v = a;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(V) / sizeof(T)); k++) x.t[k] = cb_divide<T>(x.t[k], n);
  return x.v;
}

#endif
