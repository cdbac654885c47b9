/* Our two loads (load.h): an FMA-bound kernel and a memory-bound one, each
 * a grid of CB_LOAD_WAVES times the blocks the GPU holds at once (short
 * blocks, as a GEMM's tiles; load_options.h says why). */
#include "load_parts.h"

#include <cuda_bf16.h>

#include "cuda_check.h"

/* A value in [-1, 1) from an index: the operands are not zero, so the
 * units draw the power real data draws. */
__device__ __forceinline__ float load_value(size_t i) {
  uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 32);
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return (float)(x & 0xffffu) / 32768.0f - 1.0f;
}

__global__ void load_fill_kernel(void *p, size_t n, int bf16) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    if (bf16)
      ((__nv_bfloat16 *)p)[i] = __float2bfloat16(load_value(i));
    else
      ((float *)p)[i] = load_value(i);
  }
}

/* Chains of a * x + y that stay finite: x just below 1, y small. The
 * store at the end depends on every chain, so the compiler keeps them. */
__global__ void __launch_bounds__(CB_LOAD_THREADS) load_fma_kernel(float *sink, uint64_t fmas) {
  const size_t tid = (size_t)blockIdx.x * CB_LOAD_THREADS + threadIdx.x;
  float a[CB_LOAD_FMA_CHAINS];
#pragma unroll
  for (int c = 0; c < CB_LOAD_FMA_CHAINS; c++) a[c] = load_value(tid * CB_LOAD_FMA_CHAINS + c);
  const float x = 0.999999f, y = 1e-6f;
  for (uint64_t i = 0; i < fmas; i += CB_LOAD_FMA_CHAINS) {
#pragma unroll
    for (int c = 0; c < CB_LOAD_FMA_CHAINS; c++) a[c] = fmaf(a[c], x, y);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < CB_LOAD_FMA_CHAINS; c++) sum += a[c];
  sink[tid] = sum;
}

__global__ void __launch_bounds__(CB_LOAD_THREADS)
    load_mem_kernel(const uint4 *src, uint4 *dst, size_t nvec) {
  for (size_t i = (size_t)blockIdx.x * CB_LOAD_THREADS + threadIdx.x; i < nvec;
       i += (size_t)gridDim.x * CB_LOAD_THREADS)
    dst[i] = src[i];
}

extern "C" int cb_load_kernel_per_sm(int fma) {
  int per_sm = 0;
  const void *f = fma ? (const void *)load_fma_kernel : (const void *)load_mem_kernel;
  CB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, CB_LOAD_THREADS, 0));
  return per_sm;
}

extern "C" void cb_load_fill(void *p, size_t n, int bf16, cudaStream_t s) {
  load_fill_kernel<<<1024, CB_LOAD_THREADS, 0, s>>>(p, n, bf16);
  CB_CUDA(cudaGetLastError());
}

extern "C" void cb_load_fma_launch(float *sink, unsigned blocks, uint64_t fmas, cudaStream_t s) {
  load_fma_kernel<<<blocks, CB_LOAD_THREADS, 0, s>>>(sink, fmas);
  CB_CUDA(cudaGetLastError());
}

extern "C" void cb_load_mem_launch(const void *src, void *dst, size_t bytes, unsigned blocks,
                                   cudaStream_t s) {
  load_mem_kernel<<<blocks, CB_LOAD_THREADS, 0, s>>>((const uint4 *)src, (uint4 *)dst, bytes / 16);
  CB_CUDA(cudaGetLastError());
}
