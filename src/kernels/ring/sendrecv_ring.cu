/* -k ring: Simple-protocol sendrecv for large messages.
 *
 * Each rank pushes its input through the FIFO pipe to the next rank (link
 * 1 of ring_mesh.h: slots of `slice` bytes in the receiver's memory, one
 * pipe per channel, each channel one block) and copies what the previous
 * rank pushed to it out of its own FIFO into its output. The message is
 * cut into one contiguous span per channel and each span into slices
 * (ring_span.h); every rank cuts alike, so sender and receiver count the
 * same slices.
 *
 * Step j of a channel sends slice j (input -> next rank's FIFO) and
 * receives slice j - 1 (our FIFO -> output), with one wait and one signal
 * (device/ring_fifo.cuh): the local copy of a slice overlaps the push of
 * the next. No deadlock: step j waits for the previous rank's step j - 1
 * (slice j - 1 posted) and for the next rank's step j - slots + 1 (the
 * slot free), both earlier steps, since slots >= 2 (CB_RING_SLOTS).
 *
 * The data is moved as bytes (16-byte vectors, ring_slice.cuh with a byte
 * element and no op): one kernel for every datatype.
 *
 * In place (send == recv): step j reads slice j of the buffer and writes
 * slice j - 1, which step j - 1 of the same block has read (the barriers of
 * the wait and signal between them); no other block touches the span, and
 * peers write only our FIFO. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "device/ring_bytes.cuh"
#include "collbench/device/ring_fifo.cuh"
#include "device/ring_slice.cuh"
#include "ring_mesh.h"
#include "ring_span.h"

typedef struct {
  const uint8_t *send;
  uint8_t *recv;
  size_t bytes;
  size_t at; /* where a slice sits in its FIFO slot */
  cb_ring_mesh m;
  cb_spin_info spin;
} srring_args;

/* The pieces of a slice, as ring_slice.cuh moves them: bytes, no op. */
#define SLICE_ARGS uint8_t, CB_SUM

/* One rank is its own next rank: a local copy of the channel's span, no
 * pipe (not inlined: it would cost the pipe path registers). */
__device__ __noinline__ void srring_alone(const uint8_t *src, uint8_t *dst, size_t len) {
  cb_ring_slice<SLICE_ARGS, CB_SLICE_FROM_IN | CB_SLICE_TO_OUT>(src, NULL, dst, NULL, len, 1);
}

__global__ void __launch_bounds__(CB_RING_THREADS) srring_kernel(srring_args a) {
  const size_t span = cb_ring_span(a.bytes, gridDim.x, 16);
  const size_t c0 = (size_t)blockIdx.x * span;
  const size_t clen = cb_ring_take(a.bytes, c0, span);
  const size_t slice = a.m.slice_bytes;
  const size_t ns = cb_ceil_div(clen, slice);
  if (a.m.nranks == 1) {
    srring_alone(a.send + c0, a.recv + c0, clen);
    return;
  }
  const cb_ring_link l = cb_ring_link_of(a.m, 1, blockIdx.x);
  cb_ring_pos pos = cb_ring_load_pos(a.m, l);
  for (size_t j = 0; j <= ns; j++) {
    const bool send = j<ns, recv = j> 0;
    cb_ring_wait(a.m, l, pos, recv, send, a.spin);
    if (send)
      cb_ring_slice<SLICE_ARGS, CB_SLICE_SEND>(a.send + c0 + j * slice, NULL, NULL,
                                               (uint8_t *)cb_ring_out_slot(a.m, l, pos, a.at),
                                               cb_ring_take(clen, j * slice, slice), a.m.nranks);
    if (recv)
      cb_ring_slice<SLICE_ARGS, CB_SLICE_COPY>(
          NULL, (const uint8_t *)cb_ring_in_slot(a.m, l, pos, a.at), a.recv + c0 + (j - 1) * slice,
          NULL, cb_ring_take(clen, (j - 1) * slice, slice), a.m.nranks);
    cb_ring_signal(a.m, l, pos, recv, send);
  }
  cb_ring_store_pos(a.m, l, pos);
}

static void cb_sr_ring_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ring_bytes_setup<srring_args, srring_kernel>(ctx, reply);
}

static void cb_sr_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  srring_args a;
  if (!cb_ring_bytes_args_for(ctx, call, &a)) return;
  cb_ring_bytes_launch<srring_args, srring_kernel>(ctx, a, stream);
}

CB_KERNEL_ROW(cb_sendrecv_ring) =
    CB_RING_ROW("Simple protocol: every rank pushes its input in slices through FIFOs in the "
                "next rank's memory (one per channel), the receiver copies them into its output",
                CB_BOTH_PLACEMENTS, cb_sr_ring_setup, cb_ring_teardown, cb_sr_ring_launch);
CB_REGISTER_KERNEL(
    sendrecv, cb_sendrecv_ring,
    "Simple protocol: every rank pushes its input in slices through FIFOs in the "
    "next rank's memory (one per channel), the receiver copies them into its output, "
    "the copy of one slice overlapping the push of the next; in and out of place");
