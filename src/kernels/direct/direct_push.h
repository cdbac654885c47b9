/* The direct push kernels (sendrecv and broadcast -k direct): a rank stores
 * one run, its input, with plain 16-byte stores straight into some peers'
 * buffers (and its own), with per-block flag handshakes with the peers it
 * exchanges data with. What differs between the collectives is only where
 * the run goes and who shakes hands with whom, which the caller says per
 * call; the kernel, its handshakes and its grid are here.
 *
 * Handshakes (device/handshake.cuh), per block b at epoch e, with block b
 * of each partner only (cb_block_handshake_with):
 *   start  START(e) to each partner, then wait for each partner's START(e):
 *          a partner's kernel of epoch e runs, so everything its stream did
 *          before it is complete, in particular whatever read its output of
 *          the previous call (the harness validates after timing and poisons
 *          and refills between sizes; a user's stream may read it with any
 *          kernel); only then may we store into it.
 *   data   our block's share of the run into every destination
 *          (device/direct_copy.cuh).
 *   end    END(e) to each partner, then wait for each partner's END(e). The
 *          release publishes our block's stores (the barrier before it
 *          orders the other threads' stores, handshake.cuh); the acquire of
 *          every partner's END(e), by every block, means every store into
 *          our output has landed before our kernel ends, so later work on
 *          our stream (validation) sees it.
 * Epochs: one counter per block on the device, advanced by the block at
 * its end, so a CUDA graph replay (frozen kernel arguments) still advances
 * it; every rank launches the same blocks for a call (cb_direct_blocks of
 * the same traffic, a grid fitted alike on every rank), so block b's
 * counters agree. */
#ifndef CB_DIRECT_PUSH_H
#define CB_DIRECT_PUSH_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "collbench/kernel.h"
#include "direct_mesh.h"
#include "collbench/peer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call, as this rank sees it. */
typedef struct {
  const void *src;         /* the run this rank stores (read only if count > 0) */
  char *to[CB_MAX_PEERS];  /* [0 .. count - 1]: where it goes, in this order */
  int count;               /* 0: this rank only takes part in the handshakes */
  size_t bytes, elem_size; /* of the run, and of its elements */
  unsigned partners;       /* ring offsets to shake hands with (CB_HS_OFFSET bits) */
  size_t traffic;          /* bytes the call moves per sending rank: the same on every rank */
} cb_direct_push;

/* Collective: cb_direct_setup(ctx, prefix) and a grid fitted to the GPU
 * (cb_direct_fit). */
void cb_direct_push_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply, const char *prefix);

/* Enqueues the call (not for an empty run: call it on every rank alike). */
void cb_direct_push_launch(cb_kernel_ctx *ctx, const cb_direct_push *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
