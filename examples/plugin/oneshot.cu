/* -k oneshot: an all-reduce in one pass of reads. Every rank loads, with
 * 16-byte loads over NVLink, its part of every rank's input, reduces it in
 * rank order (0, 1, ..., n-1: every rank holds the same bits), and stores the
 * result into its own output. No scratch, no stores into a peer; each link
 * carries every rank's whole input once each way.
 *
 * Written against collbench's kernel API alone (include/collbench/): the
 * contract (kernel.h), peer memory (peer.h), the ranks (world.h), tunables,
 * and the device kit's handshakes, vectors and reductions.
 *
 * Handshakes (collbench/device/handshake.cuh, whose proof this relies on),
 * per block b with block b of every peer, at the block's epoch e:
 *   start  every peer's kernel of epoch e runs: its input for this call is
 *          written (the harness writes inputs on the stream before a call);
 *   end    every peer's loads from our input are done: when our kernel ends,
 *          our stream may overwrite our input. Block b of every rank loads
 *          the same range of every input, so block b's handshake covers it.
 * Out of place only: in place, a rank would store its result over the input
 * its peers are still loading. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "collbench/cuda_check.h"
#include "collbench/device/dispatch.cuh"
#include "collbench/device/handshake.cuh"
#include "collbench/device/peer_pick.cuh"
#include "collbench/device/reduce.cuh"
#include "collbench/device/type_op_funcs.cuh"
#include "collbench/device/vec.cuh"
#include "collbench/error.h"
#include "collbench/kernel.h"
#include "collbench/peer.h"
#include "collbench/tunables.h"
#include "collbench/world.h"

#define ONESHOT_THREADS 512
#define ONESHOT_UNROLL  4 /* vectors in flight per thread and source rank */

CB_REGISTER_TUNABLES(oneshot, CB_TUNABLE_NUMBER("CB_ONESHOT_BLOCKS", 1, 128, 1, 32, CB_TUNE_AGREE,
                                                "all_reduce -k oneshot: blocks at most (block b "
                                                "of a rank pairs with block b of every peer)"));

typedef struct {
  cb_peer_buffer inputs; /* every rank's send buffer */
  cb_peer_buffer flags;  /* handshake words: CB_HS_AREA_BYTES(blocks) a rank */
  uint64_t *epochs;      /* ours, one per block */
  int blocks;            /* the grid, the same on every rank */
} oneshot_state;

typedef struct {
  const char *in[CB_MAX_PEERS]; /* rank q's part of the call, as we address it */
  char *out;
  size_t bytes;
  cb_vec_split split;
  cb_hs_areas hs;
  uint64_t *epochs;
  int rank, nranks;
  cb_spin_info spin;
} oneshot_args;

/* The block's range of vectors, reduced in rank order. */
template <typename T, int OP>
__device__ __forceinline__ void reduce_vectors(const oneshot_args &a) {
  const size_t per = (a.split.nvec + gridDim.x - 1) / gridDim.x;
  const size_t v0 = (size_t)blockIdx.x * per;
  const size_t v1 = v0 + per < a.split.nvec ? v0 + per : a.split.nvec;
  for (size_t v = v0 + threadIdx.x; v < v1; v += (size_t)ONESHOT_THREADS * ONESHOT_UNROLL) {
    uint4 acc[ONESHOT_UNROLL] = {};
    for (int q = 0; q < a.nranks; q++) {
      const uint4 *in = (const uint4 *)(cb_peer_pick(a.in, q) + a.split.head);
#pragma unroll
      for (int u = 0; u < ONESHOT_UNROLL; u++) {
        const size_t w = v + (size_t)u * ONESHOT_THREADS;
        if (w < v1) acc[u] = cb_reduce_rank_pack<T, OP>(acc[u], cb_ld_cg16(in + w), q);
      }
    }
    uint4 *out = (uint4 *)(a.out + a.split.head);
#pragma unroll
    for (int u = 0; u < ONESHOT_UNROLL; u++) {
      const size_t w = v + (size_t)u * ONESHOT_THREADS;
      if (w < v1) out[w] = cb_finalize_pack<T, OP>(acc[u], a.nranks);
    }
  }
}

/* Head and tail elements (none for the harness's aligned sizes), over the grid. */
template <typename T, int OP>
__device__ __forceinline__ void reduce_scalars(const oneshot_args &a) {
  const size_t head = a.split.head / sizeof(T), tail = a.split.tail / sizeof(T);
  const size_t nscalar = cb_vec_singles(head, tail, a.bytes / sizeof(T));
  for (size_t k = (size_t)blockIdx.x * ONESHOT_THREADS + threadIdx.x; k < nscalar;
       k += (size_t)gridDim.x * ONESHOT_THREADS) {
    const size_t i = cb_vec_single_at(head, tail, k);
    T acc = cb_pre<T, OP>(cb_ld_cg((const T *)cb_peer_pick(a.in, 0) + i), 0);
    for (int q = 1; q < a.nranks; q++)
      acc = cb_apply_input<T, OP>(acc, cb_ld_cg((const T *)cb_peer_pick(a.in, q) + i), q);
    if (OP == CB_AVG) acc = cb_divide<T>(acc, a.nranks);
    ((T *)a.out)[i] = acc;
  }
}

