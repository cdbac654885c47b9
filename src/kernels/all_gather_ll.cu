/* -k 3 ll: all-gather by LL16 packets, for small messages.
 *
 * Every rank writes its block, as LL16 packets (8 data bytes and two
 * copies of the epoch in one 16-byte store, device/ll_packet.cuh), into its
 * slot of every peer's scratch, and out of place into its own output; then
 * it polls its scratch until each peer's packets carry the epoch and copies
 * them into the peer's block of its output. One kernel, no handshake: the
 * flag travels with the data, and peers never touch our buffers, only our
 * scratch.
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
 * order). This needs every launched block to read at least one packet from
 * every peer, which holds because all ranks' blocks have the same length;
 * hence also no launch at all for an empty message.
 *
 * In place: our block of our output is the input; we only read it (to push
 * it), and the packets we receive go to the other blocks. */
#include <stdint.h>
#include <stdlib.h>

#include "all_gather_kernels.h"
#include "cuda_check.h"
#include "device/ll_packet.cuh"
#include "device/pack8.cuh"
#include "options.h"
#include "peer_memory.h"

#define LL_THREADS        512 /* packets per tile: one per thread */
#define LL_DEFAULT_BLOCKS 32
#define LL_MAX_BLOCKS     128 /* all of them resident at once: block b waits on peers' block b */

typedef struct {
  const char *src;                   /* our block: send buffer, or our block of recv in place */
  char *out;                         /* our output: n blocks */
  size_t bytes;                      /* bytes of a block */
  int copy_own;                      /* out of place: also copy our block into our output */
  uint4 *peer_scratch[CB_MAX_PEERS]; /* rank r's scratch, as we address it */
  uint4 *my_scratch;
  uint32_t *epochs;    /* ours, one per block */
  int max_blocks;      /* tile t belongs to block t % max_blocks */
  size_t slot_packets; /* packets per (parity, source rank) region */
  int rank, nranks;
  cb_spin_info spin;
} agll_args;

typedef struct {
  cb_peer_buffer scratch;
  uint32_t *epochs;
  int blocks;
  size_t slot_packets;
} agll_state;

__device__ __forceinline__ size_t slot(const agll_args &a, uint32_t epoch, int src, size_t i) {
  return ((size_t)(epoch & 1) * a.nranks + src) * a.slot_packets + i;
}

__global__ void __launch_bounds__(LL_THREADS) agll_kernel(agll_args a) {
  const uint32_t epoch = a.epochs[blockIdx.x] + 1;
  const size_t npackets = (a.bytes + 7) / 8;
  const size_t stride = (size_t)a.max_blocks * LL_THREADS;
  char *own = a.out + (size_t)a.rank * a.bytes;
  /* Push: our block's packets of this block's tiles to every peer. */
  for (size_t i = (size_t)blockIdx.x * LL_THREADS + threadIdx.x; i < npackets; i += stride) {
    uint2 v = cb_load_pack8(a.src, i, a.bytes);
    for (int p = 1; p < a.nranks; p++) {
      int peer = (a.rank + p) % a.nranks;
      cb_ll16_write(a.peer_scratch[peer] + slot(a, epoch, a.rank, i), v, epoch);
    }
    if (a.copy_own) cb_store_pack8(own, i, a.bytes, v);
  }
  /* Pull: every peer's packets of the same tiles into its block. */
  for (size_t i = (size_t)blockIdx.x * LL_THREADS + threadIdx.x; i < npackets; i += stride) {
    for (int p = 1; p < a.nranks; p++) {
      int src = (a.rank + p) % a.nranks;
      uint2 v = cb_ll16_read(a.my_scratch + slot(a, epoch, src, i), epoch, a.spin, src);
      cb_store_pack8(a.out + (size_t)src * a.bytes, i, a.bytes, v);
    }
  }
  /* Every thread has read this launch's epoch before it is advanced. */
  __syncthreads();
  if (threadIdx.x == 0) a.epochs[blockIdx.x] = epoch;
}

extern "C" void cb_ag_ll_setup(cb_kernel_ctx *ctx) {
  agll_state *st = (agll_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  /* Same value on every rank: the tile-to-block map must agree. */
  st->blocks = (int)cb_env_long("CB_AG_LL_BLOCKS", LL_DEFAULT_BLOCKS, 1, LL_MAX_BLOCKS);
  /* The limit is on the table size, the whole output: a block is 1/n of it. */
  uint64_t max = ctx->max_bytes < CB_AG_LL_MAX_BYTES ? ctx->max_bytes : CB_AG_LL_MAX_BYTES;
  st->slot_packets = (size_t)(max / (uint64_t)ctx->nranks + 7) / 8;
  cb_peer_alloc(ctx->world, 2 * (size_t)ctx->nranks * st->slot_packets * sizeof(uint4),
                &st->scratch);
  CB_CUDA(cudaMalloc((void **)&st->epochs, (size_t)st->blocks * sizeof *st->epochs));
  CB_CUDA(cudaMemset(st->epochs, 0, (size_t)st->blocks * sizeof *st->epochs));
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

extern "C" void cb_ag_ll_teardown(cb_kernel_ctx *ctx) {
  agll_state *st = (agll_state *)ctx->state;
  cb_peer_free(ctx->world, &st->scratch);
  CB_CUDA(cudaFree(st->epochs));
  free(st);
  ctx->state = NULL;
}

extern "C" void cb_ag_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const agll_state *st = (const agll_state *)ctx->state;
  agll_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* see "double buffering" above */
  if ((a.bytes + 7) / 8 > st->slot_packets)
    cb_fatal("kernel %s: %zu bytes per rank exceed its scratch", ctx->kernel_name, a.bytes);
  a.src = (const char *)call->send;
  a.out = (char *)call->recv;
  a.copy_own = a.src != a.out + (size_t)ctx->rank * a.bytes;
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
  agll_kernel<<<blocks, LL_THREADS, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}
