/* The direct store kernel, shared by all_gather and alltoall -k direct: a
 * rank stores one run of `bytes` bytes into every rank's buffer, with
 * 16-byte stores straight over NVLink: no scratch, no second copy. The run
 * for rank q is src + q * src_stride (alltoall: block q of the input), or
 * with ONE_RUN src for every rank, loaded once (all-gather: our block); it
 * goes to dst[q], rank q's buffer as we address it (NULL: nowhere, e.g. our
 * own block in place). Each rank splits the run over the kernel's blocks
 * (contiguous ranges of vectors); each thread loads a few vectors of its
 * range and stores them into every destination, peers first (from the next
 * rank on, so ranks spread over the links), its own last. Every rank does
 * this at once, so every link carries data both ways.
 *
 * Handshakes (device/handshake.cuh), per block b, with block b of every
 * peer; every rank launches the same number of blocks for the same call:
 *
 *   start  START(e) to every peer, then wait for every peer's START(e).
 *          We are about to store into the peer's buffer. The peer's kernel
 *          of epoch e is running, so everything its stream did before it is
 *          complete: in particular whatever read its output of the previous
 *          call (the harness validates the output after timing, and between
 *          sizes poisons it and refills inputs on the stream, then meets at a
 *          host barrier; a user's stream might read it with any kernel). An
 *          earlier epoch's kernel of that peer cannot still be running
 *          either. Without this wait a fast rank's call e+1 could overwrite a
 *          peer's output while the peer's stream still reads call e's.
 *   data   stores into the peers' buffers (and ours).
 *   end    END(e) to every peer, then wait for every peer's END(e). The
 *          release publishes our block's stores into that peer's buffer
 *          (bar.sync before it orders the other threads' stores, see
 *          handshake.cuh); the acquire of every peer's END(e), by every
 *          block, means every byte stored into our buffer has landed before
 *          our kernel ends, so later work on our stream (validation) sees it.
 *
 * Epochs: one counter per block on the device, advanced by the block at its
 * end, so a CUDA graph replay (frozen kernel arguments) still advances it;
 * block b runs in the same launches on every rank, so its counters agree.
 *
 * A skip_end_wait mutant (device/mutation.cuh) skips the end
 * handshake: a kernel may then end before the peers' stores into its
 * output have landed, and the check that follows on its stream must see
 * it. */
#ifndef CB_DEVICE_DIRECT_STORE_CUH
#define CB_DEVICE_DIRECT_STORE_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/cuda_check.h"
#include "direct_mesh.h"
#include "direct_sync.cuh"
#include "collbench/device/handshake.cuh"
#include "collbench/device/peer_pick.cuh"
#include "collbench/device/vec.cuh"

#define CB_DIRECT_STORE_UNROLL 4 /* vectors loaded per thread before they are stored */

typedef struct {
  const char *src;         /* the run for rank q: src + q * src_stride (ONE_RUN: src) */
  size_t src_stride;       /* ignored with ONE_RUN */
  char *dst[CB_MAX_PEERS]; /* where the run for rank q goes, as we address it; NULL: nowhere */
  size_t bytes;            /* bytes of a run */
  cb_vec_split split;      /* head / vectors / tail of every run */
  cb_direct_sync sync;
} cb_direct_store_args;

/* This block's vectors [v0, v1) of every run, UNROLL at a time per thread. */
template <bool ONE_RUN>
__device__ __forceinline__ void cb_direct_store_vectors(const cb_direct_store_args &a, size_t v0,
                                                        size_t v1) {
  const int n = a.sync.nranks;
  for (size_t v = v0 + threadIdx.x; v < v1;
       v += (size_t)CB_DIRECT_THREADS * CB_DIRECT_STORE_UNROLL) {
    uint4 x[CB_DIRECT_STORE_UNROLL];
    for (int p = 1; p <= n; p++) {
      const int q = (a.sync.rank + p) % n;
      char *d = cb_peer_pick(a.dst, q);
      if (ONE_RUN ? p == 1 : d != NULL) {
        const uint4 *src4 =
            (const uint4 *)(a.src + (ONE_RUN ? 0 : (size_t)q * a.src_stride) + a.split.head);
#pragma unroll
        for (int u = 0; u < CB_DIRECT_STORE_UNROLL; u++) {
          size_t w = v + (size_t)u * CB_DIRECT_THREADS;
          if (w < v1) x[u] = src4[w];
        }
      }
      if (!d) continue;
      uint4 *d4 = (uint4 *)(d + a.split.head);
#pragma unroll
      for (int u = 0; u < CB_DIRECT_STORE_UNROLL; u++) {
        size_t w = v + (size_t)u * CB_DIRECT_THREADS;
        if (w < v1) d4[w] = x[u];
      }
    }
  }
}

