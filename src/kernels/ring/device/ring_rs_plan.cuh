/* The ring reduce-scatter plan (ring_chain.cuh), shared by reduce_scatter
 * -k ring and the all_reduce ring's reduce-scatter for large messages.
 * For each slice, n phases over the chunks:
 *   0          send our chunk r-1                               -> next's FIFO
 *   1..n-2     receive chunk r-1-p, add ours, send               -> next's FIFO
 *   n-1        receive chunk r, add ours: the result              -> our output
 * Chunk k's chain starts at rank k+1 and ends, reduced over every rank, at
 * rank k. Each element is reduced once, by one chain (fifo op ours at each
 * hop), and avg divides at its last step. Every rank's contribution to
 * chunk k is read and sent before rank k can finish it.
 *
 * In place (our output's chunk r is our input's chunk r): it is read only
 * in phase n-1 (our contribution), by the thread that then writes the
 * result over it, loads before stores; phases 0..n-2 read other chunks
 * only. Peers never read our buffers: data is pushed into their FIFOs. */
#ifndef CB_DEVICE_RING_RS_PLAN_CUH
#define CB_DEVICE_RING_RS_PLAN_CUH

#include "ring_chain.cuh"

struct cb_ring_rs_plan : cb_ring_reducing_moves {
  static __device__ __forceinline__ int phases(int n) { return n; }
  /* Phase p: chunk r - 1 - p. */
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

#endif
