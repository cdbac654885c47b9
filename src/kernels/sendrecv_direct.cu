/* -k direct: sendrecv by direct stores into the next rank's output.
 *
 * Each rank splits its input over the kernel's blocks (contiguous ranges
 * of 16-byte vectors) and stores them, with plain 16-byte stores over
 * NVLink, straight into the next rank's output buffer (the harness's
 * receive buffers, mapped on every rank in setup): no scratch, no second
 * copy, and every rank sends and receives at once. Stores rather than
 * loads from the previous rank: a store is posted and needs no round trip,
 * and on H200 our store kernels (all_gather direct, 353-360 GB/s at 1 GiB)
 * beat our load kernels (reduce_scatter direct, 335 GB/s).
 *
 * Handshakes (device/handshake.cuh), per block b, with block b of the next
 * and of the previous rank only (cb_block_handshake_with), at epoch e:
 *   start  START(e) to both, wait for both. The next rank's kernel of
 *          epoch e runs, so everything its stream did before it is complete,
 *          in particular whatever read its output of the previous call; and
 *          we tell the previous rank the same of ours.
 *   data   stores into the next rank's output.
 *   end    END(e) to both, wait for both. The release publishes our block's
 *          stores to the next rank (the barrier before it orders the other
 *          threads' stores); the acquire of the previous rank's END(e), by
 *          every block, means every byte of our output has landed before our
 *          kernel ends, so later work on our stream (validation) sees it.
 * Epochs: one counter per block on the device, advanced at its end, so a
 * graph replay advances it; every rank launches the same blocks for a call
 * (cb_direct_blocks of the same size, cb_direct_fit the same on all).
 *
 * Out of place only: in place, we would store into the next rank's buffer
 * while it still reads that buffer to send it on (nccl-tests, too, does not
 * check in-place sendrecv: "We don't support in-place sendrecv"). */
#include <stdint.h>

#include "cuda_check.h"
#include "device/direct_copy.cuh"
#include "device/handshake.cuh"
#include "device/vec.cuh"
#include "direct_mesh.h"
#include "sendrecv_kernels.h"

typedef struct {
  const char *src;
  cb_copy_dsts d; /* the next rank's output (ours, with one rank) */
  size_t bytes;
  cb_vec_split split; /* head / vectors / tail of the run */
  cb_hs_areas hs;     /* every rank's handshake words */
  uint64_t *epochs;   /* ours, one per block */
  unsigned partners;  /* ring offsets of the next and previous ranks (none alone) */
  int rank, nranks;
  cb_spin_info spin;
} srd_args;

__global__ void __launch_bounds__(CB_DIRECT_THREADS) srd_kernel(srd_args a) {
  const int b = blockIdx.x;
  const uint64_t e = a.epochs[b] + 1;
  cb_block_handshake_with(a.hs, a.rank, a.nranks, b, e, CB_HS_START(e), a.partners, a.spin);
  cb_direct_copy(a.src, a.d, a.split, a.bytes);
#ifndef CB_MUTATE_SKIP_END_WAIT /* the broken variant: the output may not have landed */
  cb_block_handshake_with(a.hs, a.rank, a.nranks, b, e, CB_HS_END(e), a.partners, a.spin);
#endif
  /* Every thread read epochs[b] before the start handshake's barriers. */
  if (threadIdx.x == 0) a.epochs[b] = e;
}

extern "C" void cb_sr_direct_setup(cb_kernel_ctx *ctx) {
  cb_direct_setup(ctx, "CB_SR_DIRECT");
  cb_direct_fit(ctx, (const void *)srd_kernel);
}

extern "C" void cb_sr_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  const int n = ctx->nranks;
  srd_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  a.src = (const char *)call->send;
  a.d.to[0] = (char *)cb_direct_peer_ptr(ctx, st, (ctx->rank + 1) % n, call->recv);
  a.d.count = 1;
  for (int k = 1; k < CB_MAX_PEERS; k++) a.d.to[k] = NULL;
  a.split = cb_vec_split_make(a.src, cb_same_mod16(a.src, a.d.to[0]), a.bytes,
                              cb_dtype_size(call->dtype));
  cb_direct_areas(ctx, st, a.hs.area);
  a.epochs = st->epochs;
  a.partners = n > 1 ? CB_HS_OFFSET(1) | CB_HS_OFFSET(n - 1) : 0;
  a.rank = ctx->rank;
  a.nranks = n;
  a.spin = CB_SPIN_INFO(ctx);
  int blocks = cb_direct_blocks(st, a.bytes);
  srd_kernel<<<blocks, CB_DIRECT_THREADS, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}
