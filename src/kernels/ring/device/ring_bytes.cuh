/* Host half of the ring kernels that move one run of bytes along link 1
 * (the next rank), one kernel for every datatype: broadcast and sendrecv
 * -k ring. Their kernels, with the waits, signals and the argument that
 * orders them, are in their own files; what they share is the setup (one
 * link, CB_RING_THREADS, one instance) and how a call fills the arguments
 * every such kernel has and launches it on the setup's channels. ARGS is
 * the kernel's argument struct, with at least:
 *   const uint8_t *send; uint8_t *recv; size_t bytes; size_t at; cb_ring_mesh m;
 *   cb_spin_info spin;
 * (at: where a slice sits in its FIFO slot, cb_ring_slot_offset). */
#ifndef CB_DEVICE_RING_BYTES_CUH
#define CB_DEVICE_RING_BYTES_CUH

#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "collbench/device/spin.cuh"
#include "ring_mesh.h"
#include "ring_slice.cuh"

/* The kernel's one instance, for every (dtype, op) of the residency check. */
template <typename ARGS, void (*KERNEL)(ARGS)>
static const void *cb_ring_bytes_kernel_of(cb_dtype dtype, cb_redop op) {
  (void)dtype, (void)op; /* bytes: one instance for all */
  return (const void *)KERNEL;
}

/* The kernel's setup (collective): link 1 of the FIFO pipes. */
template <typename ARGS, void (*KERNEL)(ARGS)>
static void cb_ring_bytes_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  const cb_ring_spec spec = {1, CB_RING_THREADS, cb_ring_bytes_kernel_of<ARGS, KERNEL>};
  cb_ring_setup(ctx, reply, &spec);
}

/* A call: the fields of *a that every such kernel has; 0 when nothing is to
 * be launched (0 bytes, on every rank alike: no slices, no counts). */
template <typename ARGS>
static int cb_ring_bytes_args_for(const cb_kernel_ctx *ctx, const cb_call *call, ARGS *a) {
  const cb_ring_state *st = (const cb_ring_state *)ctx->state;
  a->bytes = call->count * cb_dtype_size(call->dtype);
  if (a->bytes == 0) return 0;
  a->send = (const uint8_t *)call->send;
  a->recv = (uint8_t *)call->recv;
  a->at = cb_ring_slot_offset(call->recv);
  a->m = cb_ring_mesh_for(ctx, st);
  a->spin = CB_SPIN_INFO(ctx);
  return 1;
}

/* The launch of a call, on the setup's channels (one block each). */
template <typename ARGS, void (*KERNEL)(ARGS)>
static void cb_ring_bytes_launch(const cb_kernel_ctx *ctx, const ARGS &a, cudaStream_t stream) {
  const cb_ring_state *st = (const cb_ring_state *)ctx->state;
  KERNEL<<<st->channels, CB_RING_THREADS, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}

#endif
