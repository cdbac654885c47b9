/* copy_perf's pattern on device memory: fill and check kernels. */
#include <stdint.h>

#include "copy_pattern.h"
#include "cuda_check.h"

namespace {

/* One 8-byte word per thread and step; an unaligned buffer (never one of
 * copy_perf's, which are 64 KiB aligned) goes byte by byte. */
__global__ void fill_kernel(unsigned char *p, size_t bytes, uint32_t seed, uint64_t flip) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (((uintptr_t)p & 7) == 0) {
    size_t words = bytes / 8;
    for (size_t w = t; w < words; w += stride)
      ((uint64_t *)p)[w] = cb_copy_pattern_word(w, seed) ^ flip;
    for (size_t i = 8 * words + t; i < bytes; i += stride)
      p[i] = cb_copy_pattern_byte(i, seed) ^ (uint8_t)flip;
  } else {
    for (size_t i = t; i < bytes; i += stride) p[i] = cb_copy_pattern_byte(i, seed) ^ (uint8_t)flip;
  }
}

__global__ void check_kernel(const unsigned char *p, size_t bytes, uint32_t seed,
                             unsigned long long *wrong) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long mine = 0;
  if (((uintptr_t)p & 7) == 0) {
    size_t words = bytes / 8;
    for (size_t w = t; w < words; w += stride) {
      uint64_t v = ((const uint64_t *)p)[w], want = cb_copy_pattern_word(w, seed);
      if (v != want)
        for (int b = 0; b < 8; b++) mine += (uint8_t)(v >> (8 * b)) != (uint8_t)(want >> (8 * b));
    }
    for (size_t i = 8 * words + t; i < bytes; i += stride)
      mine += p[i] != cb_copy_pattern_byte(i, seed);
  } else {
    for (size_t i = t; i < bytes; i += stride) mine += p[i] != cb_copy_pattern_byte(i, seed);
  }
  if (mine) atomicAdd(wrong, mine);
}

/* The guard after a copy of `bytes`: each byte must still hold the poison,
 * the pattern's complement. */
__global__ void check_guard_kernel(const unsigned char *p, size_t bytes, uint32_t seed,
                                   unsigned long long *changed) {
  const size_t i = bytes + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= bytes + CB_COPY_GUARD_BYTES) return;
  const uint8_t poison = (uint8_t)(0xFFu - cb_copy_pattern_byte(i, seed));
  if (p[i] != poison) atomicAdd(changed, 1ull);
}

/* The device word's count, once the kernel enqueued before it has run. */
long long read_count(const unsigned long long *counter, cudaStream_t stream) {
  unsigned long long n = 0;
  CB_CUDA(cudaGetLastError());
  CB_CUDA(cudaMemcpyAsync(&n, counter, sizeof n, cudaMemcpyDeviceToHost, stream));
  CB_CUDA(cudaStreamSynchronize(stream));
  return (long long)n;
}

unsigned grid_for(size_t bytes) {
  size_t blocks = (bytes / 8 + 255) / 256;
  return (unsigned)(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
}

} // namespace

extern "C" void cb_copy_pattern_fill_device(void *buf, size_t bytes, uint32_t seed, int invert,
                                            cudaStream_t stream) {
  if (bytes == 0) return;
  fill_kernel<<<grid_for(bytes), 256, 0, stream>>>((unsigned char *)buf, bytes, seed,
                                                   invert ? ~0ull : 0ull);
  CB_CUDA(cudaGetLastError());
}

extern "C" long long cb_copy_pattern_check_device(const void *buf, size_t bytes, uint32_t seed,
                                                  unsigned long long *counter,
                                                  cudaStream_t stream) {
  if (bytes == 0) return 0;
  CB_CUDA(cudaMemsetAsync(counter, 0, sizeof *counter, stream));
  check_kernel<<<grid_for(bytes), 256, 0, stream>>>((const unsigned char *)buf, bytes, seed,
                                                    counter);
  return read_count(counter, stream);
}

extern "C" long long cb_copy_pattern_check_guard_device(const void *buf, size_t bytes,
                                                        uint32_t seed, unsigned long long *counter,
                                                        cudaStream_t stream) {
  CB_CUDA(cudaMemsetAsync(counter, 0, sizeof *counter, stream));
  check_guard_kernel<<<CB_COPY_GUARD_BYTES / 256, 256, 0, stream>>>((const unsigned char *)buf,
                                                                    bytes, seed, counter);
  return read_count(counter, stream);
}
