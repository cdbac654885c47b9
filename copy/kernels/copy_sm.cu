/* -k 2 sm: a GPU kernel per copy, its threads loading the source and
 * storing the destination: h2d loads mapped pinned host memory over PCIe,
 * d2h stores into it, d2d stores into the peer GPU's memory (a push over
 * NVLink or PCIe P2P).
 *
 * 16-byte vector accesses where source and destination share their
 * alignment modulo 16 (copy_perf's buffers always do): a byte-wise head up
 * to the destination's 16-byte boundary, then uint4 loads and stores, four
 * loads in flight per thread before their stores (PCIe reads take about a
 * microsecond: the bandwidth comes from many of them in flight), then a
 * byte-wise tail. Otherwise byte by byte.
 *
 * No fence: every access is a plain load or store, and the kernel's end is
 * what makes its stores visible to the host and to later work (the host
 * waits for it with a stream synchronize). */
#include <stdint.h>
#include <stdlib.h>

#include "copy_kernels.h"
#include "cuda_check.h"

#define SM_THREADS 512
#define SM_UNROLL  4

typedef struct {
  int max_blocks; /* enough blocks to fill the GPU: SMs x 4 */
} sm_state;

__global__ void __launch_bounds__(SM_THREADS)
    sm_copy_kernel(unsigned char *dst, const unsigned char *src, size_t bytes) {
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t nthreads = (size_t)gridDim.x * blockDim.x;
  if ((((uintptr_t)dst ^ (uintptr_t)src) & 15) != 0) {
    for (size_t i = tid; i < bytes; i += nthreads) dst[i] = src[i];
    return;
  }
  size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
  if (head > bytes) head = bytes;
  if (tid < head) dst[tid] = src[tid];
  const size_t nvec = (bytes - head) / 16;
  uint4 *vd = (uint4 *)(dst + head);
  const uint4 *vs = (const uint4 *)(src + head);
  size_t i = tid;
  for (; i + (SM_UNROLL - 1) * nthreads < nvec; i += SM_UNROLL * nthreads) {
    uint4 v[SM_UNROLL];
#pragma unroll
    for (int u = 0; u < SM_UNROLL; u++) v[u] = vs[i + u * nthreads];
#pragma unroll
    for (int u = 0; u < SM_UNROLL; u++) vd[i + u * nthreads] = v[u];
  }
  for (; i < nvec; i += nthreads) vd[i] = vs[i];
  const size_t done = head + nvec * 16;
  if (tid < bytes - done) dst[done + tid] = src[done + tid];
#if defined(CB_MUTATE_WRITE_PAST_END)
  /* tests/gpu/mutation.sh's write_past_end: one byte more than the copy,
   * as an off-by-one tail would; only the validation's guard sees it
   * (copy_pattern.h). */
  if (tid == 0) dst[bytes] = src[bytes];
#endif
}

extern "C" const char *cb_copy_sm_setup(cb_copy_ctx *ctx) {
  sm_state *st = (sm_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  int sms = 0;
  CB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device));
  st->max_blocks = 4 * sms;
  ctx->state = st;
  return NULL;
}

extern "C" void cb_copy_sm_teardown(cb_copy_ctx *ctx) {
  free(ctx->state);
  ctx->state = NULL;
}

/* The device address of a pointer into the run's host buffer (mapped), or
 * the pointer itself (device or peer memory). */
static const void *device_view(const cb_copy_ctx *ctx, const void *p) {
  const char *h = (const char *)ctx->host;
  if (ctx->host_mapped && (const char *)p >= h &&
      (const char *)p < h + (ctx->max_bytes ? ctx->max_bytes : 1))
    return (const char *)ctx->host_mapped + ((const char *)p - h);
  return p;
}

extern "C" void cb_copy_sm_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies,
                                cudaStream_t s) {
  const sm_state *st = (const sm_state *)ctx->state;
  unsigned char *dst = (unsigned char *)device_view(ctx, call->dst);
  const unsigned char *src = (const unsigned char *)device_view(ctx, call->src);
  size_t per_block = (size_t)SM_THREADS * 16 * SM_UNROLL;
  size_t blocks = (call->bytes + per_block - 1) / per_block;
  if (blocks < 1) blocks = 1;
  if (blocks > (size_t)st->max_blocks) blocks = (size_t)st->max_blocks;
  for (int i = 0; i < copies; i++) {
    sm_copy_kernel<<<(unsigned)blocks, SM_THREADS, 0, s>>>(dst, src, call->bytes);
    CB_CUDA(cudaGetLastError());
  }
}
