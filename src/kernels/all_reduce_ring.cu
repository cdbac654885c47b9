/* -k ring: Simple-protocol ring all-reduce for large messages.
 *
 * The message is cut into nranks chunks; each chunk into one range per
 * channel (one block each); each range into slices. Around the ring
 * (rank -> rank+1), every channel runs, for each slice, 2n-1 phases:
 *   0          send our chunk r                          -> next's FIFO
 *   1..n-2     receive chunk r-p, add ours, send          -> next's FIFO
 *   n-1        receive chunk r+1, add ours: final result   -> our output, next's FIFO
 *   n..2n-3    receive a finished chunk                    -> our output, next's FIFO
 *   2n-2       receive the last finished chunk             -> our output
 * Each channel has a FIFO of `slots` slices in the receiver's scratch, so a
 * sender runs up to `slots` slices ahead, and NVLink carries both directions
 * at once (every rank sends to next while receiving from prev).
 *
 * Flags (per channel, in each rank's flag area, written by a peer):
 *   posted   - slices the previous rank has put into our FIFO (cumulative)
 *   consumed - slices the next rank has taken out of its FIFO (cumulative)
 * Both only grow, across launches too; each block keeps its own cumulative
 * sent/received counts on the device, so graph replays need no host.
 * Ordering, per slice:
 *   sender:   all threads store the slice into next's FIFO; __syncthreads();
 *             thread 0 st.release.sys posted. The barrier orders the other
 *             threads' stores before thread 0's release (causality through
 *             bar.sync is transitive in the PTX memory model), so the release
 *             publishes the whole slice.
 *   receiver: thread 0 ld.acquire.sys posted; __syncthreads(); all threads
 *             read the slot with ld.global.cg (L2, never a stale L1 line left
 *             from the slot's previous use). After the slot is read,
 *             __syncthreads(); thread 0 st.release.sys consumed, so the
 *             sender cannot overwrite a slot before every read of it is done.
 * Reduction order: chunk k is summed along the ring starting at rank k
 * (x_k + x_k+1 + ... + x_k-1, ranks mod n), once, by the rank that
 * finishes it, and its bits are then copied to every other rank: every
 * rank holds the same bits, though not those of a sum in rank order 0..n-1.
 * Alignment: 16-byte vector accesses to the caller's buffers, so the row
 * in all_reduce.c asks for 16-byte aligned buffers (.limits.align) and the
 * harness skips the other calls (-u) with the reason.
 * In place: each element belongs to one channel, whose phases run in order
 * with a barrier between slices; an element of our input is read (phases
 * 0..n-1) before the final result or a finished chunk is written over it
 * (phases n-1..2n-2, the read-then-write of phase n-1 by the same thread).
 * Peers never read our buffers: data is pushed into their FIFOs. */
#include <stdint.h>
#include <stdlib.h>

#include "all_reduce_kernels.h"
#include "cuda_check.h"
#include "device/dispatch.cuh"
#include "device/mutation.cuh"
#include "device/reduce.cuh"
#include "device/signal.cuh"
#include "device/type_op_funcs.cuh"
#include "env.h"
#include "grid_fit.h"
#include "peer_memory.h"

#define RING_THREADS 512
#define RING_UNROLL  4
#define FLAG_STRIDE  32 /* uint64_t words between flags: 256 bytes, no false sharing */

enum { PH_SEND, PH_REDUCE_SEND, PH_FINAL_SEND, PH_COPY_SEND, PH_COPY_LAST, PH_LOCAL };

typedef struct {
  const void *send;
  void *recv;
  size_t count;
  char *next_fifo;      /* next rank's scratch */
  const char *my_fifo;  /* our scratch */
  uint64_t *next_flags; /* next rank's flag area */
  uint64_t *prev_flags; /* previous rank's flag area */
  const uint64_t *my_flags;
  uint64_t *counters; /* ours: [2c] slices sent, [2c+1] slices received */
  size_t slice_bytes;
  int slots;
  int rank, nranks, prev, next;
  cb_spin_info spin;
} ring_args;

