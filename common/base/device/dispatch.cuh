/* From run-time datatype and op to compile-time template parameters: the
 * one place that lists which C type each cb_dtype is. */
#ifndef CB_DEVICE_DISPATCH_CUH
#define CB_DEVICE_DISPATCH_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include "error.h"
#include "types.h"

/* Calls F<T>(args...) for the C type of dtype. */
#define CB_DISPATCH_TYPE(dtype, F, ...)                                                            \
  switch (dtype) {                                                                                 \
  case CB_INT8:                                                                                    \
    F<int8_t>(__VA_ARGS__);                                                                        \
    break;                                                                                         \
  case CB_UINT8:                                                                                   \
    F<uint8_t>(__VA_ARGS__);                                                                       \
    break;                                                                                         \
  case CB_INT32:                                                                                   \
    F<int32_t>(__VA_ARGS__);                                                                       \
    break;                                                                                         \
  case CB_UINT32:                                                                                  \
    F<uint32_t>(__VA_ARGS__);                                                                      \
    break;                                                                                         \
  case CB_INT64:                                                                                   \
    F<int64_t>(__VA_ARGS__);                                                                       \
    break;                                                                                         \
  case CB_UINT64:                                                                                  \
    F<uint64_t>(__VA_ARGS__);                                                                      \
    break;                                                                                         \
  case CB_HALF:                                                                                    \
    F<__half>(__VA_ARGS__);                                                                        \
    break;                                                                                         \
  case CB_FLOAT:                                                                                   \
    F<float>(__VA_ARGS__);                                                                         \
    break;                                                                                         \
  case CB_DOUBLE:                                                                                  \
    F<double>(__VA_ARGS__);                                                                        \
    break;                                                                                         \
  case CB_BFLOAT16:                                                                                \
    F<__nv_bfloat16>(__VA_ARGS__);                                                                 \
    break;                                                                                         \
  case CB_F8E4M3:                                                                                  \
    F<__nv_fp8_e4m3>(__VA_ARGS__);                                                                 \
    break;                                                                                         \
  case CB_F8E5M2:                                                                                  \
    F<__nv_fp8_e5m2>(__VA_ARGS__);                                                                 \
    break;                                                                                         \
  default:                                                                                         \
    cb_fatal("unknown datatype %d", (int)(dtype));                                                 \
  }

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
  switch (dtype) {                                                                                 \
  case CB_INT8:                                                                                    \
    CB_DISPATCH_OP(int8_t, op, F, __VA_ARGS__);                                                    \
    break;                                                                                         \
  case CB_UINT8:                                                                                   \
    CB_DISPATCH_OP(uint8_t, op, F, __VA_ARGS__);                                                   \
    break;                                                                                         \
  case CB_INT32:                                                                                   \
    CB_DISPATCH_OP(int32_t, op, F, __VA_ARGS__);                                                   \
    break;                                                                                         \
  case CB_UINT32:                                                                                  \
    CB_DISPATCH_OP(uint32_t, op, F, __VA_ARGS__);                                                  \
    break;                                                                                         \
  case CB_INT64:                                                                                   \
    CB_DISPATCH_OP(int64_t, op, F, __VA_ARGS__);                                                   \
    break;                                                                                         \
  case CB_UINT64:                                                                                  \
    CB_DISPATCH_OP(uint64_t, op, F, __VA_ARGS__);                                                  \
    break;                                                                                         \
  case CB_HALF:                                                                                    \
    CB_DISPATCH_OP(__half, op, F, __VA_ARGS__);                                                    \
    break;                                                                                         \
  case CB_FLOAT:                                                                                   \
    CB_DISPATCH_OP(float, op, F, __VA_ARGS__);                                                     \
    break;                                                                                         \
  case CB_DOUBLE:                                                                                  \
    CB_DISPATCH_OP(double, op, F, __VA_ARGS__);                                                    \
    break;                                                                                         \
  case CB_BFLOAT16:                                                                                \
    CB_DISPATCH_OP(__nv_bfloat16, op, F, __VA_ARGS__);                                             \
    break;                                                                                         \
  case CB_F8E4M3:                                                                                  \
    CB_DISPATCH_OP(__nv_fp8_e4m3, op, F, __VA_ARGS__);                                             \
    break;                                                                                         \
  case CB_F8E5M2:                                                                                  \
    CB_DISPATCH_OP(__nv_fp8_e5m2, op, F, __VA_ARGS__);                                             \
    break;                                                                                         \
  default:                                                                                         \
    cb_fatal("unknown datatype %d", (int)(dtype));                                                 \
  }

#endif
