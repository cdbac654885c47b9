/* -k ring: all-to-all through the FIFO pipes (Simple protocol).
 *
 * Rank r's block q of its input goes to block r of rank q's output. An
 * all-to-all has no forwarding: each block crosses one link once. So the
 * "ring" here is n-1 ring-ordered steps: in step d (1..n-1) rank r sends
 * its block for rank r+d into r+d's FIFO (link d of ring_mesh.h, whose
 * slots live in the receiver's memory) and receives rank r-d's block for
 * us from its own FIFO into our output. Every block is cut the same way
 * (one span per channel, slices of the FIFO's slice size: ring_span.h).
 *
 * Slices outside, steps inside: for each slice, a channel runs the n-1
 * steps in order, so every link carries a slice of every message at once,
 * the FIFOs of all links stay in use, and no step waits for another step's
 * whole block (steps outside would drain the pipeline n-1 times per call).
 * Every rank walks the same slices and steps, empty ones included, so all
 * links advance alike: one position (slices sent = slices received) serves
 * every link of a channel, and is stored back into each of them.
 *
 * Deadlock: a step's send is a FIFO step of its own (wait for a free slot,
 * store, post) before its receive (wait for the slice, copy, free the
 * slot). If a step both waited for the receive and the free slot before
 * moving anything, every rank could wait on the rank behind it in the
 * cycle r -> r+d: all posts of a step would wait on posts of the same step.
 * Sends never wait on receives of the same step; the earliest step any rank
 * waits in can always finish (its send's slot was freed by a receive the
 * receiver has already done; its receive's slice is posted by a send that
 * cannot be waiting), so every rank gets through.
 *
 * Our own block is copied within our memory by each channel, slice by
 * slice between its sends and its receives. Copied before the steps, it
 * kept NVLink idle while every channel copied at once: the likely reason
 * this ring reached 309 GB/s at 1 GiB on 2 x H200, where all_gather's ring,
 * which writes its own output as it sends, reaches 360; in this order it
 * reached 351 (docs/kernels.md, "The alltoall ring's own block"), against
 * 363 for sendrecv's ring, which moves the same bytes over NVLink and has
 * no own block. With CB_A2A_RING_OWN_COPY=ce a
 * copy engine copies the own block instead, on a side stream forked before
 * the kernel and joined after it, so the channels only send and receive.
 * With ranks sharing a GPU the channels copy it (a note says so): there a
 * side stream's copy can queue behind another rank's spinning kernel in a
 * shared in-order hardware queue, and the next call's kernel waits for the
 * copy (ce_rooted.cu saw such a hang).
 *
 * Out of place only: in place, block r-d of our buffer would be overwritten
 * in step d by rank r-d's data while our own data for rank r-d still sits
 * there, to be sent in step n-d (d < n-d for the first half of the steps).
 * nccl-tests 2.19.6 times an in-place alltoall and does not check it (its
 * #wrong column says N/A); we skip it. */
#include <stdint.h>
#include <stdlib.h>

#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "collbench/device/ring_fifo.cuh"
#include "device/ring_slice.cuh"
#include "collbench/error.h"
#include "ring_mesh.h"
#include "ring_span.h"
#include "collbench/tunables.h"

typedef struct {
  const char *send;
  char *recv;
  size_t bytes;        /* one block */
  size_t at;           /* where a slice sits in its FIFO slot (cb_ring_slot_offset) */
  int own_by_channels; /* 0: a copy engine copies our own block (CB_A2A_RING_OWN_COPY=ce) */
  cb_ring_mesh m;
  cb_spin_info spin;
} a2a_ring_args;

/* Bytes, moved as 16-byte vectors: the mover's element type only matters
 * for reductions, and a copy reduces nothing. */
typedef uint8_t byte_t;

