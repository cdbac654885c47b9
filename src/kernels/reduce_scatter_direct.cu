/* -k 1 direct: reduce-scatter by direct loads from every peer's input.
 *
 * Rank r's output is the reduction over all ranks q of block r of q's
 * input. Each rank reads block r of every rank's input buffer itself, with
 * 16-byte loads over NVLink (peer pointers to the harness's send and
 * receive buffers, mapped in setup; in place the input is in the receive
 * buffer), reduces them in rank order 0, 1, .., n-1 whatever its own rank
 * (so the bits of a result never depend on which rank computed it), and
 * writes its output. Nothing is copied twice and no scratch is used. The
 * block is split over the kernel's blocks as contiguous ranges of vectors;
 * each thread keeps a few vectors in flight per source rank.
 *
 * Handshakes (device/handshake.cuh), per block b, with block b of every
 * peer; every rank launches the same number of blocks for the same size:
 *
 *   start  START(e) to every peer, then wait for every peer's START(e). We
 *          are about to load from the peer's input. The peer's kernel of
 *          epoch e is running, so everything its stream did before it is
 *          complete: its input for this call is written (the harness fills
 *          inputs on the stream; a user's stream might produce them with any
 *          kernel). In place, a peer writes its output, in its own block q
 *          of its input region, in its previous call; we load block r of
 *          its region, never block q, so that write does not race with our
 *          loads, and the previous call is over on the peer anyway.
 *   end    END(e) to every peer, then wait for every peer's END(e). Our
 *          END(e) says our block's loads from that peer are performed
 *          (bar.sync orders every thread's loads before the release store;
 *          a release orders loads as well as stores). Waiting for every
 *          peer's END(e), in every block, means no peer loads from our
 *          input any more when our kernel ends: the stream may then
 *          overwrite it (the harness refills inputs between sizes and
 *          rounds; in place, our next call writes our block; a user may
 *          reuse the buffer at once).
 *
 * Epochs: one counter per block on the device, advanced by the block at its
 * end, so a CUDA graph replay (frozen kernel arguments) still advances it.
 *
 * In place: our output is block r of our input region. Element i of it is
 * read (as our own contribution) and then written by the same thread, and
 * nothing else touches it: peers load only their own blocks of our region. */
#include <stdint.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "device/dispatch.cuh"
#include "device/handshake.cuh"
#include "device/reduce.cuh"
#include "device/vec.cuh"
#include "options.h"
#include "peer_memory.h"
#include "reduce_scatter_kernels.h"

#define RSD_THREADS    512
#define RSD_UNROLL     4 /* vectors in flight per thread and source rank */
#define RSD_MAX_BLOCKS 128

typedef struct {
  const char *in[CB_MAX_PEERS]; /* block `rank` of rank q's input, as we address it */
  char *out;                    /* our output */
  size_t bytes;                 /* bytes of the block */
  cb_vec_split split;           /* head / vectors / tail of the block */
  cb_hs_areas hs;               /* every rank's handshake words */
  uint64_t *epochs;             /* ours, one per block */
  int rank, nranks;
  cb_spin_info spin;
} rsd_args;

typedef struct {
  cb_peer_buffer bufs[2]; /* the harness's send and receive buffers of every rank */
  cb_peer_buffer flags;   /* handshake words, CB_HS_AREA_BYTES(max_blocks) per rank */
  uint64_t *epochs;
  int max_blocks;
  size_t block_bytes;
} rsd_state;

template <typename T, int OP>
__global__ void __launch_bounds__(RSD_THREADS) rsd_kernel(rsd_args a) {
  const int b = blockIdx.x, n = a.nranks;
  const uint64_t e = a.epochs[b] + 1;
  /* Start: every peer's kernel of epoch e runs, its input is written. */
  cb_block_handshake(a.hs, a.rank, n, b, e, CB_HS_START(e), a.spin);

  /* Vectors: a contiguous range per block, strided over its threads. */
  const size_t per = (a.split.nvec + gridDim.x - 1) / gridDim.x;
  const size_t v0 = (size_t)b * per;
  const size_t v1 = v0 + per < a.split.nvec ? v0 + per : a.split.nvec;
  uint4 *out4 = (uint4 *)(a.out + a.split.head);
  for (size_t v = v0 + threadIdx.x; v < v1; v += (size_t)RSD_THREADS * RSD_UNROLL) {
    uint4 acc[RSD_UNROLL];
    const uint4 *in0 = (const uint4 *)(a.in[0] + a.split.head);
#pragma unroll
    for (int u = 0; u < RSD_UNROLL; u++) {
      size_t w = v + (size_t)u * RSD_THREADS;
      if (w < v1) acc[u] = cb_ld_cg16(in0 + w);
    }
    /* Rank order, whatever our rank: the same bits on every rank. */
    for (int q = 1; q < n; q++) {
      const uint4 *inq = (const uint4 *)(a.in[q] + a.split.head);
      uint4 x[RSD_UNROLL];
#pragma unroll
      for (int u = 0; u < RSD_UNROLL; u++) {
        size_t w = v + (size_t)u * RSD_THREADS;
        if (w < v1) x[u] = cb_ld_cg16(inq + w);
      }
#pragma unroll
      for (int u = 0; u < RSD_UNROLL; u++) acc[u] = cb_reduce_pack<T, OP>(acc[u], x[u]);
    }
#pragma unroll
    for (int u = 0; u < RSD_UNROLL; u++) {
      size_t w = v + (size_t)u * RSD_THREADS;
      if (w < v1) out4[w] = cb_finalize_pack<T, OP>(acc[u], n);
    }
  }
  /* Head and tail elements (none for the harness's sizes), over the grid. */
  const size_t head = a.split.head / sizeof(T), tail = a.split.tail / sizeof(T);
  const size_t count = a.bytes / sizeof(T);
  const size_t nscalar = head + (count - tail);
  for (size_t k = (size_t)b * RSD_THREADS + threadIdx.x; k < nscalar;
       k += (size_t)gridDim.x * RSD_THREADS) {
    size_t i = k < head ? k : tail + (k - head);
    T acc = __ldcg((const T *)a.in[0] + i);
    for (int q = 1; q < n; q++) acc = cb_apply<T, OP>(acc, __ldcg((const T *)a.in[q] + i));
    if (OP == CB_AVG) acc = cb_divide<T>(acc, n);
    ((T *)a.out)[i] = acc;
  }

  /* End: our loads from every peer are done, every peer's from us. */
  cb_block_handshake(a.hs, a.rank, n, b, e, CB_HS_END(e), a.spin);
  /* Every thread read epochs[b] before the handshakes' barriers. */
  if (threadIdx.x == 0) a.epochs[b] = e;
}

