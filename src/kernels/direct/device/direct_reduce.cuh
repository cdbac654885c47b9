/* The direct reduce kernel, shared by reduce_scatter -k direct and
 * all_reduce -k direct: a rank reduces one run of elements over every
 * rank's input, loading the peers' runs itself with 16-byte loads over
 * NVLink, and stores the result into one or more outputs (its own, or
 * every rank's, over NVLink). Nothing is copied twice and no scratch is
 * used. The run is split over the kernel's blocks as contiguous ranges of
 * vectors; each thread keeps a few vectors in flight per source rank. The
 * sum runs in rank order 0, 1, .., n-1 whatever the reducing rank, so the
 * bits of a result never depend on which rank computed it.
 *
 * Handshakes (device/handshake.cuh), per block b, with block b of every
 * peer; every rank launches the same number of blocks for the same call:
 *
 *   start  START(e) to every peer, then wait for every peer's START(e). We
 *          are about to load from the peer's input and (all-reduce) store
 *          into its output. The peer's kernel of epoch e is running, so
 *          everything its stream did before it is complete: its input for
 *          this call is written, and whatever read its previous output is
 *          done (the harness validates, poisons and refills on the stream;
 *          a user's stream might do it with any kernel).
 *   end    END(e) to every peer, then wait for every peer's END(e). Our
 *          END(e) says our block's loads from that peer are performed and
 *          its stores into that peer's output published (bar.sync orders
 *          every thread's accesses before the release store, and a release
 *          orders loads as well as stores). Waiting for every peer's END(e)
 *          in every block means, when our kernel ends, no peer loads from
 *          our input any more (the stream may overwrite it) and every peer's
 *          stores into our output have landed (later work on our stream
 *          sees them).
 *
 * Epochs: one counter per block on the device, advanced by the block at its
 * end, so a CUDA graph replay (frozen kernel arguments) still advances it.
 *
 * In place (the caller's argument): every element of the run is loaded
 * from every input and stored to every output by one thread, loads first,
 * and no other thread of any rank touches those addresses in the call. */
#ifndef CB_DEVICE_DIRECT_REDUCE_CUH
#define CB_DEVICE_DIRECT_REDUCE_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/cuda_check.h"
#include "collbench/device/dispatch.cuh"
#include "direct_mesh.h"
#include "direct_sync.cuh"
#include "collbench/device/handshake.cuh"
#include "collbench/device/reduce.cuh"
#include "collbench/device/type_op_funcs.cuh"
#include "collbench/device/vec.cuh"

#define CB_DIRECT_UNROLL 4 /* vectors in flight per thread and source rank */

typedef struct {
  const char *in[CB_MAX_PEERS]; /* rank q's contribution to the run, as we address it */
  char *out[CB_MAX_PEERS];      /* where the result goes, nout of them */
  int nout;
  size_t bytes;       /* bytes of the run (0: this rank only handshakes) */
  cb_vec_split split; /* head / vectors / tail of the run */
  cb_direct_sync sync;
} cb_direct_reduce_args;

