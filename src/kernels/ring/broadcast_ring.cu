/* -k ring: Simple-protocol broadcast for large messages, a pipelined chain.
 *
 * The root pushes its input through the FIFO pipe to the next rank (link 1
 * of ring_mesh.h: slots of `slice` bytes in the receiver's memory, one pipe
 * per channel, each channel one block); every other rank takes each slice
 * out of its FIFO into its output and, unless it is the last of the chain
 * (root - 1), pushes it on to the next rank in the same pass. Every link
 * of the chain carries the message once, whatever the rank count, where the
 * root of -k direct / -k ce sends n - 1 copies over its own links; a slice
 * reaches the end of the chain n - 1 steps after it left the root, which
 * large messages (many slices per channel) hide.
 *
 * The message is cut into one contiguous span per channel and each span
 * into slices (ring_span.h), alike on every rank. Per slice, one step:
 *   root    input -> next rank's FIFO          (and its own output out of place)
 *   middle  FIFO -> output and next rank's FIFO
 *   last    FIFO -> output
 * with the waits and signals of device/ring_fifo.cuh. No deadlock: a chain
 * has no cycle (the last rank sends nothing to the root). The pipe from
 * root - 1 to the root is idle in the call; both its ends leave their
 * counts alone, so they still agree when the root changes.
 *
 * The data is moved as bytes (16-byte vectors, ring_slice.cuh with a byte
 * element and no op): one kernel for every datatype.
 *
 * In place (send == recv): the root only reads its buffer; the others only
 * write theirs. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "device/ring_bytes.cuh"
#include "collbench/device/ring_fifo.cuh"
#include "device/ring_slice.cuh"
#include "ring_mesh.h"
#include "ring_span.h"

typedef struct {
  const uint8_t *send; /* the root's input (read on the root only) */
  uint8_t *recv;
  size_t bytes;
  size_t at; /* where a slice sits in its FIFO slot */
  int root;
  cb_ring_mesh m;
  cb_spin_info spin;
} bcring_args;

#define SLICE_ARGS uint8_t, CB_SUM /* bytes, no op */

/* Our place in the chain: 0 the root, n - 1 the last. */
enum { ROOT, ROOT_KEEP, MIDDLE, LAST };

template <int ROLE>
__device__ __forceinline__ void bcring_channel(const bcring_args &a, size_t c0, size_t clen) {
  const size_t slice = a.m.slice_bytes;
  const size_t ns = cb_ceil_div(clen, slice);
  const cb_ring_link l = cb_ring_link_of(a.m, 1, blockIdx.x);
  cb_ring_pos pos = cb_ring_load_pos(a.m, l);
  const bool send = ROLE != LAST, recv = ROLE == MIDDLE || ROLE == LAST;
  constexpr int kind = ROLE == ROOT        ? CB_SLICE_SEND
                       : ROLE == ROOT_KEEP ? CB_SLICE_SEND_KEEP
                       : ROLE == MIDDLE    ? CB_SLICE_COPY_SEND
                                           : CB_SLICE_COPY;
  for (size_t j = 0; j < ns; j++) {
    cb_ring_wait(a.m, l, pos, recv, send, a.spin);
    const size_t off = c0 + j * slice, len = cb_ring_take(clen, j * slice, slice);
    const uint8_t *fin = (const uint8_t *)cb_ring_in_slot(a.m, l, pos, a.at);
    uint8_t *fout = (uint8_t *)cb_ring_out_slot(a.m, l, pos, a.at);
    cb_ring_slice<SLICE_ARGS, kind>(a.send + off, fin, a.recv + off, fout, len, a.m.nranks);
    cb_ring_signal(a.m, l, pos, recv, send);
  }
  cb_ring_store_pos(a.m, l, pos);
}

__global__ void __launch_bounds__(CB_RING_THREADS) bcring_kernel(bcring_args a) {
  const int n = a.m.nranks, k = (a.m.rank - a.root + n) % n;
  const size_t span = cb_ring_span(a.bytes, gridDim.x, 16);
  const size_t c0 = (size_t)blockIdx.x * span;
  const size_t clen = cb_ring_take(a.bytes, c0, span);
  if (n == 1) { /* the root alone: its own output, out of place */
    if (a.send != a.recv)
      cb_ring_slice<SLICE_ARGS, CB_SLICE_FROM_IN | CB_SLICE_TO_OUT>(a.send + c0, NULL, a.recv + c0,
                                                                    NULL, clen, 1);
  } else if (k == 0 && a.send == a.recv) {
    bcring_channel<ROOT>(a, c0, clen);
  } else if (k == 0) {
    bcring_channel<ROOT_KEEP>(a, c0, clen);
  } else if (k < n - 1) {
    bcring_channel<MIDDLE>(a, c0, clen);
  } else {
    bcring_channel<LAST>(a, c0, clen);
  }
}

static void cb_bc_ring_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ring_bytes_setup<bcring_args, bcring_kernel>(ctx, reply);
}

static void cb_bc_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  bcring_args a;
  if (!cb_ring_bytes_args_for(ctx, call, &a)) return;
  a.root = call->root;
  cb_ring_bytes_launch<bcring_args, bcring_kernel>(ctx, a, stream);
}

CB_KERNEL_ROW(cb_broadcast_ring) =
    CB_RING_ROW("Simple protocol: a pipelined chain root -> root+1 -> ..., slices through FIFOs "
                "in the next rank's memory (one per channel), each rank keeping and forwarding",
                CB_BOTH_PLACEMENTS, cb_bc_ring_setup, cb_ring_teardown, cb_bc_ring_launch);
CB_REGISTER_KERNEL(
    broadcast, cb_broadcast_ring,
    "Simple protocol, a pipelined chain root → root+1 → …: the root pushes slices "
    "through FIFOs in the next rank's memory (one per channel), each rank copies "
    "them into its output and forwards them; every link carries the message once, so "
    "it is the one for large messages at 3 or more ranks");
