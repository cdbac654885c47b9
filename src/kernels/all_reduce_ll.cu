/* -k 2 ll: one-shot LL all-reduce for small messages.
 *
 * Every rank writes its whole input, as LL16 packets tagged with the epoch,
 * into a slot of every peer's scratch; then it polls its own scratch until
 * each peer's packets carry the epoch, reduces them with its own input and
 * writes the result. One kernel, no barrier, no reset between launches.
 *
 * Epochs. Each block keeps its own epoch counter on the device (so a CUDA
 * graph replay, whose kernel arguments are frozen, still advances it), and
 * packet i is always handled by the same block on every rank: tile t (of
 * blockDim.x packets) belongs to block t % max_blocks, whatever the message
 * size. A small message launches only the blocks that own one of its tiles
 * (so 8 bytes cost one block); every rank launches the same blocks for the
 * same size. So the writer and the reader of a packet slot always use the
 * same block's counter, which grows by one each time that block runs, on
 * every rank alike: a stale packet in a slot carries an older epoch than any
 * reader will wait for.
 *
 * Double buffering. Scratch has two halves, chosen by epoch parity. Block b
 * of a rank, at its epoch e+2, writing half e%2 of a peer must not overwrite
 * packets the peer's block b is still reading at its epoch e: it cannot,
 * because finishing epoch e+1 required the peer's block b packets of e+1,
 * which the peer writes only in a kernel launched after the one holding its
 * epoch e had completed (stream order). This needs every block that runs to
 * wait on every peer, hence no launch at all for an empty message.
 *
 * In place. Element i of the output is written only by the thread that
 * reads element i of the input, after reading it; peers never read our
 * input (they get packets), and no block touches another block's tiles. So
 * send == recv is safe, and no fence is needed anywhere. */
#include <stdint.h>
#include <stdlib.h>

#include "all_reduce_kernels.h"
#include "cuda_check.h"
#include "device/dispatch.cuh"
#include "device/ll_packet.cuh"
#include "device/reduce.cuh"
#include "options.h"
#include "peer_memory.h"

/* Packets per tile: one per thread. Small blocks are faster at every size
 * measured (2 x H200, graph mode, 32 blocks, results/h200x2/2026-11-30-probes):
 * 8 B took 2.23 us with 32 threads, 2.39 with 128, 3.33 with 512. Many
 * blocks keep the larger sizes at one tile per block (64 KiB = 256 tiles).
 * The shape is fixed for every size because each block keeps its own epoch
 * (see "Epochs"); one kernel-wide epoch, advanced by the last block to
 * finish, let each size pick its shape (1 MiB: 11.4 us instead of 15.1) but
 * its __threadfence after the remote stores cost 0.7 us at every size of
 * two blocks or more (results/h200x2/2026-11-30-f23c122), so it was
 * dropped: small messages are what this kernel is for. */
#define LL_MAX_THREADS     512
#define LL_DEFAULT_THREADS 32
#define LL_DEFAULT_BLOCKS  256

typedef struct {
  const void *send;
  void *recv;
  size_t bytes;
  uint4 *peer_scratch[CB_MAX_PEERS]; /* rank r's scratch, as this rank addresses it */
  uint4 *my_scratch;
  uint32_t *epochs;    /* one per block, this rank only */
  int max_blocks;      /* tile t belongs to block t % max_blocks */
  size_t slot_packets; /* packets per (parity, source rank) region */
  int rank, nranks;
  cb_spin_info spin;
} ll_args;

typedef struct {
  cb_peer_buffer scratch;
  uint32_t *epochs;
  int blocks, threads;
  size_t slot_packets;
} ll_state;

__device__ __forceinline__ size_t slot(const ll_args &a, uint32_t epoch, int src, size_t i) {
  return ((size_t)(epoch & 1) * a.nranks + src) * a.slot_packets + i;
}

/* 8 bytes of a buffer at packet i; the last packet may be partial. */
__device__ __forceinline__ uint2 load_pack(const void *p, size_t i, size_t bytes) {
  size_t off = i * 8;
  if (off + 8 <= bytes) return *(const uint2 *)((const char *)p + off);
  uint2 v = make_uint2(0, 0);
  for (size_t b = off; b < bytes; b++)
    ((unsigned char *)&v)[b - off] = ((const unsigned char *)p)[b];
  return v;
}

__device__ __forceinline__ void store_pack(void *p, size_t i, size_t bytes, uint2 v) {
  size_t off = i * 8;
  if (off + 8 <= bytes) {
    *(uint2 *)((char *)p + off) = v;
    return;
  }
  for (size_t b = off; b < bytes; b++) ((unsigned char *)p)[b] = ((unsigned char *)&v)[b - off];
}