typedef struct {
  cb_peer_buffer fifo, flags;
  uint64_t *counters;
  int channels, slots;
  size_t slice_bytes;
} ring_state;

/* Flag words of channel c in a rank's flag area. */
__device__ __forceinline__ size_t posted_word(int c) {
  return (size_t)c * 2 * FLAG_STRIDE;
}
__device__ __forceinline__ size_t consumed_word(int c) {
  return posted_word(c) + FLAG_STRIDE;
}

__device__ __forceinline__ uint4 ld_cg(const uint4 *p) {
  return __ldcg(p);
}

/* Moves n elements at element offset off through phase PH. */
template <typename T, int OP, int PH>
__device__ void run_slice(const ring_args &a, size_t off, size_t n, const T *fifo_in, T *fifo_out) {
  const bool to_output =
      PH == PH_FINAL_SEND || PH == PH_COPY_SEND || PH == PH_COPY_LAST || PH == PH_LOCAL;
  const bool to_next =
      PH == PH_SEND || PH == PH_REDUCE_SEND || PH == PH_FINAL_SEND || PH == PH_COPY_SEND;
  const T *in = (const T *)a.send + off;
  T *out = (T *)a.recv + off;
  const size_t per_vec = sizeof(uint4) / sizeof(T);
  const size_t nvec = n / per_vec;
  const uint4 *in4 = (const uint4 *)in;
  const uint4 *fin4 = (const uint4 *)fifo_in;
  for (size_t v0 = threadIdx.x; v0 < nvec; v0 += (size_t)RING_THREADS * RING_UNROLL) {
    uint4 x[RING_UNROLL];
    /* All loads first, so RING_UNROLL of them are in flight at once. */
#pragma unroll
    for (int u = 0; u < RING_UNROLL; u++) {
      size_t v = v0 + (size_t)u * RING_THREADS;
      if (v < nvec) {
        if (PH == PH_LOCAL)
          x[u] = cb_finalize_pack<T, OP>(in4[v], a.nranks);
        else if (PH == PH_SEND)
          x[u] = in4[v];
        else if (PH == PH_COPY_SEND || PH == PH_COPY_LAST)
          x[u] = ld_cg(fin4 + v);
        else {
          uint4 r = cb_reduce_pack<T, OP>(ld_cg(fin4 + v), in4[v]);
          x[u] = PH == PH_FINAL_SEND ? cb_finalize_pack<T, OP>(r, a.nranks) : r;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < RING_UNROLL; u++) {
      size_t v = v0 + (size_t)u * RING_THREADS;
      if (v < nvec) {
        if (to_output) ((uint4 *)out)[v] = x[u];
        if (to_next) ((uint4 *)fifo_out)[v] = x[u];
      }
    }
  }
  /* The tail: fewer than one vector, only at the very end of the message. */
  for (size_t e = nvec * per_vec + threadIdx.x; e < n; e += RING_THREADS) {
    T x;
    if (PH == PH_LOCAL)
      x = in[e];
    else if (PH == PH_SEND)
      x = in[e];
    else if (PH == PH_COPY_SEND || PH == PH_COPY_LAST)
      x = __ldcg(fifo_in + e);
    else
      x = cb_apply<T, OP>(__ldcg(fifo_in + e), in[e]);
    if ((PH == PH_FINAL_SEND || PH == PH_LOCAL) && OP == CB_AVG) x = cb_divide<T>(x, a.nranks);
    if (to_output) out[e] = x;
    if (to_next) fifo_out[e] = x;
  }
}

__host__ __device__ __forceinline__ size_t ceil_div(size_t a, size_t b) {
  return (a + b - 1) / b;
}
__host__ __device__ __forceinline__ size_t round_up(size_t a, size_t b) {
  return ceil_div(a, b) * b;
}

/* Phase p of 2n-1: which chunk, and what to do with it. */
__device__ __forceinline__ int phase_kind(int p, int n, int rank, int *chunk) {
  if (n == 1) {
    *chunk = 0;
    return PH_LOCAL;
  }
  if (p == 0) {
    *chunk = rank;
    return PH_SEND;
  }
  if (p < n - 1) {
    *chunk = ((rank - p) % n + n) % n;
    return PH_REDUCE_SEND;
  }
  *chunk = ((rank + 1 - (p - (n - 1))) % n + n) % n;
  if (p == n - 1) return PH_FINAL_SEND;
  return p < 2 * n - 2 ? PH_COPY_SEND : PH_COPY_LAST;
}

template <typename T, int OP>
__global__ void __launch_bounds__(RING_THREADS) ring_kernel(ring_args a) {
  const int c = blockIdx.x, channels = gridDim.x, n = a.nranks;
  const size_t per_vec = sizeof(uint4) / sizeof(T);
  const size_t chunk_elems = round_up(ceil_div(a.count, n), per_vec);
  const size_t ch = round_up(ceil_div(chunk_elems, channels), per_vec); /* channel's range */
  const size_t c0 = (size_t)c * ch;
  const size_t slice_elems = a.slice_bytes / sizeof(T);
  uint64_t sent = a.counters[2 * c], received = a.counters[2 * c + 1];
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
      int k, kind = phase_kind(p, n, a.rank, &k);
      size_t k0 = (size_t)k * chunk_elems;
      size_t klen = k0 < a.count ? (a.count - k0 < chunk_elems ? a.count - k0 : chunk_elems) : 0;
      size_t clen = c0 < klen ? (klen - c0 < ch ? klen - c0 : ch) : 0;
      size_t len = s0 < clen ? (clen - s0 < slice_elems ? clen - s0 : slice_elems) : 0;
      const bool recv_phase = kind != PH_SEND && kind != PH_LOCAL;
      const bool send_phase = kind != PH_COPY_LAST && kind != PH_LOCAL;
      if (threadIdx.x == 0) {
        if (recv_phase && !CB_MUTANT_SKIPS(CB_WAIT_FIFO))
          cb_wait_geq(a.my_flags + posted_word(c), received + 1, a.spin, a.prev);
        if (send_phase && sent + 1 > (uint64_t)a.slots)
          cb_wait_geq(a.my_flags + consumed_word(c), sent + 1 - a.slots, a.spin, a.next);
      }
      __syncthreads();
      const T *fin =
          (const T *)(a.my_fifo + ((size_t)c * a.slots + received % a.slots) * a.slice_bytes);
      T *fout = (T *)(a.next_fifo + ((size_t)c * a.slots + sent % a.slots) * a.slice_bytes);
      size_t off = k0 + c0 + s0;
      switch (kind) {
      case PH_SEND:
        run_slice<T, OP, PH_SEND>(a, off, len, fin, fout);
        break;
      case PH_REDUCE_SEND:
        run_slice<T, OP, PH_REDUCE_SEND>(a, off, len, fin, fout);
        break;
      case PH_FINAL_SEND:
        run_slice<T, OP, PH_FINAL_SEND>(a, off, len, fin, fout);
        break;
      case PH_COPY_SEND:
        run_slice<T, OP, PH_COPY_SEND>(a, off, len, fin, fout);
        break;
      case PH_COPY_LAST:
        run_slice<T, OP, PH_COPY_LAST>(a, off, len, fin, fout);
        break;
      default:
        run_slice<T, OP, PH_LOCAL>(a, off, len, fin, fout);
        break;
      }
      __syncthreads();
      if (threadIdx.x == 0) {
        if (send_phase) cb_store_release_sys(a.next_flags + posted_word(c), sent + 1);
        if (recv_phase) cb_store_release_sys(a.prev_flags + consumed_word(c), received + 1);
      }
      sent += send_phase;
      received += recv_phase;
    }
  }
  if (threadIdx.x == 0) {
    a.counters[2 * c] = sent;
    a.counters[2 * c + 1] = received;
  }
}

