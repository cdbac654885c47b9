/* -k ce: copy engines move the data, SMs only reduce (large messages).
 *
 * SM stores over NVLink top out near 370 GB/s one way on H200, below the
 * ~390 GB/s per direction copy engines reach with both directions busy, so
 * the ring kernel cannot reach the link's bandwidth however it is tuned.
 * Here every byte crosses NVLink in a copy-engine copy, always a push
 * (a write into the peer's memory); the SMs only reduce, locally.
 *
 * Rank r owns chunk r of the message (chunks of ceil(count/n) elements,
 * rounded up to 16 bytes), cut into pieces. Four streams:
 *   rs   (side stream): for each piece k, our input's piece k of every
 *        peer's chunk goes into that peer's scratch (cudaMemcpyAsync).
 *        Scratch holds a whole chunk per source rank, so pushes never
 *        wait for the receiver.
 *   sig  (side stream): after those copies (an event), a one-thread kernel
 *        release-stores "piece k landed" into each peer's flag word for us.
 *   main (the call's stream): for each piece k of our chunk, a reduce
 *        kernel waits (acquire) until every peer's piece k has landed, then
 *        reduces our input and the peers' pieces, in rank order, into our
 *        output.
 *   ag   (side stream): after the reduce of piece k (an event), our output's
 *        piece k goes into every peer's output (cudaMemcpyAsync).
 * Pushes of later pieces run while earlier ones are reduced, and both
 * directions of every link carry data all the time.
 *
 * Handshakes per call, by small kernels on the call's stream:
 *   start: each rank release-stores the call's epoch into every peer's
 *          `entered` word and waits (acquire) until every peer's reaches it:
 *          every peer has finished all earlier work on its stream, so no
 *          peer still reads or validates the output we are about to push
 *          into, or still reduces from the scratch we push into.
 *   end:   after its last push (the side streams joined back), each rank
 *          release-stores the epoch into every peer's `done` word and waits
 *          until every peer's reaches it: every push into our output has
 *          landed, and the caller may reuse every buffer.
 * Why a flag stored by a kernel publishes a copy: the kernel runs after
 * the copy has completed (stream order, or an event recorded after it),
 * and a release store is cumulative: it publishes every write that happens
 * before it, the completed copy's included. The acquiring peer then sees
 * the copied bytes; it reads them with ld.global.cg (from L2, never from a
 * stale L1 line of an earlier call).
 * Epochs live on the device (one counter per rank, advanced by the start
 * handshake), so a graph replay advances them without the host. The
 * `landed` word counts pieces, across calls: a call's piece k is
 * base + k + 1, where base (a device word, advanced by the end handshake)
 * counts the pieces of every earlier call, the same on every rank because
 * every rank signals as many pieces per call. All 64-bit and only growing;
 * every wait is >=.
 *
 * Residency: the reduce kernels spin while the signal kernels of the side
 * stream must run, so their grid is fitted leaving an SM free
 * (grid_fit.h); and with several ranks on one GPU (CB_SHARE_GPUS) the kernel
 * refuses the run, since their streams may share the device's in-order
 * hardware queues, where a signal kernel can wait behind a spinning one.
 *
 * In place (send == recv): piece k of chunk p of our buffer is read by our
 * push to rank p (rs) before rank p can push its result for that piece
 * back into it (rank p reduces piece k only after our push landed). Our
 * own chunk is read and written by our reduce, element by element in the
 * same thread. So no byte is read after being overwritten. */
#include <stdint.h>
#include <stdlib.h>

#include "all_reduce_kernels.h"
#include "cuda_check.h"
#include "device/dispatch.cuh"
#include "device/mutation.cuh"
#include "device/reduce.cuh"
#include "device/signal.cuh"
#include "device/type_op_funcs.cuh"
#include "env.h"
#include "grid_fit.h"
#include "peer_memory.h"
#include "rank_chunk.h"

#define CE_THREADS       512
#define CE_MAX_EVENTS    64 /* pieces reuse them round robin */
#define CE_FLAG_STRIDE   32 /* uint64_t words between flags: no false sharing */
#define CE_REDUCE_BLOCKS 66 /* enough to reduce at HBM speed, few enough to leave SMs idle */

enum { W_ENTERED, W_DONE, W_LANDED, W_KINDS };