template <typename T, int OP>
static void launch_typed(const rsd_args *a, int blocks, cudaStream_t s) {
  rsd_kernel<T, OP><<<blocks, RSD_THREADS, 0, s>>>(*a);
}

extern "C" void cb_rs_direct_setup(cb_kernel_ctx *ctx) {
  rsd_state *st = (rsd_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  /* Tunables, equal on every rank (block b pairs with block b of each peer).
   * Every block must be resident at once (a block waits on its peers' same
   * block): 128 blocks of 512 threads fit an H100/H200 (132 SMs). */
  st->max_blocks = (int)cb_env_long("CB_RS_DIRECT_BLOCKS", 64, 1, RSD_MAX_BLOCKS);
  st->block_bytes = (size_t)cb_env_long("CB_RS_DIRECT_BLOCK_BYTES", 32 << 10, 1024, 1l << 30);
  cb_peer_share(ctx->world, ctx->send_buf, ctx->send_buf_bytes, &st->bufs[0]);
  cb_peer_share(ctx->world, ctx->recv_buf, ctx->recv_buf_bytes, &st->bufs[1]);
  cb_peer_alloc(ctx->world, CB_HS_AREA_BYTES(st->max_blocks), &st->flags);
  CB_CUDA(cudaMalloc((void **)&st->epochs, (size_t)st->max_blocks * sizeof *st->epochs));
  CB_CUDA(cudaMemset(st->epochs, 0, (size_t)st->max_blocks * sizeof *st->epochs));
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

extern "C" void cb_rs_direct_teardown(cb_kernel_ctx *ctx) {
  rsd_state *st = (rsd_state *)ctx->state;
  cb_peer_free(ctx->world, &st->bufs[0]); /* unmaps the peers' buffers; ours are the harness's */
  cb_peer_free(ctx->world, &st->bufs[1]);
  cb_peer_free(ctx->world, &st->flags);
  CB_CUDA(cudaFree(st->epochs));
  free(st);
  ctx->state = NULL;
}

extern "C" void cb_rs_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const rsd_state *st = (const rsd_state *)ctx->state;
  const int n = ctx->nranks, rank = ctx->rank;
  const size_t elem = cb_dtype_size(call->dtype);
  rsd_args a;
  a.bytes = call->count * elem;
  if (a.bytes == 0) return; /* on every rank alike: nothing to reduce, no epoch */
  const char *ours = (const char *)call->send + (size_t)rank * a.bytes; /* block r of our input */
  a.out = (char *)call->recv;
  int same = cb_same_mod16(ours, a.out);
  for (int q = 0; q < n; q++) {
    a.in[q] = (const char *)cb_peer_ptr_in(st->bufs, 2, q, ours);
    if (!a.in[q])
      cb_fatal("kernel %s: the input is not in the harness's buffers", ctx->kernel_name);
    same &= cb_same_mod16(ours, a.in[q]);
  }
  for (int q = n; q < CB_MAX_PEERS; q++) a.in[q] = NULL;
  a.split = cb_vec_split_make(ours, same, a.bytes, elem);
  for (int r = 0; r < n; r++) a.hs.area[r] = (uint64_t *)st->flags.ptr[r];
  for (int r = n; r < CB_MAX_PEERS; r++) a.hs.area[r] = NULL;
  a.epochs = st->epochs;
  a.rank = rank;
  a.nranks = n;
  a.spin = CB_SPIN_INFO(ctx);
  /* Blocks by the bytes a rank loads from its peers: the same on every rank
   * for the same call. */
  size_t traffic = a.bytes * (size_t)(n > 1 ? n - 1 : 1);
  size_t want = (traffic + st->block_bytes - 1) / st->block_bytes;
  int blocks = want < (size_t)st->max_blocks ? (int)want : st->max_blocks;
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &a, blocks, stream);
  CB_CUDA(cudaGetLastError());
}
