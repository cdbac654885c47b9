/* What a ring kernel's block does with one slice of a step (the FIFO around
 * it is ring_fifo.cuh): take each element from our input, from the slot
 * received, or both reduced (slot op input); finalize it (avg divides by
 * the rank count) on the last reduction; store it into our output, into
 * the slot sent, or both. The kinds of step the ring kernels use:
 *
 *   kind                  from          final   to
 *   CB_SLICE_SEND         in                    fifo
 *   CB_SLICE_SEND_KEEP    in                    out, fifo   (all-gather's own block)
 *   CB_SLICE_REDUCE_SEND  fifo op in            fifo
 *   CB_SLICE_FINAL_SEND   fifo op in    yes     out, fifo
 *   CB_SLICE_FINAL        fifo op in    yes     out
 *   CB_SLICE_COPY_SEND    fifo                  out, fifo
 *   CB_SLICE_COPY         fifo                  out
 *   CB_SLICE_LOCAL        in            yes     out         (one rank)
 *
 * Any alignment: the pointers a slice touches share their address mod 16
 * (its slots are at the call's offset into them, ring_span.h), so the
 * elements before the first 16-byte boundary (the head) and after the last
 * whole vector (the tail) are moved singly, and the body as 16-byte
 * vectors, RING_SLICE_UNROLL of them loaded by each thread before any is
 * stored (so that many loads are in flight at once); pointers that do not
 * share it (never the harness's) move every element singly
 * (cb_ring_split_of). Each element is read and written by one thread,
 * loads before stores: in place (out == in) a thread overwrites only what
 * it has read. */
#ifndef CB_DEVICE_RING_SLICE_CUH
#define CB_DEVICE_RING_SLICE_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/device/reduce.cuh"
#include "collbench/device/vec.cuh"
#include "ring_span.h"

#define CB_RING_THREADS   512
#define RING_SLICE_UNROLL 4

/* Bits of a kind: where an element comes from, and where it goes. */
#define CB_SLICE_FROM_IN   1
#define CB_SLICE_FROM_FIFO 2
#define CB_SLICE_FINALIZE  4
#define CB_SLICE_TO_OUT    8
#define CB_SLICE_TO_FIFO   16

enum {
  CB_SLICE_SEND = CB_SLICE_FROM_IN | CB_SLICE_TO_FIFO,
  CB_SLICE_SEND_KEEP = CB_SLICE_FROM_IN | CB_SLICE_TO_OUT | CB_SLICE_TO_FIFO,
  CB_SLICE_REDUCE_SEND = CB_SLICE_FROM_IN | CB_SLICE_FROM_FIFO | CB_SLICE_TO_FIFO,
  CB_SLICE_FINAL_SEND = CB_SLICE_FROM_IN | CB_SLICE_FROM_FIFO | CB_SLICE_FINALIZE |
                        CB_SLICE_TO_OUT | CB_SLICE_TO_FIFO,
  CB_SLICE_FINAL = CB_SLICE_FROM_IN | CB_SLICE_FROM_FIFO | CB_SLICE_FINALIZE | CB_SLICE_TO_OUT,
  CB_SLICE_COPY_SEND = CB_SLICE_FROM_FIFO | CB_SLICE_TO_OUT | CB_SLICE_TO_FIFO,
  CB_SLICE_COPY = CB_SLICE_FROM_FIFO | CB_SLICE_TO_OUT,
  CB_SLICE_LOCAL = CB_SLICE_FROM_IN | CB_SLICE_FINALIZE | CB_SLICE_TO_OUT,
};

/* One 16-byte vector, by kind; fifo_in is read through L2 (see ring_fifo.cuh).
 * Our input enters the reduction as rank `rank`'s (cb_pre: mulsum scales it). */
template <typename T, int OP, int KIND>
__device__ __forceinline__ uint4 cb_slice_vec(const uint4 *in, const uint4 *fifo_in, size_t v,
                                              int nranks, int rank) {
  const bool from_in = KIND & CB_SLICE_FROM_IN, from_fifo = KIND & CB_SLICE_FROM_FIFO;
  const bool final_ = KIND & CB_SLICE_FINALIZE;
  if (from_in && !from_fifo) {
    uint4 x = cb_pre_pack<T, OP>(in[v], rank);
    return final_ ? cb_finalize_pack<T, OP>(x, nranks) : x;
  }
  if (!from_in) return cb_ld_cg16(fifo_in + v);
  uint4 r = cb_reduce_input_pack<T, OP>(cb_ld_cg16(fifo_in + v), in[v], rank);
  return final_ ? cb_finalize_pack<T, OP>(r, nranks) : r;
}

/* One element after the vectors, by kind. */
template <typename T, int OP, int KIND>
__device__ __forceinline__ T cb_slice_elem(const T *in, const T *fifo_in, size_t e, int nranks,
                                           int rank) {
  const bool from_in = KIND & CB_SLICE_FROM_IN, from_fifo = KIND & CB_SLICE_FROM_FIFO;
  T x;
  if (from_in && !from_fifo)
    x = cb_pre<T, OP>(in[e], rank);
  else if (!from_in)
    x = cb_ld_cg(fifo_in + e);
  else
    x = cb_apply_input<T, OP>(cb_ld_cg(fifo_in + e), in[e], rank);
  if ((KIND & CB_SLICE_FINALIZE) && OP == CB_AVG) x = cb_divide<T>(x, nranks);
  return x;
}

/* The address mod 16 every pointer the kind touches shares, or
 * CB_RING_NO_VECTORS when they do not share one. */
