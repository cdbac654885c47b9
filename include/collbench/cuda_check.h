/* Checks for CUDA runtime calls: a failure is one fatal line (error.h) with
 * the call and CUDA's own error string. Usable from C and CUDA C. */
#ifndef COLLBENCH_CUDA_CHECK_H
#define COLLBENCH_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "collbench/error.h"

#define CB_CUDA(call)                                                                              \
  do {                                                                                             \
    cudaError_t cb_cuda_rc_ = (call);                                                              \
    if (cb_cuda_rc_ != cudaSuccess)                                                                \
      cb_die(__FILE__, __LINE__, #call, cudaGetErrorString(cb_cuda_rc_));                          \
  } while (0)

#endif
