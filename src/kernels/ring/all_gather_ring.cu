/* -k ring: Simple-protocol ring all-gather for large messages.
 *
 * Around the ring (rank -> rank+1), the chain kernel (device/ring_chain.cuh:
 * channels, slices, FIFOs in the next rank's memory and their ordering)
 * runs, for each slice, n phases over the blocks of the output:
 *   0          send our block r (out of place also into our output) -> next's FIFO
 *   1..n-2     receive block r-p into our output, send it on          -> next's FIFO
 *   n-1        receive block r+1 into our output
 * Every block travels n-1 hops, one per phase, and NVLink carries both
 * directions at once (every rank sends to next while receiving from prev):
 * the all-gather half of the all-reduce ring, with the same tunables.
 *
 * The bytes are moved as 16-byte vectors whatever the datatype (nothing is
 * reduced), at any alignment of the buffers (ring_slice.cuh): the
 * harness's blocks are whole vectors, so every slice starts at the
 * buffers' address mod 16.
 *
 * In place: our input is block r of our output; phase 0 only reads it, and
 * the blocks we receive go to the other blocks. Peers never read our
 * buffers: data is pushed into their FIFOs. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "device/ring_chain.cuh"
#include "ring_mesh.h"

struct ag_ring_plan {
  static __device__ __forceinline__ int phases(int n) { return n; }
  /* Phase p: block r - p. */
  static __device__ __forceinline__ int kind(int p, int n, int rank, const cb_ring_chain_args &a,
                                             int *chunk) {
    *chunk = ((rank - p) % n + n) % n;
    if (n == 1) return CB_SLICE_LOCAL;
    if (p == 0) return a.out_of_place ? CB_SLICE_SEND_KEEP : CB_SLICE_SEND;
    return p < n - 1 ? CB_SLICE_COPY_SEND : CB_SLICE_COPY;
  }
  template <typename T, int OP>
  static __device__ __forceinline__ void move(int kind, const T *in, const T *fin, T *out, T *fout,
                                              size_t len, int n, int rank) {
    cb_ring_slice_of<T, OP, CB_SLICE_SEND, CB_SLICE_SEND_KEEP, CB_SLICE_COPY_SEND, CB_SLICE_COPY,
                     CB_SLICE_LOCAL>(kind, in, fin, out, fout, len, n, rank);
  }
};

/* Bytes: a copy reduces nothing, so one instance serves every datatype. */
static void cb_ag_ring_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ring_chain_setup<ag_ring_plan, true>(ctx, reply);
}

static void cb_ag_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  cb_ring_check_blocks(ctx, bytes);
  cb_ring_chain_args a;
  a.in = call->send;
  a.out = call->recv;
  a.total = bytes * (size_t)ctx->nranks;
  a.chunk = bytes;
  a.in_stride = 0; /* every phase that reads the input reads our block */
  a.out_stride = bytes;
  a.out_of_place = (const char *)call->send != (const char *)call->recv + ctx->rank * bytes;
  cb_ring_chain_launch<uint8_t, CB_SUM, ag_ring_plan>(ctx, a, stream);
}

CB_KERNEL_ROW(cb_all_gather_ring) =
    CB_RING_ROW("Simple ring: every block travels n-1 hops around the ring, chunked and "
                "pipelined, one ring per block (channel), through FIFOs in the next rank's memory",
                CB_BOTH_PLACEMENTS, cb_ag_ring_setup, cb_ring_teardown, cb_ag_ring_launch);
CB_REGISTER_KERNEL(all_gather, cb_all_gather_ring,
                   "Simple protocol: every block travels n-1 hops around the ring (rank → rank+1), "
                   "chunked and pipelined, one ring per block (channel), through FIFOs in the next "
                   "rank's memory (the all-gather half of all_reduce's ring, same tunables); for "
                   "large messages");