__global__ void __launch_bounds__(CB_RING_THREADS) a2a_ring_kernel(a2a_ring_args a) {
  const cb_ring_mesh &m = a.m;
  const int c = blockIdx.x, n = m.nranks;
  const size_t span = cb_ring_span(a.bytes, gridDim.x, sizeof(uint4));
  const size_t c0 = (size_t)c * span, clen = cb_ring_take(a.bytes, c0, span);
  const size_t own = (size_t)m.rank * a.bytes + c0;
  if (n == 1) {
    cb_ring_slice<byte_t, CB_SUM, CB_SLICE_LOCAL>((const byte_t *)a.send + own, NULL,
                                                  (byte_t *)a.recv + own, NULL, clen, n);
    return;
  }
  cb_ring_pos pos = cb_ring_load_pos(m, cb_ring_link_of(m, 1, c));
  for (size_t s0 = 0; c0 < a.bytes && s0 < span; s0 += m.slice_bytes) {
    const size_t len = cb_ring_take(clen, s0, m.slice_bytes);
    for (int d = 1; d < n; d++) {
      const cb_ring_link l = cb_ring_link_of(m, d, c);
      cb_ring_pos at = pos;
      /* Send: our block for rank r+d. */
      cb_ring_wait(m, l, at, false, true, a.spin);
      cb_ring_slice<byte_t, CB_SUM, CB_SLICE_SEND>(
          (const byte_t *)a.send + (size_t)l.to * a.bytes + c0 + s0, NULL, NULL,
          (byte_t *)cb_ring_out_slot(m, l, at, a.at), len, n);
      cb_ring_signal(m, l, at, false, true);
      /* Our own block's slice, while the slice just sent crosses the link. */
      if (d == 1 && a.own_by_channels)
        cb_ring_slice<byte_t, CB_SUM, CB_SLICE_LOCAL>((const byte_t *)a.send + own + s0, NULL,
                                                      (byte_t *)a.recv + own + s0, NULL, len, n);
      /* Receive: rank r-d's block for us. */
      cb_ring_wait(m, l, at, true, false, a.spin);
      cb_ring_slice<byte_t, CB_SUM, CB_SLICE_COPY>(
          NULL, (const byte_t *)cb_ring_in_slot(m, l, at, a.at),
          (byte_t *)a.recv + (size_t)l.from * a.bytes + c0 + s0, NULL, len, n);
      cb_ring_signal(m, l, at, true, false);
    }
    pos.sent++;
    pos.received++;
  }
  for (int d = 1; d < n; d++) cb_ring_store_pos(m, cb_ring_link_of(m, d, c), pos);
}

static const void *kernel_of(cb_dtype dtype, cb_redop op) {
  (void)dtype;
  (void)op;
  return (const void *)a2a_ring_kernel;
}

/* The own block's copy engine: a side stream and the events around it. */
typedef struct {
  cudaStream_t side;
  cudaEvent_t fork, join;
} own_copy;

static void cb_a2a_ring_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  const cb_ring_spec spec = {ctx->nranks - 1, CB_RING_THREADS, kernel_of};
  cb_ring_setup(ctx, reply, &spec);
  cb_ring_state *st = (cb_ring_state *)ctx->state;
  /* sm or ce, equal on every rank (tunables.c) so that a row measures one
   * path; whether ce is taken is our GPU's decision alone, as the hazard is
   * another rank's kernel on our GPU. */
  if (st->channels == 0 || ctx->nranks == 1 || !cb_tunable_is("CB_A2A_RING_OWN_COPY", "ce")) return;
  if (ctx->ranks_on_device > 1) {
    cb_kernel_note(reply, "CB_A2A_RING_OWN_COPY=ce not taken: with ranks sharing a GPU a side "
                          "stream's copy could queue behind another rank's kernel; the channels "
                          "copy our own block");
    return;
  }
  own_copy *o = (own_copy *)calloc(1, sizeof *o);
  if (!o) cb_fatal("out of host memory");
  CB_CUDA(cudaStreamCreateWithFlags(&o->side, cudaStreamNonBlocking));
  CB_CUDA(cudaEventCreateWithFlags(&o->fork, cudaEventDisableTiming));
  CB_CUDA(cudaEventCreateWithFlags(&o->join, cudaEventDisableTiming));
  st->extra = o;
}

