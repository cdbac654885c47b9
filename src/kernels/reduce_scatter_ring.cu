/* -k ring: Simple-protocol ring reduce-scatter for large messages.
 *
 * Around the ring (rank -> rank+1), the chain kernel (device/ring_chain.cuh:
 * channels, slices, FIFOs in the next rank's memory and their ordering)
 * runs, for each slice, n phases over the blocks of the input:
 *   0          send our block r-1                               -> next's FIFO
 *   1..n-2     receive block r-1-p, add ours, send               -> next's FIFO
 *   n-1        receive block r, add ours: the result              -> our output
 * Block k's chain starts at rank k+1 and ends, reduced over every rank, at
 * rank k: the reduce-scatter half of the all-reduce ring, with the same
 * tunables. Each element is reduced once, by one chain (fifo op ours at each
 * hop), and avg divides at its last step.
 *
 * In place: our output is block r of our input. It is read only in phase
 * n-1 (our contribution), by the thread that then writes the result over
 * it, loads before stores; phases 0..n-2 read other blocks only. Peers
 * never read our buffers: data is pushed into their FIFOs. */
#include <stdint.h>

#include "device/ring_chain.cuh"
#include "reduce_scatter_kernels.h"
#include "ring_mesh.h"

struct rs_ring_plan : cb_ring_reducing_moves {
  static __device__ __forceinline__ int phases(int n) { return n; }
  /* Phase p: block r - 1 - p. */
  static __device__ __forceinline__ int kind(int p, int n, int rank, const cb_ring_chain_args &,
                                             int *chunk) {
    if (n == 1) {
      *chunk = 0;
      return CB_SLICE_LOCAL;
    }
    *chunk = ((rank - 1 - p) % n + n) % n;
    if (p == 0) return CB_SLICE_SEND;
    return p < n - 1 ? CB_SLICE_REDUCE_SEND : CB_SLICE_FINAL;
  }
};

template <typename T, int OP>
static void launch_typed(const cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  cb_ring_chain_args a;
  a.in = call->send;
  a.out = call->recv;
  a.total = call->count * (size_t)ctx->nranks;
  a.chunk = call->count;
  a.in_stride = call->count;
  a.out_stride = 0; /* only the last phase writes, our block's result */
  a.out_of_place = 1;
  cb_ring_chain_launch<T, OP, rs_ring_plan>(ctx, a, stream);
}

extern "C" void cb_rs_ring_setup(cb_kernel_ctx *ctx) {
  cb_ring_chain_setup<rs_ring_plan, false>(ctx);
}

extern "C" void cb_rs_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  cb_ring_check_blocks(ctx, call, bytes);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, ctx, call, stream);
}
