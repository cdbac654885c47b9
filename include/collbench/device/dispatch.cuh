/* From run-time datatype and op to compile-time template parameters: the
 * one place that lists which C type each cb_dtype is. */
#ifndef CB_DEVICE_DISPATCH_CUH
#define CB_DEVICE_DISPATCH_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include "collbench/error.h"
#include "collbench/types.h"

/* Calls CALL(T, args...) for the C type T of dtype: the one switch over
 * cb_dtype that the dispatches below are made of. */
#define CB_DISPATCH_EACH_TYPE(dtype, CALL, ...)                                                    \
  switch (dtype) {                                                                                 \
  case CB_INT8:                                                                                    \
    CALL(int8_t, __VA_ARGS__);                                                                     \
    break;                                                                                         \
  case CB_UINT8:                                                                                   \
    CALL(uint8_t, __VA_ARGS__);                                                                    \
    break;                                                                                         \
  case CB_INT32:                                                                                   \
    CALL(int32_t, __VA_ARGS__);                                                                    \
    break;                                                                                         \
  case CB_UINT32:                                                                                  \
    CALL(uint32_t, __VA_ARGS__);                                                                   \
    break;                                                                                         \
  case CB_INT64:                                                                                   \
    CALL(int64_t, __VA_ARGS__);                                                                    \
    break;                                                                                         \
  case CB_UINT64:                                                                                  \
    CALL(uint64_t, __VA_ARGS__);                                                                   \
    break;                                                                                         \
  case CB_HALF:                                                                                    \
    CALL(__half, __VA_ARGS__);                                                                     \
    break;                                                                                         \
  case CB_FLOAT:                                                                                   \
    CALL(float, __VA_ARGS__);                                                                      \
    break;                                                                                         \
  case CB_DOUBLE:                                                                                  \
    CALL(double, __VA_ARGS__);                                                                     \
    break;                                                                                         \
  case CB_BFLOAT16:                                                                                \
    CALL(__nv_bfloat16, __VA_ARGS__);                                                              \
    break;                                                                                         \
  case CB_F8E4M3:                                                                                  \
    CALL(__nv_fp8_e4m3, __VA_ARGS__);                                                              \
    break;                                                                                         \
  case CB_F8E5M2:                                                                                  \
    CALL(__nv_fp8_e5m2, __VA_ARGS__);                                                              \
    break;                                                                                         \
  default:                                                                                         \
    cb_fatal("unknown datatype %d", (int)(dtype));                                                 \
  }

/* Calls F<T>(args...) for the C type of dtype. */
#define CB_CALL_TYPED(T, F, ...)        F<T>(__VA_ARGS__)
#define CB_DISPATCH_TYPE(dtype, F, ...) CB_DISPATCH_EACH_TYPE(dtype, CB_CALL_TYPED, F, __VA_ARGS__)

/* Calls F<T, OP>(args...) for the C type of dtype and the op. */
#define CB_DISPATCH_OP(T, op, F, ...)                                                              \
  switch (op) {                                                                                    \
  case CB_SUM:                                                                                     \
    F<T, CB_SUM>(__VA_ARGS__);                                                                     \
    break;                                                                                         \
  case CB_PROD:                                                                                    \
    F<T, CB_PROD>(__VA_ARGS__);                                                                    \
    break;                                                                                         \
  case CB_MIN:                                                                                     \
    F<T, CB_MIN>(__VA_ARGS__);                                                                     \
    break;                                                                                         \
  case CB_MAX:                                                                                     \
    F<T, CB_MAX>(__VA_ARGS__);                                                                     \
    break;                                                                                         \
  case CB_AVG:                                                                                     \
    F<T, CB_AVG>(__VA_ARGS__);                                                                     \
    break;                                                                                         \
  case CB_MULSUM:                                                                                  \
    F<T, CB_MULSUM>(__VA_ARGS__);                                                                  \
    break;                                                                                         \
  default:                                                                                         \
    cb_fatal("unknown op %d", (int)(op));                                                          \
  }

#define CB_DISPATCH_TYPE_OP(dtype, op, F, ...)                                                     \
  CB_DISPATCH_EACH_TYPE(dtype, CB_DISPATCH_OP, op, F, __VA_ARGS__)

#endif