static void cb_a2a_ring_teardown(cb_kernel_ctx *ctx) {
  cb_ring_state *st = (cb_ring_state *)ctx->state;
  own_copy *o = (own_copy *)st->extra;
  if (o) {
    CB_CUDA(cudaStreamSynchronize(o->side));
    CB_CUDA(cudaStreamDestroy(o->side));
    CB_CUDA(cudaEventDestroy(o->fork));
    CB_CUDA(cudaEventDestroy(o->join));
    free(o);
    st->extra = NULL;
  }
  cb_ring_teardown(ctx);
}

static void cb_a2a_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_ring_state *st = (const cb_ring_state *)ctx->state;
  a2a_ring_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* on every rank alike: nothing moves, no slice is counted */
  cb_ring_check_blocks(ctx, a.bytes);
  a.send = (const char *)call->send;
  a.recv = (char *)call->recv;
  a.at = cb_ring_slot_offset(call->recv);
  a.m = cb_ring_mesh_for(ctx, st);
  a.spin = CB_SPIN_INFO(ctx);
  const own_copy *o = (const own_copy *)st->extra;
  a.own_by_channels = o == NULL;
  if (o) {
    const size_t own = (size_t)ctx->rank * a.bytes;
    CB_CUDA(cudaEventRecord(o->fork, stream));
    CB_CUDA(cudaStreamWaitEvent(o->side, o->fork, 0));
    CB_CUDA(cudaMemcpyAsync(a.recv + own, a.send + own, a.bytes, cudaMemcpyDefault, o->side));
    CB_CUDA(cudaEventRecord(o->join, o->side));
  }
  a2a_ring_kernel<<<st->channels, CB_RING_THREADS, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
  if (o) CB_CUDA(cudaStreamWaitEvent(stream, o->join, 0));
}

/* The channels, and with CB_A2A_RING_OWN_COPY=ce our own block's copy on its side stream. */
static void cb_a2a_ring_resources(const cb_kernel_ctx *ctx, const cb_call *call,
                                  cb_kernel_resources *r) {
  const cb_ring_state *st = (const cb_ring_state *)ctx->state;
  cb_ring_resources(ctx, call, r);
  if (!st->extra || call->count == 0) return;
  r->side_streams = 1;
  r->copies = 1;
  r->copy_streams = 1;
}

CB_KERNEL_ROW(cb_alltoall_ring) = CB_RING_ROW_RESOURCES(
    "n-1 ring-ordered steps (step d sends block r+d to rank r+d, receives rank "
    "r-d's), pipelined slice by slice through FIFOs in the receivers' memory, our own "
    "block copied by the channels (CB_A2A_RING_OWN_COPY=sm, the default) or by a "
    "copy engine beside them (=ce); out of place only (in place would overwrite "
    "blocks not yet sent)",
    CB_OUT_OF_PLACE, cb_a2a_ring_setup, cb_a2a_ring_teardown, cb_a2a_ring_launch,
    cb_a2a_ring_resources);
CB_REGISTER_KERNEL(alltoall, cb_alltoall_ring,
                   "n-1 ring-ordered steps: in step d rank r sends its block for r+d into r+d's "
                   "FIFO and receives r-d's from its own, slice by slice (all steps of a slice "
                   "before the next slice), through FIFO pipes in the receivers' memory; its own "
                   "block copied by the channels or by a copy engine (`CB_A2A_RING_OWN_COPY`); out "
                   "of place only: in place, step d would overwrite block r-d before it is sent in "
                   "step n-d");
static const char *const sm_or_ce[] = {"sm", "ce"};
CB_REGISTER_TUNABLES(alltoall_ring,
                     CB_TUNABLE_CHOICE("CB_A2A_RING_OWN_COPY", sm_or_ce, 0, CB_TUNE_AGREE,
                                       "alltoall -k ring: the own block copied by the channels "
                                       "between their sends and receives (sm) or by a copy engine "
                                       "beside the kernel (ce; not with ranks sharing a GPU)"));