typedef struct {
  cb_peer_buffer bufs[2]; /* the harness's send and receive buffers, every rank's */
  cb_peer_buffer scratch; /* [source rank] x chunk_cap bytes, written by the sources */
  cb_peer_buffer flags;   /* [kind][source rank] words, written by the sources */
  uint64_t *epoch;        /* device counters: [0] calls so far, [1] pieces of those calls */
  size_t chunk_cap;       /* bytes per source in scratch: the largest chunk */
  int reduce_blocks;      /* at most, fitted to what can be resident */
  cudaStream_t rs, sig, ag;
  cudaEvent_t fork, joined, pushed[CE_MAX_EVENTS], reduced[CE_MAX_EVENTS];
  size_t piece_bytes;
} ce_state;

/* Word of (kind, source rank) in a rank's flag area. */
__host__ __device__ __forceinline__ size_t flag_word(int kind, int src) {
  return ((size_t)kind * CB_MAX_PEERS + src) * CE_FLAG_STRIDE;
}

typedef struct {
  uint64_t *peer_flags[CB_MAX_PEERS]; /* rank r's flag area, as we address it */
  const uint64_t *my_flags;
  uint64_t *epoch;  /* calls so far */
  uint64_t *landed; /* pieces signalled by every earlier call */
  int rank, nranks;
  cb_spin_info spin;
} flag_args;

static flag_args make_flag_args(const ce_state *st, cb_kernel_ctx *ctx) {
  flag_args a;
  for (int r = 0; r < ctx->nranks; r++) a.peer_flags[r] = (uint64_t *)st->flags.ptr[r];
  a.my_flags = (const uint64_t *)st->flags.ptr[ctx->rank];
  a.epoch = st->epoch;
  a.landed = st->epoch + 1;
  a.rank = ctx->rank;
  a.nranks = ctx->nranks;
  a.spin = CB_SPIN_INFO(ctx);
  return a;
}

/* ---- handshakes ---------------------------------------------------------- */

/* One thread per peer: signal it, then wait for it. The end handshake
 * (W_DONE) also counts the call's `pieces` into *a.landed. */
__global__ void ce_handshake(flag_args a, int kind, uint64_t pieces) {
  const int p = threadIdx.x;
  const uint64_t e = *a.epoch + (kind == W_ENTERED ? 1 : 0);
  if (p < a.nranks && p != a.rank) {
    /* Release: publishes everything this rank did before (earlier kernels
     * and, through stream order, completed copies). */
    cb_store_release_sys(a.peer_flags[p] + flag_word(kind, a.rank), e);
    /* Acquire: what the peer did before its release is visible to us and
     * to the work after this kernel on our stream. */
    if (!CB_MUTANT_SKIPS(kind == W_ENTERED ? CB_WAIT_START : CB_WAIT_END))
      cb_wait_geq(a.my_flags + flag_word(kind, p), e, a.spin, p);
  }
  /* Every thread has read *a.epoch; only then advance it (this call's
   * other kernels read the new value, in stream order). The call's signal
   * and reduce kernels, which read *a.landed, are all before the end
   * handshake on the stream (the side streams joined). */
  __syncthreads();
  if (kind == W_ENTERED && threadIdx.x == 0) *a.epoch = e;
  if (kind == W_DONE && threadIdx.x == 0) *a.landed += pieces;
}

/* After the copies of piece k (stream order): tells every peer it landed. */
__global__ void ce_signal_landed(flag_args a, uint64_t k) {
  const int p = threadIdx.x;
  if (p < a.nranks && p != a.rank)
    cb_store_release_sys(a.peer_flags[p] + flag_word(W_LANDED, a.rank), *a.landed + k + 1);
}

/* ---- the reduction of one piece ------------------------------------------ */

typedef struct {
  const void *mine;                 /* our input's piece */
  const void *pulled[CB_MAX_PEERS]; /* rank r's piece (r != rank), in our scratch */
  void *out;
  size_t n; /* elements */
  uint64_t k;
  flag_args f;
} reduce_args;

template <typename T> __device__ __forceinline__ T ld_cg(const T *p) {
  return __ldcg(p);
}
template <> __device__ __forceinline__ __half ld_cg<__half>(const __half *p) {
  return __ushort_as_half(__ldcg((const unsigned short *)p));
}
template <> __device__ __forceinline__ __nv_bfloat16 ld_cg<__nv_bfloat16>(const __nv_bfloat16 *p) {
  return __ushort_as_bfloat16(__ldcg((const unsigned short *)p));
}