/* Head and tail bytes of every run (none for the harness's sizes), over
 * the grid. */
template <bool ONE_RUN>
__device__ __forceinline__ void cb_direct_store_scalars(const cb_direct_store_args &a) {
  const size_t nscalar = cb_vec_singles(a.split.head, a.split.tail, a.bytes);
  for (size_t k = (size_t)blockIdx.x * CB_DIRECT_THREADS + threadIdx.x; k < nscalar;
       k += (size_t)gridDim.x * CB_DIRECT_THREADS) {
    size_t off = cb_vec_single_at(a.split.head, a.split.tail, k);
    for (int p = 1; p <= a.sync.nranks; p++) {
      const int q = (a.sync.rank + p) % a.sync.nranks;
      char *d = cb_peer_pick(a.dst, q);
      if (d) d[off] = a.src[(ONE_RUN ? 0 : (size_t)q * a.src_stride) + off];
    }
  }
}

template <bool ONE_RUN>
__global__ void __launch_bounds__(CB_DIRECT_THREADS)
    cb_direct_store_kernel(cb_direct_store_args a) {
  cb_direct_block_call(a.sync, [&] {
    /* Vectors: a contiguous range per block, strided over its threads. */
    const int b = blockIdx.x;
    const size_t per = (a.split.nvec + gridDim.x - 1) / gridDim.x;
    const size_t v0 = (size_t)b * per;
    cb_direct_store_vectors<ONE_RUN>(a, v0, v0 + per < a.split.nvec ? v0 + per : a.split.nvec);
    cb_direct_store_scalars<ONE_RUN>(a);
  });
}

/* Setup (collective): the direct mesh with tunables <prefix>_BLOCKS and
 * <prefix>_BLOCK_BYTES, its grid checked for residency. */
template <bool ONE_RUN>
static void cb_direct_store_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply, const char *prefix) {
  cb_direct_setup(ctx, prefix);
  const void *func = (const void *)cb_direct_store_kernel<ONE_RUN>;
  cb_direct_fit(ctx, reply, &func, 1);
}

/* One call: our runs (src, src_stride) into dst[q], rank q's buffer as we
 * address it (NULL: nothing for rank q); runs of `bytes` bytes of elem-byte
 * elements. Every rank launches the same blocks for the call, whatever it
 * stores: blocks by the bytes of n - 1 runs. */
template <bool ONE_RUN>
static void cb_direct_store_launch_to(cb_kernel_ctx *ctx, const char *src, size_t src_stride,
                                      char *const dst[CB_MAX_PEERS], size_t bytes, size_t elem,
                                      cudaStream_t stream) {
  if (bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  const int n = ctx->nranks;
  cb_direct_store_args a;
  int same = 1;
  for (int q = 0; q < CB_MAX_PEERS; q++) {
    a.dst[q] = q < n ? dst[q] : NULL;
    if (a.dst[q])
      same &= cb_same_mod16(src, a.dst[q]) &&
              cb_same_mod16(src, src + (ONE_RUN ? 0 : (size_t)q * src_stride));
  }
  a.src = src;
  a.src_stride = src_stride;
  a.bytes = bytes;
  a.split = cb_vec_split_make(src, same, bytes, elem);
  a.sync = cb_direct_sync_of(ctx);
  /* Blocks by the bytes a rank sends (a run to each of n-1 peers): the same
   * on every rank for the same call. */
  int blocks = cb_direct_blocks(st, cb_direct_run_traffic(n, bytes));
  cb_direct_store_kernel<ONE_RUN><<<blocks, CB_DIRECT_THREADS, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}

/* One call: our runs (src, src_stride) into block `mine` of every rank's
 * output (mine: that block of our own, in the harness's buffers), ours
 * too unless skip_own; runs of `bytes` bytes of elem-byte elements. */
template <bool ONE_RUN>
static void cb_direct_store_launch(cb_kernel_ctx *ctx, const char *src, size_t src_stride,
                                   const char *mine, size_t bytes, size_t elem, int skip_own,
                                   cudaStream_t stream) {
  if (bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  char *dst[CB_MAX_PEERS];
  for (int q = 0; q < CB_MAX_PEERS; q++)
    dst[q] = q < ctx->nranks ? (char *)cb_direct_peer_ptr(ctx, st, q, mine) : NULL;
  if (skip_own) dst[ctx->rank] = NULL;
  cb_direct_store_launch_to<ONE_RUN>(ctx, src, src_stride, dst, bytes, elem, stream);
}

#endif