template <typename T, int OP>
__global__ void __launch_bounds__(ONESHOT_THREADS) oneshot_kernel(oneshot_args a) {
  const int b = blockIdx.x;
  const uint64_t e = a.epochs[b] + 1;
  cb_block_handshake(a.hs, a.rank, a.nranks, b, e, CB_HS_START(e), a.spin);
  reduce_vectors<T, OP>(a);
  reduce_scalars<T, OP>(a);
  cb_block_handshake(a.hs, a.rank, a.nranks, b, e, CB_HS_END(e), a.spin);
  /* Every thread read epochs[b] before the handshakes' barriers. */
  if (threadIdx.x == 0) a.epochs[b] = e;
}

CB_DEFINE_TYPE_OP_FUNCS(oneshot_funcs, oneshot_kernel)
CB_DEFINE_TYPE_OP_LAUNCH(oneshot_launch_typed, oneshot_kernel, oneshot_args)

/* Blocks this rank can keep resident at once of every instantiation: every
 * block waits on the same block of every peer, so the whole grid must be
 * resident; ranks sharing a GPU take half of it between them. */
static int resident_blocks(const cb_kernel_ctx *ctx) {
  const void *funcs[CB_TYPE_OP_FUNCS];
  const int n = oneshot_funcs(funcs);
  int sms = 0, least = 0;
  CB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device));
  for (int i = 0; i < n; i++) {
    int per_sm = 0;
    CB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, funcs[i], ONESHOT_THREADS, 0));
    if (i == 0 || per_sm < least) least = per_sm;
  }
  const int all = sms * least;
  return ctx->ranks_on_device > 1 ? all / (2 * ctx->ranks_on_device) : all;
}

/* Collective: the grid every rank can hold, the least of every rank's. */
static int agreed_blocks(cb_kernel_ctx *ctx, int mine) {
  int *all = (int *)malloc((size_t)ctx->nranks * sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(ctx->world, &mine, sizeof mine, all);
  int least = mine;
  for (int r = 0; r < ctx->nranks; r++) least = all[r] < least ? all[r] : least;
  free(all);
  return least;
}

static void oneshot_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  const int want = (int)cb_tunable("CB_ONESHOT_BLOCKS");
  const int fit = agreed_blocks(ctx, resident_blocks(ctx));
  if (fit < 1) {
    cb_kernel_refuse(reply, "not one block of %d threads can be resident on some rank's GPU",
                     ONESHOT_THREADS);
    return;
  }
  oneshot_state *st = (oneshot_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  ctx->state = st;
  st->blocks = want < fit ? want : fit;
  if (fit < want)
    cb_kernel_note(reply, "%d blocks, not CB_ONESHOT_BLOCKS=%d: no more can be resident at once",
                   fit, want);
  cb_peer_share(ctx->world, ctx->send_buf, ctx->send_buf_bytes, &st->inputs);
  cb_peer_alloc(ctx->world, CB_HS_AREA_BYTES(st->blocks), &st->flags);
  CB_CUDA(cudaMalloc((void **)&st->epochs, (size_t)st->blocks * sizeof *st->epochs));
  CB_CUDA(cudaMemset(st->epochs, 0, (size_t)st->blocks * sizeof *st->epochs));
  CB_CUDA(cudaDeviceSynchronize());
}

static void oneshot_teardown(cb_kernel_ctx *ctx) {
  oneshot_state *st = (oneshot_state *)ctx->state;
  if (!st) return;
  cb_peer_free(ctx->world, &st->inputs);
  cb_peer_free(ctx->world, &st->flags);
  CB_CUDA(cudaFree(st->epochs));
  free(st);
  ctx->state = NULL;
}

static void oneshot_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const oneshot_state *st = (const oneshot_state *)ctx->state;
  if (call->count == 0) return; /* on every rank alike: nothing to reduce, no epoch */
  oneshot_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  int same = 1;
  for (int q = 0; q < CB_MAX_PEERS; q++) {
    a.in[q] = q < ctx->nranks ? (const char *)cb_peer_ptr(&st->inputs, q, call->send) : NULL;
    a.hs.area[q] = q < ctx->nranks ? (uint64_t *)st->flags.ptr[q] : NULL;
    if (q < ctx->nranks)
      same &= cb_same_mod16(call->send, a.in[q]) & cb_same_mod16(call->send, call->recv);
  }
  a.out = (char *)call->recv;
  a.split = cb_vec_split_make(call->send, same, a.bytes, cb_dtype_size(call->dtype));
  a.epochs = st->epochs;
  a.rank = ctx->rank;
  a.nranks = ctx->nranks;
  a.spin = CB_SPIN_INFO(ctx);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, oneshot_launch_typed, &a, st->blocks, ONESHOT_THREADS,
                      stream);
  CB_CUDA(cudaGetLastError());
}

static const cb_kernel oneshot = {
    .name = "oneshot",
    .summary = "one-shot read: every rank loads its part of every rank's input with 16-byte "
               "loads, reduces in rank order and stores into its own output; a flag handshake "
               "before and after",
    .limits = {.placements = CB_OUT_OF_PLACE,
               .dtypes = CB_ALL_DTYPES,
               .ops = CB_ALL_OPS,
               .max_ranks = CB_MAX_PEERS,
               .single_host = 1},
    .memory = CB_MEM_CUDA,
    .setup = oneshot_setup,
    .teardown = oneshot_teardown,
    .launch = oneshot_launch,
    .waits = CB_WAITS_HANDSHAKE,
};
CB_REGISTER_KERNEL(all_reduce, oneshot,
                   "one-shot read: every rank loads its part of every rank's input with 16-byte "
                   "loads over NVLink, reduces it in rank order and stores the result into its "
                   "own output; per-block start and end flag handshakes; out of place only");
