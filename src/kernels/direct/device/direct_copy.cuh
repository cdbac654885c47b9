/* The data path of the direct kernels that copy one run into several
 * buffers (broadcast's root into every peer's output, sendrecv into the
 * next rank's): plain 16-byte loads from the run and 16-byte stores into
 * each destination, over NVLink for a peer's buffer. */
#ifndef CB_DEVICE_DIRECT_COPY_CUH
#define CB_DEVICE_DIRECT_COPY_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/device/vec.cuh"
#include "direct_mesh.h"
#include "collbench/peer.h"

#define CB_DIRECT_UNROLL 4 /* vectors a thread loads before it stores them */

/* Where a run goes: to[0 .. count - 1], stored in that order. */
typedef struct {
  char *to[CB_MAX_PEERS];
  int count;
} cb_copy_dsts;

/* Block blockIdx.x's share of copying src[0, bytes) into every destination,
 * with CB_DIRECT_THREADS threads per block: a contiguous range of 16-byte
 * vectors per block, strided over its threads, CB_DIRECT_UNROLL loads in
 * flight per thread before the stores; the head and tail bytes of `split`
 * (none for the harness's sizes) spread over the grid. Each thread stores
 * its vectors into every destination in turn, so every destination's link
 * is busy at once. The destinations are picked with constant indices (the
 * loop is unrolled over CB_MAX_PEERS): see cb_ll_scratch_of. */
__device__ __forceinline__ void cb_direct_copy(const char *src, const cb_copy_dsts &d,
                                               const cb_vec_split &split, size_t bytes) {
  if (d.count == 0) return; /* nothing to store: not even a load */
  const size_t per = (split.nvec + gridDim.x - 1) / gridDim.x;
  const size_t v0 = (size_t)blockIdx.x * per;
  const size_t v1 = v0 + per < split.nvec ? v0 + per : split.nvec;
  const uint4 *src4 = (const uint4 *)(src + split.head);
  for (size_t v = v0 + threadIdx.x; v < v1; v += (size_t)CB_DIRECT_THREADS * CB_DIRECT_UNROLL) {
    uint4 x[CB_DIRECT_UNROLL];
#pragma unroll
    for (int u = 0; u < CB_DIRECT_UNROLL; u++) {
      size_t w = v + (size_t)u * CB_DIRECT_THREADS;
      if (w < v1) x[u] = src4[w];
    }
#pragma unroll
    for (int k = 0; k < CB_MAX_PEERS; k++) {
      if (k >= d.count) break;
      uint4 *d4 = (uint4 *)(d.to[k] + split.head);
#pragma unroll
      for (int u = 0; u < CB_DIRECT_UNROLL; u++) {
        size_t w = v + (size_t)u * CB_DIRECT_THREADS;
        if (w < v1) d4[w] = x[u];
      }
    }
  }
  const size_t nscalar = cb_vec_singles(split.head, split.tail, bytes);
  for (size_t s = (size_t)blockIdx.x * CB_DIRECT_THREADS + threadIdx.x; s < nscalar;
       s += (size_t)gridDim.x * CB_DIRECT_THREADS) {
    size_t off = cb_vec_single_at(split.head, split.tail, s);
    char c = src[off];
#pragma unroll
    for (int k = 0; k < CB_MAX_PEERS; k++)
      if (k < d.count) d.to[k][off] = c;
  }
}

#endif
