/* Element-wise reduction of packed vectors (8 or 16 bytes) for every
 * datatype and op, the op a compile-time parameter. Avg sums, and divides
 * once at the end (cb_finalize), so an exact sum gives an exact average.
 *
 * How a rank's input enters a reduction depends on whose input it is:
 * mulsum multiplies rank q's input by q's scalar first (cb_pre: NCCL's
 * FuncPreMulSum preOp). So a kernel takes inputs with the rank they come
 * from, never by combining raw values:
 *
 *   in rank order 0..n-1    acc = cb_reduce_rank_pack<T, OP>(acc, v, q)
 *   partial op rank q's v   acc = cb_reduce_input_pack<T, OP>(acc, v, q)
 *   one element             cb_apply_rank / cb_apply_input, the same way
 *
 * cb_reduce_pack and cb_apply combine values that are already in the
 * reduction; instantiating them with mulsum fails to compile, so a reduce
 * path cannot forget the scalar. */
#ifndef CB_DEVICE_REDUCE_CUH
#define CB_DEVICE_REDUCE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include <type_traits>

#include "collbench/types.h"

/* How a type's op is computed: in its own arithmetic (the built-in types),
 * with the __h functions (__half, __nv_bfloat16: __hadd and friends are
 * overloaded for both), or through half (fp8).
 *
 * fp8 is reduced as NCCL reduces it (src/device/reduce_kernel.h: FuncSum,
 * FuncProd, FuncMinMax and the PreMulSum preOp of __nv_fp8_e4m3/e5m2): both
 * values widened to half (exact: half holds every fp8 value), the op in
 * half, the result rounded back by the __nv_fp8 constructor (to nearest
 * even, saturating to the largest finite value). The same steps give the
 * same bits as NCCL, whatever the values. */
enum { CB_ARITH_OWN, CB_ARITH_HALF_FUNCS, CB_ARITH_VIA_HALF };
template <typename T> struct cb_arith { static const int kind = CB_ARITH_OWN; };
template <> struct cb_arith<__half> { static const int kind = CB_ARITH_HALF_FUNCS; };
template <> struct cb_arith<__nv_bfloat16> { static const int kind = CB_ARITH_HALF_FUNCS; };
template <> struct cb_arith<__nv_fp8_e4m3> { static const int kind = CB_ARITH_VIA_HALF; };
template <> struct cb_arith<__nv_fp8_e5m2> { static const int kind = CB_ARITH_VIA_HALF; };

template <typename H, int OP> __device__ __forceinline__ H cb_apply_16bit(H a, H b) {
  if (OP == CB_PROD) return __hmul(a, b);
  if (OP == CB_MIN) return __hmin(a, b);
  if (OP == CB_MAX) return __hmax(a, b);
  return __hadd(a, b);
}

/* The op on two values; mulsum combines as a sum. */
template <typename T, int OP> __device__ __forceinline__ T cb_op(T a, T b) {
  if constexpr (cb_arith<T>::kind == CB_ARITH_HALF_FUNCS) {
    return cb_apply_16bit<T, OP>(a, b);
  } else if constexpr (cb_arith<T>::kind == CB_ARITH_VIA_HALF) {
    return T(cb_apply_16bit<__half, OP>(__half(a), __half(b)));
  } else {
    if (OP == CB_PROD) return (T)(a * b);
    if (OP == CB_MIN) return a < b ? a : b;
    if (OP == CB_MAX) return a > b ? a : b;
    return (T)(a + b); /* sum, avg, mulsum */
  }
}

