/* -k 2 ll: one-shot LL all-reduce for small messages.
 *
 * Every rank writes its whole input, as LL16 packets tagged with the epoch,
 * into a slot of every peer's scratch; then it polls its own scratch until
 * each peer's packets carry the epoch, reduces them with its own input and
 * writes the result. One kernel, no barrier, no reset between launches.
 *
 * Epochs. One counter per rank on the device (so a CUDA graph replay, whose
 * kernel arguments are frozen, still advances it): every block reads it at
 * the start, and the last block to finish advances it (a count of finished
 * blocks, see finish()). Every launch advances it by one on every rank, so
 * writer and reader of a packet agree on the epoch, whatever block and
 * thread shape each size uses; a stale packet in a slot carries an older
 * epoch than any reader waits for.
 *
 * Double buffering. Scratch has two halves, chosen by epoch parity. A rank
 * at epoch e+2, writing half e%2 of a peer, must not overwrite packets the
 * peer still reads at epoch e: it cannot, because its launch e+1 finished
 * only after receiving the peer's packets of e+1, which the peer writes in
 * a launch that starts after its launch e has completed (stream order).
 * This needs every launch to receive at least one packet from every peer,
 * hence no launch at all for an empty message.
 *
 * Shape. Small blocks are faster to launch and retire (2 x H200, graph
 * mode, results/h200x2/2026-11-30-probes: 8 B took 2.23 us with 32-thread
 * blocks, 2.39 with 128, 3.33 with 512), so messages up to CB_LL_SMALL
 * bytes use 32-thread blocks, one packet per thread; larger ones use bigger
 * blocks, and at most CB_LL_BLOCKS blocks loop over the packets.
 *
 * In place. Element i of the output is written only by the thread that
 * reads element i of the input, after reading it; peers never read our
 * input (they get packets), and no thread touches another's packets. So
 * send == recv is safe, and no fence is needed for the data. */
#include <stdint.h>
#include <stdlib.h>

#include "all_reduce_kernels.h"
#include "cuda_check.h"
#include "device/dispatch.cuh"
#include "device/ll_packet.cuh"
#include "device/reduce.cuh"
#include "options.h"
#include "peer_memory.h"

#define LL_MAX_THREADS 512

typedef struct {
  const void *send;
  void *recv;
  size_t bytes;
  uint4 *peer_scratch[CB_MAX_PEERS]; /* rank r's scratch, as this rank addresses it */
  uint4 *my_scratch;
  uint32_t *epoch;     /* [0] launches so far, [1] blocks finished in this one */
  size_t slot_packets; /* packets per (parity, source rank) region */
  int rank, nranks;
  cb_spin_info spin;
} ll_args;