template <typename T, int OP>
__global__ void __launch_bounds__(LL_MAX_THREADS) ll_kernel(ll_args a) {
  const uint32_t epoch = a.epochs[blockIdx.x] + 1;
  const size_t npackets = (a.bytes + 7) / 8;
  const size_t stride = (size_t)a.max_blocks * blockDim.x;
  /* Push: every packet of this block's tiles to every peer. */
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < npackets; i += stride) {
    uint2 mine = load_pack(a.send, i, a.bytes);
    for (int p = 1; p < a.nranks; p++) {
      int peer = (a.rank + p) % a.nranks;
      cb_ll16_write(a.peer_scratch[peer] + slot(a, epoch, a.rank, i), mine, epoch);
    }
  }
  /* Pull: the peers' packets for the same tiles, reduced with our input. */
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < npackets; i += stride) {
    uint2 acc = load_pack(a.send, i, a.bytes);
    for (int p = 1; p < a.nranks; p++) {
      int src = (a.rank + p) % a.nranks;
      uint2 v = cb_ll16_read(a.my_scratch + slot(a, epoch, src, i), epoch, a.spin, src);
      acc = cb_reduce_pack<T, OP>(acc, v);
    }
    store_pack(a.recv, i, a.bytes, cb_finalize_pack<T, OP>(acc, a.nranks));
  }
  /* Every thread has read this launch's epoch before it is advanced. */
  __syncthreads();
  if (threadIdx.x == 0) a.epochs[blockIdx.x] = epoch;
}

template <typename T, int OP>
static void launch_typed(const ll_args *a, int blocks, int threads, cudaStream_t s) {
  ll_kernel<T, OP><<<blocks, threads, 0, s>>>(*a);
}

extern "C" void cb_ar_ll_setup(cb_kernel_ctx *ctx) {
  ll_state *st = (ll_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  /* Same values on every rank: the tile-to-block map must agree. */
  st->blocks = (int)cb_env_long("CB_LL_BLOCKS", LL_DEFAULT_BLOCKS, 1, 1024);
  st->threads = (int)cb_env_long("CB_LL_THREADS", LL_DEFAULT_THREADS, 32, LL_MAX_THREADS);
  if (st->threads % 32) cb_fatal("CB_LL_THREADS must be a multiple of 32");
  uint64_t max = ctx->max_bytes < CB_AR_LL_MAX_BYTES ? ctx->max_bytes : CB_AR_LL_MAX_BYTES;
  st->slot_packets = (size_t)(max + 7) / 8;
  cb_peer_alloc(ctx->world, 2 * (size_t)ctx->nranks * st->slot_packets * sizeof(uint4),
                &st->scratch);
  CB_CUDA(cudaMalloc((void **)&st->epochs, (size_t)st->blocks * sizeof *st->epochs));
  CB_CUDA(cudaMemset(st->epochs, 0, (size_t)st->blocks * sizeof *st->epochs));
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

extern "C" void cb_ar_ll_teardown(cb_kernel_ctx *ctx) {
  ll_state *st = (ll_state *)ctx->state;
  cb_peer_free(ctx->world, &st->scratch);
  CB_CUDA(cudaFree(st->epochs));
  free(st);
  ctx->state = NULL;
}

extern "C" void cb_ar_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const ll_state *st = (const ll_state *)ctx->state;
  if (call->count == 0) return; /* see "Double buffering" above */
  if (((uintptr_t)call->send | (uintptr_t)call->recv) & 7)
    cb_fatal("kernel %s needs 8-byte aligned buffers", ctx->kernel_name);
  ll_args a;
  a.send = call->send;
  a.recv = call->recv;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  for (int r = 0; r < ctx->nranks; r++) a.peer_scratch[r] = (uint4 *)st->scratch.ptr[r];
  a.my_scratch = (uint4 *)st->scratch.ptr[ctx->rank];
  a.epochs = st->epochs;
  a.slot_packets = st->slot_packets;
  a.rank = ctx->rank;
  a.nranks = ctx->nranks;
  a.max_blocks = st->blocks;
  a.spin = CB_SPIN_INFO(ctx);
  size_t tile_bytes = 8 * (size_t)st->threads;
  size_t tiles = (a.bytes + tile_bytes - 1) / tile_bytes;
  int blocks = tiles < (size_t)st->blocks ? (int)tiles : st->blocks;
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &a, blocks, st->threads, stream);
  CB_CUDA(cudaGetLastError());
}