/* Waits until every peer's piece k landed, then out = op over ranks 0..n-1
 * of their pieces, in rank order, so every rank computes every element the
 * same way. 16-byte vectors when every pointer allows, elements otherwise
 * (the unaligned tail of an odd count). */
template <typename T, int OP>
__global__ void __launch_bounds__(CE_THREADS) ce_reduce(reduce_args a) {
  const int n = a.f.nranks, me = a.f.rank;
  if (threadIdx.x < n && (int)threadIdx.x != me) {
    const int p = threadIdx.x;
    uint64_t want = *a.f.landed + a.k + 1;
    cb_wait_geq(a.f.my_flags + flag_word(W_LANDED, p), want, a.f.spin, p);
  }
  /* The acquires above, then the barrier: every thread's reads below come
   * after the peers' pieces landed. */
  __syncthreads();
  const size_t per_vec = sizeof(uint4) / sizeof(T);
  const size_t stride = (size_t)gridDim.x * CE_THREADS;
  const size_t tid = (size_t)blockIdx.x * CE_THREADS + threadIdx.x;
  uintptr_t align = (uintptr_t)a.mine | (uintptr_t)a.out;
  for (int r = 0; r < n; r++)
    if (r != me) align |= (uintptr_t)a.pulled[r];
  const size_t nvec = (align & 15) ? 0 : a.n / per_vec;
  for (size_t v = tid; v < nvec; v += stride) {
    uint4 acc = me == 0 ? ((const uint4 *)a.mine)[v] : ld_cg((const uint4 *)a.pulled[0] + v);
    for (int r = 1; r < n; r++) {
      uint4 x = r == me ? ((const uint4 *)a.mine)[v] : ld_cg((const uint4 *)a.pulled[r] + v);
      acc = cb_reduce_pack<T, OP>(acc, x);
    }
    ((uint4 *)a.out)[v] = cb_finalize_pack<T, OP>(acc, n);
  }
  for (size_t e = nvec * per_vec + tid; e < a.n; e += stride) {
    T acc = me == 0 ? ((const T *)a.mine)[e] : ld_cg((const T *)a.pulled[0] + e);
    for (int r = 1; r < n; r++)
      acc = cb_apply<T, OP>(acc,
                            r == me ? ((const T *)a.mine)[e] : ld_cg((const T *)a.pulled[r] + e));
    if (OP == CB_AVG) acc = cb_divide<T>(acc, n);
    ((T *)a.out)[e] = acc;
  }
}

template <typename T, int OP>
static void launch_reduce(const reduce_args *a, int blocks, cudaStream_t s) {
  ce_reduce<T, OP><<<blocks, CE_THREADS, 0, s>>>(*a);
}

CB_DEFINE_TYPE_OP_FUNCS(reduce_funcs, ce_reduce)

/* ---- setup --------------------------------------------------------------- */

static size_t ceil_div(size_t a, size_t b) {
  return (a + b - 1) / b;
}
static size_t min_size(size_t a, size_t b) {
  return a < b ? a : b;
}