template <int KIND>
__device__ __forceinline__ size_t cb_slice_mis(const void *in, const void *fifo_in, const void *out,
                                               const void *fifo_out) {
  const void *ptrs[4] = {
      KIND & CB_SLICE_FROM_IN ? in : NULL, KIND & CB_SLICE_FROM_FIFO ? fifo_in : NULL,
      KIND & CB_SLICE_TO_OUT ? out : NULL, KIND & CB_SLICE_TO_FIFO ? fifo_out : NULL};
  size_t mis = CB_RING_NO_VECTORS;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    if (!ptrs[i]) continue;
    const size_t m = (uintptr_t)ptrs[i] % 16;
    if (mis == CB_RING_NO_VECTORS)
      mis = m;
    else if (m != mis)
      return CB_RING_NO_VECTORS;
  }
  return mis;
}

/* One element, by kind, into out and fifo_out as the kind says. */
template <typename T, int OP, int KIND>
__device__ __forceinline__ void cb_slice_one(const T *in, const T *fifo_in, T *out, T *fifo_out,
                                             size_t e, int nranks, int rank) {
  T x = cb_slice_elem<T, OP, KIND>(in, fifo_in, e, nranks, rank);
  if (KIND & CB_SLICE_TO_OUT) out[e] = x;
  if (KIND & CB_SLICE_TO_FIFO) fifo_out[e] = x;
}

/* Moves n elements of a slice: in and out at the slice's place in our
 * buffers, fifo_in the slice received, fifo_out where the slice sent goes
 * (each used only if the kind says so). Called by every thread of the
 * block. nranks and rank: the ring's size and our rank in it, for what a
 * reduction needs (avg divides by nranks, mulsum scales our input by our
 * scalar); kinds that only move data ignore them. */
template <typename T, int OP, int KIND>
__device__ void cb_ring_slice(const T *in, const T *fifo_in, T *out, T *fifo_out, size_t n,
                              int nranks, int rank) {
  const bool to_out = KIND & CB_SLICE_TO_OUT, to_fifo = KIND & CB_SLICE_TO_FIFO;
  const cb_ring_split sp =
      cb_ring_split_of(cb_slice_mis<KIND>(in, fifo_in, out, fifo_out), n, sizeof(T));
  const size_t nvec = sp.nvec;
  const uint4 *in4 = KIND & CB_SLICE_FROM_IN ? (const uint4 *)(in + sp.head) : NULL;
  const uint4 *fin4 = KIND & CB_SLICE_FROM_FIFO ? (const uint4 *)(fifo_in + sp.head) : NULL;
  uint4 *out4 = to_out ? (uint4 *)(out + sp.head) : NULL;
  uint4 *fout4 = to_fifo ? (uint4 *)(fifo_out + sp.head) : NULL;
  for (size_t v0 = threadIdx.x; v0 < nvec; v0 += (size_t)CB_RING_THREADS * RING_SLICE_UNROLL) {
    uint4 x[RING_SLICE_UNROLL];
#pragma unroll
    for (int u = 0; u < RING_SLICE_UNROLL; u++) {
      size_t v = v0 + (size_t)u * CB_RING_THREADS;
      if (v < nvec) x[u] = cb_slice_vec<T, OP, KIND>(in4, fin4, v, nranks, rank);
    }
#pragma unroll
    for (int u = 0; u < RING_SLICE_UNROLL; u++) {
      size_t v = v0 + (size_t)u * CB_RING_THREADS;
      if (v < nvec) {
        if (to_out) out4[v] = x[u];
        if (to_fifo) fout4[v] = x[u];
      }
    }
  }
  /* The head, then the tail: fewer than one vector each, singly. */
  const size_t singles = cb_vec_singles(sp.head, sp.tail, n);
  for (size_t i = threadIdx.x; i < singles; i += CB_RING_THREADS) {
    const size_t e = cb_vec_single_at(sp.head, sp.tail, i);
    cb_slice_one<T, OP, KIND>(in, fifo_in, out, fifo_out, e, nranks, rank);
  }
}

/* Without our rank: for kernels that only move data (their OP is a
 * placeholder). Mulsum scales our input by our rank's scalar, so a mulsum
 * instance must say which rank we are: it fails to compile here. */
template <typename T, int OP, int KIND>
__device__ __forceinline__ void cb_ring_slice(const T *in, const T *fifo_in, T *out, T *fifo_out,
                                              size_t n, int nranks) {
  static_assert(OP != CB_MULSUM, "mulsum scales our input: pass our rank to cb_ring_slice");
  cb_ring_slice<T, OP, KIND>(in, fifo_in, out, fifo_out, n, nranks, 0);
}

/* cb_ring_slice of a kind known only at run time, among the kinds a kernel
 * lists (KINDS...): each listed kind is compiled once, and only those. */
template <typename T, int OP>
__device__ __forceinline__ void cb_ring_slice_of(int, const T *, const T *, T *, T *, size_t, int,
                                                 int) {}
template <typename T, int OP, int KIND, int... MORE>
__device__ __forceinline__ void cb_ring_slice_of(int kind, const T *in, const T *fifo_in, T *out,
                                                 T *fifo_out, size_t n, int nranks, int rank) {
  if (kind == KIND)
    cb_ring_slice<T, OP, KIND>(in, fifo_in, out, fifo_out, n, nranks, rank);
  else
    cb_ring_slice_of<T, OP, MORE...>(kind, in, fifo_in, out, fifo_out, n, nranks, rank);
}

#endif
