/* The direct push kernel and its launch (direct_push.h). */
#include "direct_push.h"

#include <stdint.h>

#include "collbench/cuda_check.h"
#include "device/direct_copy.cuh"
#include "collbench/device/handshake.cuh"
#include "collbench/device/vec.cuh"

typedef struct {
  const char *src;
  cb_copy_dsts d;
  size_t bytes;
  cb_vec_split split; /* head / vectors / tail of the run */
  cb_hs_areas hs;     /* every rank's handshake words */
  uint64_t *epochs;   /* ours, one per block */
  unsigned partners;
  int rank, nranks;
  cb_spin_info spin;
} push_args;

__global__ void __launch_bounds__(CB_DIRECT_THREADS) direct_push_kernel(push_args a) {
  const int b = blockIdx.x;
  const uint64_t e = a.epochs[b] + 1;
  cb_block_handshake_with(a.hs, a.rank, a.nranks, b, e, CB_HS_START(e), a.partners, a.spin);
  cb_direct_copy(a.src, a.d, a.split, a.bytes);
  cb_block_handshake_with(a.hs, a.rank, a.nranks, b, e, CB_HS_END(e), a.partners, a.spin);
  /* Every thread read epochs[b] before the start handshake's barriers. */
  if (threadIdx.x == 0) a.epochs[b] = e;
}

extern "C" void cb_direct_push_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply,
                                     const char *prefix) {
  cb_direct_setup(ctx, prefix);
  const void *func = (const void *)direct_push_kernel;
  cb_direct_fit(ctx, reply, &func, 1);
}

extern "C" void cb_direct_push_launch(cb_kernel_ctx *ctx, const cb_direct_push *call,
                                      cudaStream_t stream) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  push_args a;
  a.src = (const char *)call->src;
  a.d.count = call->count;
  int same = 1;
  for (int k = 0; k < CB_MAX_PEERS; k++) {
    a.d.to[k] = k < call->count ? call->to[k] : NULL;
    if (k < call->count) same &= cb_same_mod16(a.src, a.d.to[k]);
  }
  a.bytes = call->bytes;
  a.split = cb_vec_split_make(a.src, same, call->bytes, call->elem_size);
  cb_direct_areas(ctx, st, a.hs.area);
  a.epochs = st->epochs;
  a.partners = call->partners;
  a.rank = ctx->rank;
  a.nranks = ctx->nranks;
  a.spin = CB_SPIN_INFO(ctx);
  int blocks = cb_direct_blocks(st, call->traffic);
  direct_push_kernel<<<blocks, CB_DIRECT_THREADS, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}