extern "C" void cb_ar_ce_setup(cb_kernel_ctx *ctx) {
  /* On every rank alike: nothing set up, ctx->state stays NULL. */
  if (cb_refuse_shared_gpus(ctx, "its reduce kernels wait on signal kernels of another stream"))
    return;
  ce_state *st = (ce_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  const int n = ctx->nranks;
  /* Tunable, equal on every rank. Pieces: large enough that a copy runs at
   * full speed, small enough that the pipeline's fill and drain (one push
   * each way) are a small share of a large message. At 1 GiB on 2 x H200
   * (results/h200x2/2026-11-30-f23c122/ce_tuning.txt, -s3/ce_tuning.txt and
   * ce_mpi.txt), 8, 16, 32 and 64 MiB pieces gave 340, 359, 373 and 380
   * GB/s as one process (one piece of 512 MiB, no pipeline: 308), and 288,
   * 300, 312 and 318 under mpirun (one piece: 279): each piece costs a few
   * microseconds of copy-engine and launch gaps. */
  st->piece_bytes = (size_t)cb_env_long("CB_CE_PIECE", 64 << 20, 64 << 10, 1 << 30);
  if (st->piece_bytes % 16) cb_fatal("CB_CE_PIECE must be a multiple of 16 bytes");
  /* The largest chunk of any datatype: ceil(count/n) elements rounded up to
   * 16 bytes, at most ceil(max_bytes/n) + 16 + 8 bytes. */
  st->chunk_cap = (ceil_div(ctx->max_bytes, n) + 32 + 15) / 16 * 16;
  cb_peer_share(ctx->world, ctx->send_buf, ctx->send_buf_bytes, &st->bufs[0]);
  cb_peer_share(ctx->world, ctx->recv_buf, ctx->recv_buf_bytes, &st->bufs[1]);
  cb_peer_alloc(ctx->world, (size_t)n * st->chunk_cap, &st->scratch);
  cb_peer_alloc(ctx->world, flag_word(W_KINDS, 0) * sizeof(uint64_t), &st->flags);
  CB_CUDA(cudaMalloc((void **)&st->epoch, 2 * sizeof *st->epoch));
  CB_CUDA(cudaMemset(st->epoch, 0, 2 * sizeof *st->epoch));
  CB_CUDA(cudaStreamCreateWithFlags(&st->rs, cudaStreamNonBlocking));
  CB_CUDA(cudaStreamCreateWithFlags(&st->sig, cudaStreamNonBlocking));
  CB_CUDA(cudaStreamCreateWithFlags(&st->ag, cudaStreamNonBlocking));
  CB_CUDA(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
  CB_CUDA(cudaEventCreateWithFlags(&st->joined, cudaEventDisableTiming));
  for (int i = 0; i < CE_MAX_EVENTS; i++) {
    CB_CUDA(cudaEventCreateWithFlags(&st->pushed[i], cudaEventDisableTiming));
    CB_CUDA(cudaEventCreateWithFlags(&st->reduced[i], cudaEventDisableTiming));
  }
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
  /* One SM left for the signal kernels that must run beside the reduce. */
  const void *funcs[CB_TYPE_OP_FUNCS];
  st->reduce_blocks =
      cb_fit_grid_all(ctx, funcs, reduce_funcs(funcs), CE_THREADS, 0, 1, CE_REDUCE_BLOCKS, 1);
}

extern "C" void cb_ar_ce_teardown(cb_kernel_ctx *ctx) {
  ce_state *st = (ce_state *)ctx->state;
  if (!st) return; /* the setup refused the run */
  CB_CUDA(cudaDeviceSynchronize());
  cb_peer_free(ctx->world, &st->bufs[0]);
  cb_peer_free(ctx->world, &st->bufs[1]);
  cb_peer_free(ctx->world, &st->scratch);
  cb_peer_free(ctx->world, &st->flags);
  CB_CUDA(cudaFree(st->epoch));
  CB_CUDA(cudaStreamDestroy(st->rs));
  CB_CUDA(cudaStreamDestroy(st->sig));
  CB_CUDA(cudaStreamDestroy(st->ag));
  CB_CUDA(cudaEventDestroy(st->fork));
  CB_CUDA(cudaEventDestroy(st->joined));
  for (int i = 0; i < CE_MAX_EVENTS; i++) {
    CB_CUDA(cudaEventDestroy(st->pushed[i]));
    CB_CUDA(cudaEventDestroy(st->reduced[i]));
  }
  free(st);
  ctx->state = NULL;
}

/* ---- launch -------------------------------------------------------------- */

/* rs: piece k of every peer's chunk, from our input into the peer's scratch;
 * sig: then the landed signal. The signal kernel runs on its own stream so
 * the copy engine goes from one piece's copies straight to the next's
 * instead of idling while a kernel is launched between them. */
static void push_rs_piece(const ce_state *st, cb_kernel_ctx *ctx, const cb_call *call, size_t k,
                          const flag_args *f) {
  const int n = ctx->nranks, me = ctx->rank;
  const size_t esz = cb_dtype_size(call->dtype), piece = st->piece_bytes / esz;
  for (int p = 0; p < n; p++) {
    size_t c0, clen;
    cb_rank_chunk(call->count, n, esz, p, &c0, &clen);
    if (p == me || k * piece >= clen) continue;
    size_t len = min_size(piece, clen - k * piece);
    char *dst = (char *)st->scratch.ptr[p] + (size_t)me * st->chunk_cap + k * st->piece_bytes;
    const char *src = (const char *)call->send + (c0 + k * piece) * esz;
    CB_CUDA(cudaMemcpyAsync(dst, src, len * esz, cudaMemcpyDefault, st->rs));
  }
  cudaEvent_t pushed = st->pushed[k % CE_MAX_EVENTS];
  CB_CUDA(cudaEventRecord(pushed, st->rs));
  CB_CUDA(cudaStreamWaitEvent(st->sig, pushed, 0));
  ce_signal_landed<<<1, 32, 0, st->sig>>>(*f, (uint64_t)k);
  CB_CUDA(cudaGetLastError());
}

/* main: the reduce of piece k of our chunk; ag: its result to every peer. */
static void reduce_and_push(const ce_state *st, cb_kernel_ctx *ctx, const cb_call *call, size_t k,
                            const flag_args *f, cudaStream_t s) {
  const int n = ctx->nranks, me = ctx->rank;
  const size_t esz = cb_dtype_size(call->dtype), piece = st->piece_bytes / esz;
  size_t c0, clen;
  cb_rank_chunk(call->count, n, esz, me, &c0, &clen);
  const size_t off = c0 + k * piece, len = min_size(piece, clen - k * piece);
  reduce_args a;
  a.mine = (const char *)call->send + off * esz;
  a.out = (char *)call->recv + off * esz;
  a.n = len;
  a.k = (uint64_t)k;
  a.f = *f;
  for (int p = 0; p < n; p++)
    a.pulled[p] = p == me ? NULL
                          : (const char *)st->scratch.ptr[me] + (size_t)p * st->chunk_cap +
                                k * st->piece_bytes;
  int blocks =
      (int)min_size(ceil_div(ceil_div(len * esz, 16), CE_THREADS), (size_t)st->reduce_blocks);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_reduce, &a, blocks, s);
  CB_CUDA(cudaGetLastError());
  cudaEvent_t done = st->reduced[k % CE_MAX_EVENTS];
  CB_CUDA(cudaEventRecord(done, s));
  CB_CUDA(cudaStreamWaitEvent(st->ag, done, 0));
  for (int p = 0; p < n; p++) {
    if (p == me) continue;
    void *dst = cb_peer_ptr_in(&st->bufs[1], 1, p, a.out);
    CB_CUDA(cudaMemcpyAsync(dst, a.out, len * esz, cudaMemcpyDefault, st->ag));
  }
}

extern "C" void cb_ar_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t s) {
  const ce_state *st = (const ce_state *)ctx->state;
  if (call->count == 0) return;
  const int n = ctx->nranks, me = ctx->rank;
  const size_t esz = cb_dtype_size(call->dtype), piece = st->piece_bytes / esz;
  /* In place, send lies in the receive buffer. */
  if (!cb_peer_ptr_in(st->bufs, 2, me, call->send) ||
      !cb_peer_ptr_in(&st->bufs[1], 1, me, call->recv))
    cb_fatal("kernel %s: buffers outside the harness's", ctx->kernel_name);
  size_t c0, clen, first_len;
  cb_rank_chunk(call->count, n, esz, me, &c0, &clen);
  cb_rank_chunk(call->count, n, esz, 0, &c0, &first_len); /* chunk 0 is the longest */
  const flag_args f = make_flag_args(st, ctx);

  const size_t pieces = ceil_div(first_len, piece); /* every rank signals this many */
  ce_handshake<<<1, 32, 0, s>>>(f, W_ENTERED, 0);
  CB_CUDA(cudaGetLastError());
  CB_CUDA(cudaEventRecord(st->fork, s));
  CB_CUDA(cudaStreamWaitEvent(st->rs, st->fork, 0));
  CB_CUDA(cudaStreamWaitEvent(st->sig, st->fork, 0));
  CB_CUDA(cudaStreamWaitEvent(st->ag, st->fork, 0));
  /* Every rank signals as many pieces as the longest chunk has, so a
   * peer's wait for any piece of its chunk is matched. */
  for (size_t k = 0; k < pieces; k++) push_rs_piece(st, ctx, call, k, &f);
  for (size_t k = 0; k < ceil_div(clen, piece); k++) reduce_and_push(st, ctx, call, k, &f, s);
  /* Join the side streams before the end handshake. */
  CB_CUDA(cudaEventRecord(st->joined, st->ag));
  CB_CUDA(cudaStreamWaitEvent(s, st->joined, 0));
  CB_CUDA(cudaEventRecord(st->joined, st->sig)); /* after every copy of rs, too */
  CB_CUDA(cudaStreamWaitEvent(s, st->joined, 0));
  ce_handshake<<<1, 32, 0, s>>>(f, W_DONE, (uint64_t)pieces);
  CB_CUDA(cudaGetLastError());
}
