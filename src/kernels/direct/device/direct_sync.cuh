/* What the direct reduce and store kernels (direct_reduce.cuh,
 * direct_store.cuh) shake hands with: block b waits at the start and the
 * end of a call for block b of every peer (handshake.cuh, which has the
 * ordering argument) at the epoch one past the block's last. The host half,
 * the handshake words and the epochs, is the direct mesh's (direct_mesh.h).
 * (direct_push.cu's argument has the same fields, with its partners
 * between them.) */
#ifndef CB_DEVICE_DIRECT_SYNC_CUH
#define CB_DEVICE_DIRECT_SYNC_CUH

#include <stdint.h>

#include "collbench/device/spin.cuh"
#include "direct_mesh.h"
#include "collbench/device/handshake.cuh"

typedef struct {
  cb_hs_areas hs;   /* every rank's handshake words */
  uint64_t *epochs; /* ours, one per block */
  int rank, nranks;
  cb_spin_info spin;
} cb_direct_sync;

/* Device, every thread of block b = blockIdx.x: the block's part of a call,
 * work(), between the start and the end handshake with block b of every
 * peer at epoch e, one past the block's last, which is stored back after.
 *   start  every peer's kernel of epoch e runs: its input for the call is
 *          written and whatever read its previous output is done;
 *   end    our accesses to every peer's buffers are done and published,
 *          and every peer's to ours. */
template <typename WORK>
__device__ __forceinline__ void cb_direct_block_call(const cb_direct_sync &s, WORK work) {
  const int b = blockIdx.x;
  const uint64_t e = s.epochs[b] + 1;
  cb_block_handshake(s.hs, s.rank, s.nranks, b, e, CB_HS_START(e), s.spin);
  work();
  cb_block_handshake(s.hs, s.rank, s.nranks, b, e, CB_HS_END(e), s.spin);
  /* Every thread read epochs[b] before the handshakes' barriers. */
  if (threadIdx.x == 0) s.epochs[b] = e;
}

/* Host, a launch: ours, from the direct mesh set up in ctx->state. */
static inline cb_direct_sync cb_direct_sync_of(const cb_kernel_ctx *ctx) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  cb_direct_sync s;
  cb_direct_areas(ctx, st, s.hs.area);
  s.epochs = st->epochs;
  s.rank = ctx->rank;
  s.nranks = ctx->nranks;
  s.spin = CB_SPIN_INFO(ctx);
  return s;
}

#endif