typedef struct {
  cb_peer_buffer scratch;
  uint32_t *epoch;
  int max_blocks, small_threads, large_threads;
  size_t small_bytes, slot_packets;
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

/* The last block of a launch to finish advances the epoch. Every block
 * read it at its start, before its __threadfence and its count; the block
 * that counts last has seen every other count, so every read came before
 * the advance. The next launch (stream order) sees the new value. */
__device__ __forceinline__ void finish(uint32_t *epoch, uint32_t e) {
  __syncthreads(); /* every thread of the block has read the epoch */
  if (threadIdx.x != 0) return;
  if (gridDim.x == 1) {
    epoch[0] = e;
    return;
  }
  __threadfence();
  if (atomicAdd(&epoch[1], 1u) == gridDim.x - 1) {
    epoch[1] = 0;
    epoch[0] = e;
  }
}

template <typename T, int OP>
__global__ void __launch_bounds__(LL_MAX_THREADS) ll_kernel(ll_args a) {
  const uint32_t epoch = a.epoch[0] + 1;
  const size_t npackets = (a.bytes + 7) / 8;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  /* Push: every packet of this thread to every peer. */
  for (size_t i = first; i < npackets; i += stride) {
    uint2 mine = load_pack(a.send, i, a.bytes);
    for (int p = 1; p < a.nranks; p++) {
      int peer = (a.rank + p) % a.nranks;
      cb_ll16_write(a.peer_scratch[peer] + slot(a, epoch, a.rank, i), mine, epoch);
    }
  }
  /* Pull: the peers' packets for the same elements, reduced with our input. */
  for (size_t i = first; i < npackets; i += stride) {
    uint2 acc = load_pack(a.send, i, a.bytes);
    for (int p = 1; p < a.nranks; p++) {
      int src = (a.rank + p) % a.nranks;
      uint2 v = cb_ll16_read(a.my_scratch + slot(a, epoch, src, i), epoch, a.spin, src);
      acc = cb_reduce_pack<T, OP>(acc, v);
    }
    store_pack(a.recv, i, a.bytes, cb_finalize_pack<T, OP>(acc, a.nranks));
  }
  finish(a.epoch, epoch);
}

template <typename T, int OP>
static void launch_typed(const ll_args *a, int blocks, int threads, cudaStream_t s) {
  ll_kernel<T, OP><<<blocks, threads, 0, s>>>(*a);
}

extern "C" void cb_ar_ll_setup(cb_kernel_ctx *ctx) {
  ll_state *st = (ll_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  /* Tunables (the shape need not agree between ranks, but the same
   * environment on every rank keeps their timings alike). */
  st->small_bytes = (size_t)cb_env_long("CB_LL_SMALL", 64 << 10, 0, CB_AR_LL_MAX_BYTES);
  st->small_threads = (int)cb_env_long("CB_LL_THREADS", 32, 32, LL_MAX_THREADS);
  st->large_threads = (int)cb_env_long("CB_LL_THREADS_LARGE", 256, 32, LL_MAX_THREADS);
  st->max_blocks = (int)cb_env_long("CB_LL_BLOCKS", 512, 1, 4096);
  if (st->small_threads % 32 || st->large_threads % 32)
    cb_fatal("CB_LL_THREADS and CB_LL_THREADS_LARGE must be multiples of 32");
  /* A block spins on packets that the same packets' block of a peer
   * writes: every block of a launch must be resident at once, or blocks
   * waiting for peers' blocks not yet running could fill the GPU. */
  int sms, threads_per_sm, blocks_per_sm;
  CB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device));
  CB_CUDA(
      cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, ctx->device));
  CB_CUDA(
      cudaDeviceGetAttribute(&blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, ctx->device));
  int big = st->small_threads > st->large_threads ? st->small_threads : st->large_threads;
  if ((long)st->max_blocks * big > (long)sms * threads_per_sm ||
      st->max_blocks > sms * blocks_per_sm)
    cb_fatal("CB_LL_BLOCKS=%d blocks of %d threads do not fit on device %d at once (%d SMs)",
             st->max_blocks, big, ctx->device, sms);
  uint64_t max = ctx->max_bytes < CB_AR_LL_MAX_BYTES ? ctx->max_bytes : CB_AR_LL_MAX_BYTES;
  st->slot_packets = (size_t)(max + 7) / 8;
  cb_peer_alloc(ctx->world, 2 * (size_t)ctx->nranks * st->slot_packets * sizeof(uint4),
                &st->scratch);
  CB_CUDA(cudaMalloc((void **)&st->epoch, 2 * sizeof *st->epoch));
  CB_CUDA(cudaMemset(st->epoch, 0, 2 * sizeof *st->epoch));
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

extern "C" void cb_ar_ll_teardown(cb_kernel_ctx *ctx) {
  ll_state *st = (ll_state *)ctx->state;
  cb_peer_free(ctx->world, &st->scratch);
  CB_CUDA(cudaFree(st->epoch));
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
  a.epoch = st->epoch;
  a.slot_packets = st->slot_packets;
  a.rank = ctx->rank;
  a.nranks = ctx->nranks;
  a.spin = CB_SPIN_INFO(ctx);
  int threads = a.bytes <= st->small_bytes ? st->small_threads : st->large_threads;
  size_t packets = (a.bytes + 7) / 8, want = (packets + threads - 1) / threads;
  int blocks = want < (size_t)st->max_blocks ? (int)want : st->max_blocks;
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &a, blocks, threads, stream);
  CB_CUDA(cudaGetLastError());
}