/* A small integer as a T. */
template <typename T> __device__ __forceinline__ T cb_from_int(int v) {
  return (T)v;
}
template <> __device__ __forceinline__ __half cb_from_int<__half>(int v) {
  return __int2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 cb_from_int<__nv_bfloat16>(int v) {
  return __int2bfloat16_rn(v);
}
template <> __device__ __forceinline__ __nv_fp8_e4m3 cb_from_int<__nv_fp8_e4m3>(int v) {
  return __nv_fp8_e4m3((float)v);
}
template <> __device__ __forceinline__ __nv_fp8_e5m2 cb_from_int<__nv_fp8_e5m2>(int v) {
  return __nv_fp8_e5m2((float)v);
}

/* Two values already in the reduction, combined (mulsum: summed). Not for
 * a rank's input under mulsum: see cb_apply_input. */
template <typename T, int OP> __device__ __forceinline__ T cb_combine(T a, T b) {
  constexpr int COP = OP == CB_MULSUM ? CB_SUM : OP;
  return cb_op<T, COP>(a, b);
}

template <typename T, int OP> __device__ __forceinline__ T cb_apply(T a, T b) {
  static_assert(OP != CB_MULSUM, "mulsum scales each rank's input: use cb_apply_input/_rank");
  return cb_combine<T, OP>(a, b);
}

/* Rank q's input x as it enters the reduction: mulsum multiplies it by q's
 * scalar in the type (NCCL's preOp: x * scalar, rounded as the type's
 * product is); every other op takes it as it is. */
template <typename T, int OP> __device__ __forceinline__ T cb_pre(T x, int q) {
  if (OP != CB_MULSUM) return x;
  return cb_op<T, CB_PROD>(x, cb_from_int<T>(cb_mulsum_scalar(q)));
}

/* partial op (rank q's input x). */
template <typename T, int OP> __device__ __forceinline__ T cb_apply_input(T partial, T x, int q) {
  return cb_combine<T, OP>(partial, cb_pre<T, OP>(x, q));
}

/* The reduction in rank order 0..n-1 after rank q's input x (q == 0
 * starts it, acc unused). */
template <typename T, int OP> __device__ __forceinline__ T cb_apply_rank(T acc, T x, int q) {
  return q == 0 ? cb_pre<T, OP>(x, 0) : cb_apply_input<T, OP>(acc, x, q);
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
/* fp8: divided in float, rounded once to fp8 (the validation's expected
 * average is computed the same way). */
template <>
__device__ __forceinline__ __nv_fp8_e4m3 cb_divide<__nv_fp8_e4m3>(__nv_fp8_e4m3 v, int n) {
  return __nv_fp8_e4m3(float(v) / (float)n);
}
template <>
__device__ __forceinline__ __nv_fp8_e5m2 cb_divide<__nv_fp8_e5m2>(__nv_fp8_e5m2 v, int n) {
  return __nv_fp8_e5m2(float(v) / (float)n);
}

/* The T elements packed in V (uint2 or uint4). */
template <typename T, typename V> union cb_pack {
  V v;
  T t[sizeof(V) / sizeof(T)];
};

/* fp8 two at a time, as NCCL's packs of two (__nv_fp8x2 <-> __half2 and
 * the __half2 op): per element the same steps as cb_op, so the same bits,
 * in half the conversions and ops. */
template <typename T> struct cb_fp8_pair { typedef void type; /* not fp8 */ };
template <> struct cb_fp8_pair<__nv_fp8_e4m3> { typedef __nv_fp8x2_e4m3 type; };
template <> struct cb_fp8_pair<__nv_fp8_e5m2> { typedef __nv_fp8x2_e5m2 type; };
template <int OP> __device__ __forceinline__ __half2 cb_apply_half2(__half2 a, __half2 b) {
  if (OP == CB_PROD) return __hmul2(a, b);
  if (OP == CB_MIN) return __hmin2(a, b);
  if (OP == CB_MAX) return __hmax2(a, b);
  return __hadd2(a, b); /* sum, avg, mulsum */
}

/* a op= b element-wise, both already in the reduction (see cb_combine). */
template <typename T, int OP, typename V> __device__ __forceinline__ V cb_combine_pack(V a, V b) {
  typedef typename cb_fp8_pair<T>::type P;
  if constexpr (!std::is_void<P>::value) {
    constexpr int HOP = OP == CB_MULSUM ? CB_SUM : OP;
    cb_pack<P, V> x, y;
    x.v = a;
    y.v = b;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(V) / sizeof(P)); k++)
      x.t[k] = P(cb_apply_half2<HOP>(__half2(x.t[k]), __half2(y.t[k])));
    return x.v;
  } else {
    cb_pack<T, V> x, y;
    x.v = a;
    y.v = b;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(V) / sizeof(T)); k++)
      x.t[k] = cb_combine<T, OP>(x.t[k], y.t[k]);
    return x.v;
  }
}

template <typename T, int OP, typename V> __device__ __forceinline__ V cb_reduce_pack(V a, V b) {
  static_assert(OP != CB_MULSUM,
                "mulsum scales each rank's input: use cb_reduce_input_pack/_rank_pack");
  return cb_combine_pack<T, OP>(a, b);
}

/* Rank q's packed input v as it enters the reduction (cb_pre). */
template <typename T, int OP, typename V> __device__ __forceinline__ V cb_pre_pack(V v, int q) {
  if (OP != CB_MULSUM) return v;
  cb_pack<T, V> x;
  x.v = v;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(V) / sizeof(T)); k++) x.t[k] = cb_pre<T, OP>(x.t[k], q);
  return x.v;
}

/* partial op= rank q's packed input v. */
template <typename T, int OP, typename V>
__device__ __forceinline__ V cb_reduce_input_pack(V partial, V v, int q) {
  return cb_combine_pack<T, OP>(partial, cb_pre_pack<T, OP>(v, q));
}

/* The reduction in rank order 0..n-1 after rank q's packed input v (q == 0
 * starts it, acc unused). */
template <typename T, int OP, typename V>
__device__ __forceinline__ V cb_reduce_rank_pack(V acc, V v, int q) {
  return q == 0 ? cb_pre_pack<T, OP>(v, 0) : cb_reduce_input_pack<T, OP>(acc, v, q);
}

/* The last step of a reduction of n inputs: avg divides, others keep. */
template <typename T, int OP, typename V>
__device__ __forceinline__ V cb_finalize_pack(V a, int n) {
  if (OP != CB_AVG) return a;
  cb_pack<T, V> x;
  x.v = a;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(V) / sizeof(T)); k++) x.t[k] = cb_divide<T>(x.t[k], n);
  return x.v;
}

#endif