template <typename T, int OP>
static void launch_typed(const ring_args *a, int channels, cudaStream_t s) {
  ring_kernel<T, OP><<<channels, RING_THREADS, 0, s>>>(*a);
}

CB_DEFINE_TYPE_OP_FUNCS(ring_funcs, ring_kernel)

extern "C" void cb_ar_ring_setup(cb_kernel_ctx *ctx) {
  /* Tunables; they must be equal on every rank. Defaults from sweeps on
   * 2 x H200 at 1 GiB float (results/h200x2/2026-11-30-kernels): 16
   * channels of 128 KiB slices gave 164 GB/s, 32 x 512 KiB 311, 64 x 512 KiB
   * 350, 96 x 512 KiB 357, 128 x 512 KiB 364; 1 MiB slices and 8 slots did
   * not help. Every channel's block must be resident at once (a channel
   * waits on its neighbours' same channel), and every rank must run the
   * same channels: the count is fitted, alike on every rank, to what every
   * GPU holds (128 blocks of RING_THREADS fit an H100/H200). */
  int channels = (int)cb_env_long("CB_RING_CHANNELS", 128, 1, 128);
  const void *funcs[CB_TYPE_OP_FUNCS];
  channels = cb_fit_grid_agreed(ctx, funcs, ring_funcs(funcs), RING_THREADS, 0, 0, channels, 1);
  if (!channels) return; /* refused: nothing set up, ctx->state stays NULL */
  ring_state *st = (ring_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  st->channels = channels;
  st->slots = (int)cb_env_long("CB_RING_SLOTS", 4, 2, 64);
  st->slice_bytes = (size_t)cb_env_long("CB_RING_SLICE", 512 << 10, 1 << 10, 64 << 20);
  if (st->slice_bytes % 16) cb_fatal("CB_RING_SLICE must be a multiple of 16 bytes");
  size_t fifo = (size_t)st->channels * st->slots * st->slice_bytes;
  cb_peer_alloc(ctx->world, fifo, &st->fifo);
  cb_peer_alloc(ctx->world, (size_t)st->channels * 2 * FLAG_STRIDE * sizeof(uint64_t), &st->flags);
  CB_CUDA(cudaMalloc((void **)&st->counters, (size_t)st->channels * 2 * sizeof(uint64_t)));
  CB_CUDA(cudaMemset(st->counters, 0, (size_t)st->channels * 2 * sizeof(uint64_t)));
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

extern "C" void cb_ar_ring_teardown(cb_kernel_ctx *ctx) {
  ring_state *st = (ring_state *)ctx->state;
  if (!st) return; /* the setup refused the run */
  cb_peer_free(ctx->world, &st->fifo);
  cb_peer_free(ctx->world, &st->flags);
  CB_CUDA(cudaFree(st->counters));
  free(st);
  ctx->state = NULL;
}

extern "C" void cb_ar_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const ring_state *st = (const ring_state *)ctx->state;
  if (call->count == 0) return;
  int n = ctx->nranks, next = (ctx->rank + 1) % n, prev = (ctx->rank + n - 1) % n;
  ring_args a;
  a.send = call->send;
  a.recv = call->recv;
  a.count = call->count;
  a.next_fifo = (char *)st->fifo.ptr[next];
  a.my_fifo = (const char *)st->fifo.ptr[ctx->rank];
  a.next_flags = (uint64_t *)st->flags.ptr[next];
  a.prev_flags = (uint64_t *)st->flags.ptr[prev];
  a.my_flags = (const uint64_t *)st->flags.ptr[ctx->rank];
  a.counters = st->counters;
  a.slice_bytes = st->slice_bytes;
  a.slots = st->slots;
  a.rank = ctx->rank;
  a.nranks = n;
  a.prev = prev;
  a.next = next;
  a.spin = CB_SPIN_INFO(ctx);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &a, st->channels, stream);
  CB_CUDA(cudaGetLastError());
}
