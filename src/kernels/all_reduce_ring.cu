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
 * Large messages (CB_AR_RING_CE_FROM bytes and up): SM stores over NVLink
 * top out below what copy engines move (on 2 x H200, both directions busy:
 * 366 GB/s against 392, results/h200x2/2026-12-01-s7), and the all-gather
 * half only copies. So the message is cut into CB_AR_RING_CE_PIECES pieces,
 * each an all-reduce of its own: the ring reduce-scatter
 * (device/ring_rs_plan.cuh) leaves chunk r of the piece, reduced, in our
 * output, and copy engines spread it into every peer's output
 * (ce_spread.h) while the ring reduces the next piece. The reduce-scatter
 * that finished our chunk took every peer's contribution to it in this
 * call, which is the guarantee ce_spread.h asks for (in place too: each
 * peer read its input where our chunk lands before sending it). Every
 * element is still reduced once, by one chain, and then only copied. */
#include <stdint.h>
#include <stdlib.h>

#include "all_reduce_kernels.h"
#include "ce_spread.h"
#include "device/ring_chain.cuh"
#include "device/ring_rs_plan.cuh"
#include "env.h"
#include "error.h"
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

/* The large-message path's state, in the ring state's extra. */
typedef struct {
  cb_ce_spread spread;
  size_t from; /* bytes: messages this large and larger take this path */
  int pieces;  /* per message (rank_chunk.h cuts them) */
} ar_ring_ce;

/* Piece by piece: the ring reduce-scatter of the piece, then its chunk r
 * spread by the copy engines while the next piece is reduced. */
template <typename T, int OP>
static void launch_with_ce(cb_kernel_ctx *ctx, ar_ring_ce *ce, const cb_call *call,
                           cudaStream_t stream) {
  for (int k = 0; k < ce->pieces; k++) {
    const cb_piece_chunk p =
        cb_piece_chunk_of(call->count, ce->pieces, ctx->nranks, ctx->rank, sizeof(T), k);
    if (p.total == 0) break; /* the pieces ran out: on every rank alike */
    cb_ring_chain_args a;
    a.in = (const T *)call->send + p.first;
    a.out = (T *)call->recv + p.first;
    a.total = p.total;
    a.chunk = p.chunk;
    a.in_stride = a.out_stride = p.chunk;
    a.out_of_place = call->send != call->recv;
    cb_ring_chain_launch<T, OP, cb_ring_rs_plan>(ctx, a, stream);
    cb_ce_spread_piece(ctx, &ce->spread, (size_t)k, (const char *)((T *)a.out + p.at),
                       p.len * sizeof(T), stream);
  }
  cb_ce_spread_end(ctx, &ce->spread, stream);
}

template <typename T, int OP>
static void launch_typed(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  ar_ring_ce *ce = (ar_ring_ce *)((cb_ring_state *)ctx->state)->extra;
  if (ce && call->count > 0 && call->count * sizeof(T) >= ce->from) {
    launch_with_ce<T, OP>(ctx, ce, call, stream);
    return;
  }
  cb_ring_chain_args a;
  a.in = call->send;
  a.out = call->recv;
  a.total = call->count;
  a.chunk = cb_chunk_elems(call->count, ctx->nranks, sizeof(T));
  a.in_stride = a.out_stride = a.chunk;
  a.out_of_place = call->send != call->recv;
  cb_ring_chain_launch<T, OP, ar_ring_plan>(ctx, a, stream);
}

extern "C" void cb_ar_ring_setup(cb_kernel_ctx *ctx) {
  cb_ring_chain_setup_two<ar_ring_plan, cb_ring_rs_plan>(ctx);
  cb_ring_state *st = (cb_ring_state *)ctx->state;
  /* Tunables, equal on every rank: off (0) until measured on GPUs. */
  const long from = cb_env_long("CB_AR_RING_CE_FROM", 0, 0, 1L << 40);
  const long pieces = cb_env_long("CB_AR_RING_CE_PIECES", 4, 1, CB_CE_SPREAD_MAX_PIECES);
  if (st->channels == 0 || from == 0 || ctx->nranks == 1) return; /* alike on every rank */
  ar_ring_ce *ce = (ar_ring_ce *)calloc(1, sizeof *ce);
  if (!ce) cb_fatal("out of host memory");
  ce->from = (size_t)from;
  ce->pieces = (int)pieces;
  /* Ranks sharing a GPU keep the SM all-gather (ce_spread.h says why). */
  if (cb_ce_spread_setup(ctx, &ce->spread))
    st->extra = ce;
  else
    free(ce);
}

extern "C" void cb_ar_ring_teardown(cb_kernel_ctx *ctx) {
  cb_ring_state *st = (cb_ring_state *)ctx->state;
  ar_ring_ce *ce = (ar_ring_ce *)st->extra;
  if (ce) {
    cb_ce_spread_free(ctx, &ce->spread);
    free(ce);
    st->extra = NULL;
  }
  cb_ring_teardown(ctx);
}

extern "C" void cb_ar_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  cb_ring_check_aligned(ctx, call);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, ctx, call, stream);
}
