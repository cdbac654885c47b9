/* -k 2 ll: reduce-scatter by LL16 packets, for small messages.
 *
 * Every rank writes block q of its input, as LL16 packets (8 data bytes and
 * two copies of the epoch in one 16-byte store, device/ll_packet.cuh), into
 * its slot of peer q's scratch; then it polls its scratch until each peer's
 * packets carry the epoch and reduces them with block r of its own input, in
 * rank order 0, 1, .., n-1 whatever its rank (the same bits on every rank),
 * into its output. One kernel, no handshake: the flag travels with the data,
 * and peers never touch our buffers, only our scratch.
 *
 * Epochs and double buffering exactly as all_reduce_ll.cu argues: each block
 * keeps its own epoch counter on the device (graph replays advance it);
 * packet i of a block is handled by block (i / LL_THREADS) % max_blocks on
 * every rank, whatever the size, and every rank launches the same blocks;
 * scratch has two halves chosen by epoch parity. Block b of a rank writing
 * half e%2 of a peer at its epoch e+2 cannot overwrite packets the peer's
 * block b still reads at epoch e: our block b finished epoch e+1 only after
 * reading the peer's block b packets of e+1, which the peer wrote in a
 * launch that started after its epoch-e launch had completed (stream
 * order). Every launched block reads at least one packet from every peer
 * (all blocks of the input have the same length); no launch at all for an
 * empty message.
 *
 * In place: our output is block r of our input. Packet i of it is read (as
 * our contribution) and then written by the same thread; the push reads
 * only the other blocks, which nothing writes. */
#include <stdint.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "device/dispatch.cuh"
#include "device/ll_packet.cuh"
#include "device/pack8.cuh"
#include "device/reduce.cuh"
#include "options.h"
#include "peer_memory.h"
#include "reduce_scatter_kernels.h"

#define LL_THREADS        512 /* packets per tile: one per thread */
#define LL_DEFAULT_BLOCKS 32
#define LL_MAX_BLOCKS     128 /* all of them resident at once: block b waits on peers' block b */

typedef struct {
  const char *in;                    /* our input: n blocks */
  char *out;                         /* our output: one block */
  size_t bytes;                      /* bytes of a block */
  uint4 *peer_scratch[CB_MAX_PEERS]; /* rank r's scratch, as we address it */
  uint4 *my_scratch;
  uint32_t *epochs;    /* ours, one per block */
  int max_blocks;      /* tile t belongs to block t % max_blocks */
  size_t slot_packets; /* packets per (parity, source rank) region */
  int rank, nranks;
  cb_spin_info spin;
} rsll_args;

typedef struct {
  cb_peer_buffer scratch;
  uint32_t *epochs;
  int blocks;
  size_t slot_packets;
} rsll_state;

__device__ __forceinline__ size_t slot(const rsll_args &a, uint32_t epoch, int src, size_t i) {
  return ((size_t)(epoch & 1) * a.nranks + src) * a.slot_packets + i;
}