template <typename T, int OP>
__device__ __forceinline__ void cb_direct_reduce_vectors(const cb_direct_reduce_args &a) {
  const int n = a.sync.nranks;
  const size_t per = (a.split.nvec + gridDim.x - 1) / gridDim.x;
  const size_t v0 = (size_t)blockIdx.x * per;
  const size_t v1 = v0 + per < a.split.nvec ? v0 + per : a.split.nvec;
  for (size_t v = v0 + threadIdx.x; v < v1; v += (size_t)CB_DIRECT_THREADS * CB_DIRECT_UNROLL) {
    uint4 acc[CB_DIRECT_UNROLL];
    const uint4 *in0 = (const uint4 *)(a.in[0] + a.split.head);
#pragma unroll
    for (int u = 0; u < CB_DIRECT_UNROLL; u++) {
      size_t w = v + (size_t)u * CB_DIRECT_THREADS;
      if (w < v1) acc[u] = cb_pre_pack<T, OP>(cb_ld_cg16(in0 + w), 0);
    }
    for (int q = 1; q < n; q++) {
      const uint4 *inq = (const uint4 *)(a.in[q] + a.split.head);
      uint4 x[CB_DIRECT_UNROLL];
#pragma unroll
      for (int u = 0; u < CB_DIRECT_UNROLL; u++) {
        size_t w = v + (size_t)u * CB_DIRECT_THREADS;
        if (w < v1) x[u] = cb_ld_cg16(inq + w);
      }
#pragma unroll
      for (int u = 0; u < CB_DIRECT_UNROLL; u++)
        acc[u] = cb_reduce_input_pack<T, OP>(acc[u], x[u], q);
    }
    for (int k = 0; k < a.nout; k++) {
      uint4 *out4 = (uint4 *)(a.out[k] + a.split.head);
#pragma unroll
      for (int u = 0; u < CB_DIRECT_UNROLL; u++) {
        size_t w = v + (size_t)u * CB_DIRECT_THREADS;
        if (w < v1) out4[w] = cb_finalize_pack<T, OP>(acc[u], n);
      }
    }
  }
}

/* Head and tail elements (none for the harness's sizes), over the grid. */
template <typename T, int OP>
__device__ __forceinline__ void cb_direct_reduce_scalars(const cb_direct_reduce_args &a) {
  const size_t head = a.split.head / sizeof(T), tail = a.split.tail / sizeof(T);
  const size_t count = a.bytes / sizeof(T);
  const size_t nscalar = cb_vec_singles(head, tail, count);
  for (size_t k = (size_t)blockIdx.x * CB_DIRECT_THREADS + threadIdx.x; k < nscalar;
       k += (size_t)gridDim.x * CB_DIRECT_THREADS) {
    size_t i = cb_vec_single_at(head, tail, k);
    T acc = cb_pre<T, OP>(cb_ld_cg((const T *)a.in[0] + i), 0);
    for (int q = 1; q < a.sync.nranks; q++)
      acc = cb_apply_input<T, OP>(acc, cb_ld_cg((const T *)a.in[q] + i), q);
    if (OP == CB_AVG) acc = cb_divide<T>(acc, a.sync.nranks);
    for (int o = 0; o < a.nout; o++) ((T *)a.out[o])[i] = acc;
  }
}

template <typename T, int OP>
__global__ void __launch_bounds__(CB_DIRECT_THREADS)
    cb_direct_reduce_kernel(cb_direct_reduce_args a) {
  cb_direct_block_call(a.sync, [&] {
    cb_direct_reduce_vectors<T, OP>(a);
    cb_direct_reduce_scalars<T, OP>(a);
  });
}

/* Every instantiation, for cb_direct_fit. */
CB_DEFINE_TYPE_OP_FUNCS(cb_direct_reduce_funcs, cb_direct_reduce_kernel)

/* A direct reduce kernel's setup: the shared state, its grid fitted. */
static inline void cb_direct_reduce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply,
                                          const char *prefix) {
  cb_direct_setup(ctx, prefix);
  const void *funcs[CB_TYPE_OP_FUNCS];
  cb_direct_fit(ctx, reply, funcs, cb_direct_reduce_funcs(funcs));
}

CB_DEFINE_TYPE_OP_LAUNCH(cb_direct_reduce_launch, cb_direct_reduce_kernel, cb_direct_reduce_args)

/* Enqueues the call a describes (its in, out, nout, bytes and split set by
 * the caller) on `blocks` blocks, the same on every rank: a's sync is the
 * mesh's and ours. */
static inline void cb_direct_reduce_enqueue(cb_kernel_ctx *ctx, cb_direct_reduce_args *a,
                                            const cb_call *call, int blocks, cudaStream_t stream) {
  a->sync = cb_direct_sync_of(ctx);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, cb_direct_reduce_launch, a, blocks, CB_DIRECT_THREADS,
                      stream);
  CB_CUDA(cudaGetLastError());
}

#endif
