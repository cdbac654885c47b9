/* -k ring: Simple-protocol ring all-reduce for large messages.
 *
 * The message is cut into nranks chunks of ceil(count/n) elements rounded
 * up to whole vectors; around the ring, the chain kernel
 * (device/ring_chain.cuh: channels, slices, FIFOs and their ordering) runs,
 * for each slice, 2n-1 phases:
 *   0          send our chunk r                          -> next's FIFO
 *   1..n-2     receive chunk r-p, add ours, send          -> next's FIFO
 *   n-1        receive chunk r+1, add ours: final result   -> our output, next's FIFO
 *   n..2n-3    receive a finished chunk                    -> our output, next's FIFO
 *   2n-2       receive the last finished chunk             -> our output
 * that is, a reduce-scatter (reduce_scatter_ring.cu) whose last phase also
 * sends, then an all-gather (all_gather_ring.cu) of the results. Each
 * channel has a FIFO of `slots` slices in the receiver's scratch, so a
 * sender runs up to `slots` slices ahead, and NVLink carries both
 * directions at once (every rank sends to next while receiving from prev).
 *
 * Every element is reduced once, by the chain of its chunk, and then only
 * copied, so every rank holds the same bits.
 *
 * In place: each element belongs to one channel, whose phases run in order
 * with a barrier between slices; an element of our input is read (phases
 * 0..n-1) before the final result or a finished chunk is written over it
 * (phases n-1..2n-2, the read-then-write of phase n-1 by the same thread).
 * Peers never read our buffers: data is pushed into their FIFOs.
 *
 * A variant that left the all-gather half to copy engines (the ring's
 * reduce-scatter per piece, copy engines spreading each reduced chunk) was
 * measured on 2 x H200 and removed: 361-367 GB/s at 1 GiB with 2 pieces,
 * 351-355 with 4, 328-332 with 8, against 364 for this ring alone, and
 * slower at every size from 4 MiB (docs/kernels.md, "The ring's defaults"). */
#include "collbench/kernel.h"
#include "device/ring_chain.cuh"
#include "rank_chunk.h"
#include "ring_mesh.h"
#include "ring_span.h"

struct ar_ring_plan {
  static __device__ __forceinline__ int phases(int n) { return n == 1 ? 1 : 2 * n - 1; }
  /* Phase p of 2n-1: which chunk, and what to do with it. */
  static __device__ __forceinline__ int kind(int p, int n, int rank, const cb_ring_chain_args &,
                                             int *chunk) {
    if (n == 1) {
      *chunk = 0;
      return CB_SLICE_LOCAL;
    }
    if (p == 0) {
      *chunk = rank;
      return CB_SLICE_SEND;
    }
    if (p < n - 1) {
      *chunk = ((rank - p) % n + n) % n;
      return CB_SLICE_REDUCE_SEND;
    }
    *chunk = ((rank + 1 - (p - (n - 1))) % n + n) % n;
    if (p == n - 1) return CB_SLICE_FINAL_SEND;
    return p < 2 * n - 2 ? CB_SLICE_COPY_SEND : CB_SLICE_COPY;
  }
  template <typename T, int OP>
  static __device__ __forceinline__ void move(int kind, const T *in, const T *fin, T *out, T *fout,
                                              size_t len, int n, int rank) {
    cb_ring_slice_of<T, OP, CB_SLICE_SEND, CB_SLICE_REDUCE_SEND, CB_SLICE_FINAL_SEND,
                     CB_SLICE_COPY_SEND, CB_SLICE_COPY, CB_SLICE_LOCAL>(kind, in, fin, out, fout,
                                                                        len, n, rank);
  }
};

/* The call's chain: n chunks of whole vectors, one per rank. */
static cb_ring_chain_args ar_ring_args(const cb_kernel_ctx *ctx, const cb_call *call) {
  cb_ring_chain_args a;
  a.in = call->send;
  a.out = call->recv;
  a.total = call->count;
  a.chunk = cb_chunk_elems(call->count, ctx->nranks, cb_dtype_size(call->dtype));
  a.in_stride = a.out_stride = a.chunk;
  a.out_of_place = call->send != call->recv;
  return a;
}

static void cb_ar_ring_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ring_chain_setup<ar_ring_plan, false>(ctx, reply);
}

static void cb_ar_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  cb_ring_chain_launch_call<ar_ring_plan>(ctx, call, ar_ring_args(ctx, call), stream);
}

CB_KERNEL_ROW(cb_all_reduce_ring) =
    CB_RING_ROW("Simple ring: chunked, pipelined reduce-scatter then all-gather, one ring "
                "per block (channel), through FIFOs in the next rank's memory",
                CB_BOTH_PLACEMENTS, cb_ar_ring_setup, cb_ring_teardown, cb_ar_ring_launch);
CB_REGISTER_KERNEL(all_reduce, cb_all_reduce_ring,
                   "Simple protocol: chunked, pipelined ring reduce-scatter then all-gather, one "
                   "ring per block (channel), through FIFOs in the next rank's memory; for large "
                   "messages");