template <typename T, int OP>
__global__ void __launch_bounds__(LL_THREADS) rsll_kernel(rsll_args a) {
  const uint32_t epoch = a.epochs[blockIdx.x] + 1;
  const size_t npackets = (a.bytes + 7) / 8;
  const size_t stride = (size_t)a.max_blocks * LL_THREADS;
  /* Push: block q of our input, this block's tiles, to peer q. */
  for (size_t i = (size_t)blockIdx.x * LL_THREADS + threadIdx.x; i < npackets; i += stride) {
    for (int p = 1; p < a.nranks; p++) {
      int peer = (a.rank + p) % a.nranks;
      uint2 v = cb_load_pack8(a.in + (size_t)peer * a.bytes, i, a.bytes);
      cb_ll16_write(a.peer_scratch[peer] + slot(a, epoch, a.rank, i), v, epoch);
    }
  }
  /* Pull: every rank's contribution to the same tiles of our block, in rank
   * order; ours from our input. */
  const char *own = a.in + (size_t)a.rank * a.bytes;
  for (size_t i = (size_t)blockIdx.x * LL_THREADS + threadIdx.x; i < npackets; i += stride) {
    uint2 acc = make_uint2(0, 0);
    for (int q = 0; q < a.nranks; q++) {
      uint2 v = q == a.rank ? cb_load_pack8(own, i, a.bytes)
                            : cb_ll16_read(a.my_scratch + slot(a, epoch, q, i), epoch, a.spin, q);
      acc = q == 0 ? v : cb_reduce_pack<T, OP>(acc, v);
    }
    cb_store_pack8(a.out, i, a.bytes, cb_finalize_pack<T, OP>(acc, a.nranks));
  }
  /* Every thread has read this launch's epoch before it is advanced. */
  __syncthreads();
  if (threadIdx.x == 0) a.epochs[blockIdx.x] = epoch;
}

template <typename T, int OP>
static void launch_typed(const rsll_args *a, int blocks, cudaStream_t s) {
  rsll_kernel<T, OP><<<blocks, LL_THREADS, 0, s>>>(*a);
}

extern "C" void cb_rs_ll_setup(cb_kernel_ctx *ctx) {
  rsll_state *st = (rsll_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  /* Same value on every rank: the tile-to-block map must agree. */
  st->blocks = (int)cb_env_long("CB_RS_LL_BLOCKS", LL_DEFAULT_BLOCKS, 1, LL_MAX_BLOCKS);
  /* The limit is on the table size, the whole input: a block is 1/n of it. */
  uint64_t max = ctx->max_bytes < CB_RS_LL_MAX_BYTES ? ctx->max_bytes : CB_RS_LL_MAX_BYTES;
  st->slot_packets = (size_t)(max / (uint64_t)ctx->nranks + 7) / 8;
  cb_peer_alloc(ctx->world, 2 * (size_t)ctx->nranks * st->slot_packets * sizeof(uint4),
                &st->scratch);
  CB_CUDA(cudaMalloc((void **)&st->epochs, (size_t)st->blocks * sizeof *st->epochs));
  CB_CUDA(cudaMemset(st->epochs, 0, (size_t)st->blocks * sizeof *st->epochs));
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

extern "C" void cb_rs_ll_teardown(cb_kernel_ctx *ctx) {
  rsll_state *st = (rsll_state *)ctx->state;
  cb_peer_free(ctx->world, &st->scratch);
  CB_CUDA(cudaFree(st->epochs));
  free(st);
  ctx->state = NULL;
}

extern "C" void cb_rs_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const rsll_state *st = (const rsll_state *)ctx->state;
  rsll_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* see "double buffering" above */
  if ((a.bytes + 7) / 8 > st->slot_packets)
    cb_fatal("kernel %s: %zu bytes per rank exceed its scratch", ctx->kernel_name, a.bytes);
  a.in = (const char *)call->send;
  a.out = (char *)call->recv;
  for (int r = 0; r < ctx->nranks; r++) a.peer_scratch[r] = (uint4 *)st->scratch.ptr[r];
  for (int r = ctx->nranks; r < CB_MAX_PEERS; r++) a.peer_scratch[r] = NULL;
  a.my_scratch = (uint4 *)st->scratch.ptr[ctx->rank];
  a.epochs = st->epochs;
  a.max_blocks = st->blocks;
  a.slot_packets = st->slot_packets;
  a.rank = ctx->rank;
  a.nranks = ctx->nranks;
  a.spin = CB_SPIN_INFO(ctx);
  size_t tiles = (a.bytes + 8 * LL_THREADS - 1) / (8 * LL_THREADS);
  int blocks = tiles < (size_t)st->blocks ? (int)tiles : st->blocks;
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &a, blocks, stream);
  CB_CUDA(cudaGetLastError());
}
