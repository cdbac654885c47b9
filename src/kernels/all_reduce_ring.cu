/* -k ring: Simple-protocol ring all-reduce for large messages.
 *
 * The message is cut into nranks chunks; each chunk into one range per
 * channel (one block each); each range into slices (ring_span.h). Around
 * the ring (rank -> rank+1, link 1 of the FIFO pipes, ring_mesh.h), every
 * channel runs, for each slice, 2n-1 phases:
 *   0          send our chunk r                          -> next's FIFO
 *   1..n-2     receive chunk r-p, add ours, send          -> next's FIFO
 *   n-1        receive chunk r+1, add ours: final result   -> our output, next's FIFO
 *   n..2n-3    receive a finished chunk                    -> our output, next's FIFO
 *   2n-2       receive the last finished chunk             -> our output
 * Each channel has a FIFO of `slots` slices in the receiver's scratch, so a
 * sender runs up to `slots` slices ahead, and NVLink carries both directions
 * at once (every rank sends to next while receiving from prev). The waits,
 * signals and their ordering are device/ring_fifo.cuh's; what a phase does
 * with a slice is device/ring_slice.cuh's.
 *
 * Every element is reduced once, by the chain of its chunk, and then only
 * copied, so every rank holds the same bits.
 *
 * In place: each element belongs to one channel, whose phases run in order
 * with a barrier between slices; an element of our input is read (phases
 * 0..n-1) before the final result or a finished chunk is written over it
 * (phases n-1..2n-2, the read-then-write of phase n-1 by the same thread).
 * Peers never read our buffers: data is pushed into their FIFOs. */
#include <stdint.h>

#include "all_reduce_kernels.h"
#include "cuda_check.h"
#include "device/dispatch.cuh"
#include "device/ring_fifo.cuh"
#include "device/ring_slice.cuh"
#include "ring_mesh.h"
#include "ring_span.h"

typedef struct {
  const void *send;
  void *recv;
  size_t count;
  cb_ring_mesh m;
  cb_spin_info spin;
} ring_args;

/* Phase p of 2n-1: which chunk, and what to do with it. */
__device__ __forceinline__ int phase_kind(int p, int n, int rank, int *chunk) {
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
__global__ void __launch_bounds__(CB_RING_THREADS) ring_kernel(ring_args a) {
  const int c = blockIdx.x, channels = gridDim.x, n = a.m.nranks;
  const size_t per_vec = sizeof(uint4) / sizeof(T);
  const size_t chunk_elems = cb_round_up(cb_ceil_div(a.count, n), per_vec);
  const size_t ch = cb_ring_span(chunk_elems, channels, per_vec); /* channel's range */
  const size_t c0 = (size_t)c * ch;
  const size_t slice_elems = a.m.slice_bytes / sizeof(T);
  const cb_ring_link l = cb_ring_link_of(a.m, 1, c);
  cb_ring_pos pos = cb_ring_load_pos(a.m, l);
  const int phases = n == 1 ? 1 : 2 * n - 1;
  /* Slices outside, phases inside: every phase of slice j is done before
   * slice j+1, so what a rank sends in phase p its next rank takes in phase
   * p+1 of the same slice, and no FIFO ever has to hold a whole phase.
   * (Phases outside would deadlock: all ranks sending, none receiving, as
   * soon as a phase had more slices than the FIFO has slots.) Every rank
   * runs the same slices and phases, empty ones included, so the flag
   * counts always match. */
  for (size_t s0 = 0; c0 < chunk_elems && s0 < ch; s0 += slice_elems) {
    for (int p = 0; p < phases; p++) {
      int k, kind = phase_kind(p, n, a.m.rank, &k);
      size_t k0 = (size_t)k * chunk_elems;
      size_t klen = cb_ring_take(a.count, k0, chunk_elems);
      size_t len = cb_ring_take(cb_ring_take(klen, c0, ch), s0, slice_elems);
      const bool recv = kind & CB_SLICE_FROM_FIFO;
      const bool send = kind & CB_SLICE_TO_FIFO;
      cb_ring_wait(a.m, l, pos, recv, send, a.spin);
      const T *fin = (const T *)cb_ring_in_slot(a.m, l, pos);
      T *fout = (T *)cb_ring_out_slot(a.m, l, pos);
      size_t off = k0 + c0 + s0;
      const T *in = (const T *)a.send + off;
      T *out = (T *)a.recv + off;
      switch (kind) {
      case CB_SLICE_SEND:
        cb_ring_slice<T, OP, CB_SLICE_SEND>(in, fin, out, fout, len, n);
        break;
      case CB_SLICE_REDUCE_SEND:
        cb_ring_slice<T, OP, CB_SLICE_REDUCE_SEND>(in, fin, out, fout, len, n);
        break;
      case CB_SLICE_FINAL_SEND:
        cb_ring_slice<T, OP, CB_SLICE_FINAL_SEND>(in, fin, out, fout, len, n);
        break;
      case CB_SLICE_COPY_SEND:
        cb_ring_slice<T, OP, CB_SLICE_COPY_SEND>(in, fin, out, fout, len, n);
        break;
      case CB_SLICE_COPY:
        cb_ring_slice<T, OP, CB_SLICE_COPY>(in, fin, out, fout, len, n);
        break;
      default:
        cb_ring_slice<T, OP, CB_SLICE_LOCAL>(in, fin, out, fout, len, n);
        break;
      }
      cb_ring_signal(a.m, l, pos, recv, send);
    }
  }
  cb_ring_store_pos(a.m, l, pos);
}

template <typename T, int OP>
static void launch_typed(const ring_args *a, int channels, cudaStream_t s) {
  ring_kernel<T, OP><<<channels, CB_RING_THREADS, 0, s>>>(*a);
}

template <typename T, int OP> static void instance(const void **fn) {
  *fn = (const void *)ring_kernel<T, OP>;
}

static const void *kernel_of(cb_dtype dtype, cb_redop op) {
  const void *fn = NULL;
  CB_DISPATCH_TYPE_OP(dtype, op, instance, &fn);
  return fn;
}

extern "C" void cb_ar_ring_setup(cb_kernel_ctx *ctx) {
  const cb_ring_spec spec = {1, CB_RING_THREADS, kernel_of};
  cb_ring_setup(ctx, &spec);
}

extern "C" void cb_ar_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_ring_state *st = (const cb_ring_state *)ctx->state;
  if (call->count == 0) return;
  cb_ring_check_aligned(ctx, call);
  ring_args a;
  a.send = call->send;
  a.recv = call->recv;
  a.count = call->count;
  a.m = cb_ring_mesh_for(ctx, st);
  a.spin = CB_SPIN_INFO(ctx);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &a, st->channels, stream);
  CB_CUDA(cudaGetLastError());
}
