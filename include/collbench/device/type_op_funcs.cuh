/* Every (datatype, op) instantiation of a kernel template, for the
 * occupancy checks of grid_fit.h: a launch may pick any of them, and they
 * need not use the same registers. In a kernel's .cu file:
 *
 *   CB_DEFINE_TYPE_OP_FUNCS(ring_funcs, ring_kernel)
 *   const void *funcs[CB_TYPE_OP_FUNCS];
 *   int n = ring_funcs(funcs);
 *
 * and the launch of the one a call picks, for CB_DISPATCH_TYPE_OP:
 *
 *   CB_DEFINE_TYPE_OP_LAUNCH(launch_typed, ring_kernel, ring_args)
 *   CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &args, blocks, threads, stream);
 */
#ifndef CB_DEVICE_TYPE_OP_FUNCS_CUH
#define CB_DEVICE_TYPE_OP_FUNCS_CUH

#include "collbench/device/dispatch.cuh"
#include "collbench/types.h"

#define CB_TYPE_OP_FUNCS (CB_NUM_DTYPES * CB_NUM_OPS)

#define CB_DEFINE_TYPE_OP_FUNCS(name, kernel)                                                      \
  template <typename T, int OP> static void name##_one(const void **f) {                           \
    *f = (const void *)kernel<T, OP>;                                                              \
  }                                                                                                \
  static int name(const void **funcs) {                                                            \
    int n = 0;                                                                                     \
    for (int t = 0; t < CB_NUM_DTYPES; t++)                                                        \
      for (int op = 0; op < CB_NUM_OPS; op++, n++)                                                 \
        CB_DISPATCH_TYPE_OP((cb_dtype)t, (cb_redop)op, name##_one, &funcs[n]);                     \
    return n;                                                                                      \
  }

/* name<T, OP>(args, blocks, threads, stream): kernel<T, OP> on `blocks`
 * blocks of `threads` threads, its one argument *args (of args_type). */
#define CB_DEFINE_TYPE_OP_LAUNCH(name, kernel, args_type)                                          \
  template <typename T, int OP>                                                                    \
  static void name(const args_type *a, unsigned blocks, unsigned threads, cudaStream_t s) {        \
    kernel<T, OP><<<blocks, threads, 0, s>>>(*a);                                                  \
  }

#endif
