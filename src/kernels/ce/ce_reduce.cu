/* Copy engines push, SMs reduce (ce_reduce.h): the reduce-scatter of
 * all_reduce and reduce_scatter -k ce.
 *
 * SM stores over NVLink top out near 370 GB/s one way on H200, below the
 * ~390 GB/s per direction copy engines reach with both directions busy.
 * Here every byte crosses NVLink in a copy-engine copy, always a push (a
 * write into the peer's memory); the SMs only reduce, locally.
 *
 * Rank p owns part p of the input, cut into pieces. Three streams:
 *   rs   (side stream): for each piece k, our input's piece k of every
 *        peer's part goes into our slot of that peer's scratch
 *        (cudaMemcpyAsync). Scratch holds a whole part per source rank, so
 *        pushes never wait for the receiver.
 *   sig  (side stream): after those copies (an event), a one-thread kernel
 *        release-stores "piece k landed" into each peer's flag word for us.
 *   the call's stream: for each piece k of our part, a reduce kernel waits
 *        (acquire) until every peer's piece k has landed, then reduces our
 *        input and the peers' pieces, in rank order, into our output.
 * Pushes of later pieces run while earlier ones are reduced, and both
 * directions of every link carry data all the time. (all_reduce then
 * pushes each reduced piece into every peer's output on a third side
 * stream, ag.)
 *
 * Handshakes per call, by one-block kernels on the call's stream:
 *   entry: each rank release-stores the call's epoch into every peer's
 *          `entered` word and waits (acquire) until every peer's reaches it:
 *          every peer has finished all earlier work on its stream, so no
 *          peer still reduces from the scratch we push into (or, in
 *          all_reduce, still reads or validates the output we push into).
 *   exit:  (all_reduce only) after its last push (the side streams joined
 *          back), each rank release-stores the epoch into every peer's
 *          `done` word and waits until every peer's reaches it: every push
 *          into our output has landed, and the caller may reuse every
 *          buffer. A reduce-scatter pushes only into scratch, which the
 *          next call's entry handshake protects, and its output is written
 *          by its own reduce on its own stream: it needs no exit handshake.
 * Why a flag stored by a kernel publishes a copy: the kernel runs after
 * the copy has completed (stream order, or an event recorded after it),
 * and a release store is cumulative: it publishes every write that happens
 * before it, the completed copy's included. The acquiring peer then sees
 * the copied bytes; it reads them with ld.global.cg (from L2, never from a
 * stale L1 line of an earlier call).
 *
 * Counters live on the device, so a graph replay advances them without the
 * host: calls so far (the epoch, advanced by the entry handshake), and
 * pieces signalled before this call and through it. Every rank signals the
 * same number of pieces per call (those of the longest part), so these
 * agree on every rank; a `landed` word holds the sender's count of pieces
 * signalled (64 bits, it only grows, across calls too), and the reduce of
 * piece k waits for >= pieces-before-this-call + k + 1.
 *
 * Our signal k goes to the hardware before our reduce k. Every rank's
 * reduce k spins until every peer's signal k arrives, so if a GPU ran its
 * reduce k ahead of its own signal k in one in-order hardware queue, that
 * signal would wait behind the spinning reduce on every rank at once: a
 * hang. In stream mode the host issues every signal of a call (in
 * cb_ce_reduce_begin) before any reduce, but a captured graph keeps only
 * the edges between its nodes, and the signal stream's chain has none to
 * the call's stream until the join: with CUDA_DEVICE_MAX_CONNECTIONS=1, or
 * with more branches than hardware queues, the graph may put reduce k
 * first. So reduce k waits for an event recorded after our signal k
 * (signalled[k]). By induction on k, whatever the queues: every rank's
 * signal k - 1 completed before its reduce k - 1 began, so every reduce
 * k - 1 ends, and then nothing of ours that signal k could queue behind
 * still spins; reduce k starts after our signal k and waits only for the
 * peers' signals k, which are ahead of their reduce k in the same way.
 * (A reduce's grid leaves an SM free for the signal kernels beside it.)
 * The wait costs little: signal k follows our own pushes of piece k,
 * which take as long as the peers' pushes that reduce k waits for.
 *
 * A skip_ce_landed mutant (device/mutation.cuh) reduces without
 * waiting for the pieces to land: the checks must find wrong values. */
#include "ce_reduce.h"

#include <stdlib.h>

#include "collbench/cuda_check.h"
#include "collbench/device/dispatch.cuh"
#include "collbench/device/peer_pick.cuh"
#include "collbench/device/mutation.cuh"
#include "collbench/device/reduce.cuh"
#include "collbench/device/signal.cuh"
#include "collbench/device/type_op_funcs.cuh"
#include "collbench/device/vec.cuh"
#include "collbench/error.h"
#include "grid_fit.h"
#include "collbench/tunables.h"

/* How the ce reduce-scatter cuts the longest part into pieces
 * (cb_ce_plan). Each piece costs a few microseconds of copy-engine and
 * launch gaps; the reduce of the last piece is the pipeline's drain.
 * all_reduce hides that drain behind its all-gather copies, so it wants
 * few equal pieces: at 1 GiB on 2 x H200 (docs/kernels.md, "ce: pieces
 * and the taper", both launches) 2, 3, 4 and 6 pieces per part gave
 * 386.9, 384.1, 384.6 and 382.1 GB/s (one piece, no pipeline: 308). A
 * reduce-scatter has nothing to hide its drain behind: there 2, 4, 8 and
 * 16 equal pieces gave 297, 333, 352 and 357 GB/s, and pieces that take
 * 60, 50, 40 and 30 percent of what is left of the part 308, 331, 353
 * and 368: a taper keeps the last reduce short with few pieces. At most
 * CB_CE_MAX_PIECES (ce_plan.h) pieces, moved in 16-byte accesses. Each
 * kernel's pieces and taper are its own file's rows (all_reduce_ce.cu,
 * reduce_scatter_ce.cu); the least piece is both's. */
CB_REGISTER_TUNABLES(ce_reduce,
                     CB_TUNABLE_NUMBER("CB_CE_MIN_PIECE", 16, 1L << 30, 16, 2 << 20, CB_TUNE_AGREE,
                                       "all_reduce and reduce_scatter -k ce: bytes of a piece, at "
                                       "least"));

#define CE_THREADS       512
#define CE_FLAG_STRIDE   32 /* uint64_t words between flags: no false sharing */
#define CE_REDUCE_BLOCKS 66 /* enough to reduce at HBM speed, few enough to leave SMs idle */

enum { W_ENTERED, W_DONE, W_LANDED, W_KINDS };
enum { C_CALLS, C_PIECES_BEFORE, C_PIECES_AFTER, C_COUNTERS };

/* Word of (kind, source rank) in a rank's flag area. */
__host__ __device__ __forceinline__ size_t flag_word(int kind, int src) {
  return ((size_t)kind * CB_MAX_PEERS + src) * CE_FLAG_STRIDE;
}

typedef struct {
  uint64_t *peer_flags[CB_MAX_PEERS]; /* rank r's flag area, as we address it */
  const uint64_t *my_flags;
  uint64_t *counters;
  int rank, nranks;
  cb_spin_info spin;
} flag_args;

static flag_args make_flag_args(const cb_ce_reduce_state *st, cb_kernel_ctx *ctx) {
  flag_args a;
  for (int r = 0; r < ctx->nranks; r++) a.peer_flags[r] = (uint64_t *)st->flags.ptr[r];
  a.my_flags = (const uint64_t *)st->flags.ptr[ctx->rank];
  a.counters = st->counters;
  a.rank = ctx->rank;
  a.nranks = ctx->nranks;
  a.spin = CB_SPIN_INFO(ctx);
  return a;
}

/* ---- handshakes and signals ---------------------------------------------- */

/* One thread per peer: signal it, then wait for it. The entry handshake
 * also starts the call's piece count: `pieces` will be signalled. */
__global__ void ce_handshake(flag_args a, int kind, uint64_t pieces) {
  const int p = threadIdx.x;
  const uint64_t e = a.counters[C_CALLS] + (kind == W_ENTERED ? 1 : 0);
  if (p < a.nranks && p != a.rank) {
    /* Release: publishes everything this rank did before (earlier kernels
     * and, through stream order, completed copies). */
    cb_store_release_sys(cb_peer_pick(a.peer_flags, p) + flag_word(kind, a.rank), e);
    /* Acquire: what the peer did before its release is visible to us and
     * to the work after this kernel on our stream. */
    if (!CB_MUTANT_SKIPS(kind == W_ENTERED ? CB_WAIT_START : CB_WAIT_END))
      cb_wait_geq(a.my_flags + flag_word(kind, p), e, a.spin, p);
  }
  /* Every thread has read the counters; only then advance them (this
   * call's other kernels read the new values, in stream order). */
  __syncthreads();
  if (kind == W_ENTERED && threadIdx.x == 0) {
    a.counters[C_CALLS] = e;
    a.counters[C_PIECES_BEFORE] = a.counters[C_PIECES_AFTER];
    a.counters[C_PIECES_AFTER] += pieces;
  }
}

/* The count a peer's `landed` word reaches once piece k of this call landed. */
__device__ __forceinline__ uint64_t landed_count(const flag_args &a, uint32_t k) {
  return a.counters[C_PIECES_BEFORE] + k + 1;
}

/* After the copies of piece k (stream order): tells every peer it landed. */
__global__ void ce_signal_landed(flag_args a, uint32_t k) {
  const int p = threadIdx.x;
  if (p < a.nranks && p != a.rank)
    cb_store_release_sys(cb_peer_pick(a.peer_flags, p) + flag_word(W_LANDED, a.rank),
                         landed_count(a, k));
}

/* ---- the reduction of one piece ------------------------------------------ */

typedef struct {
  const void *mine;                 /* our input's piece */
  const void *pulled[CB_MAX_PEERS]; /* rank r's piece (r != rank), in our scratch */
  void *out;
  size_t n; /* elements */
  uint32_t k;
  flag_args f;
} reduce_args;

/* Waits until every peer's piece k landed, then out = op over ranks 0..n-1
 * of their pieces, in rank order, so every rank computes every element the
 * same way. 16-byte vectors when every pointer allows, elements otherwise
 * (the unaligned tail of an odd count). */
template <typename T, int OP>
__global__ void __launch_bounds__(CE_THREADS) ce_reduce(reduce_args a) {
  const int n = a.f.nranks, me = a.f.rank;
  if (threadIdx.x < n && (int)threadIdx.x != me && !CB_MUTANT_SKIPS(CB_WAIT_CE_LANDED)) {
    const int p = threadIdx.x;
    cb_wait_geq(a.f.my_flags + flag_word(W_LANDED, p), landed_count(a.f, a.k), a.f.spin, p);
  }
  /* The acquires above, then the barrier: every thread's reads below come
   * after the peers' pieces landed. */
  __syncthreads();
  const size_t per_vec = sizeof(uint4) / sizeof(T);
  const size_t stride = (size_t)gridDim.x * CE_THREADS;
  const size_t tid = (size_t)blockIdx.x * CE_THREADS + threadIdx.x;
  uintptr_t align = (uintptr_t)a.mine | (uintptr_t)a.out;
  for (int r = 0; r < n; r++)
    if (r != me) align |= (uintptr_t)cb_peer_pick(a.pulled, r);
  const size_t nvec = (align & 15) ? 0 : a.n / per_vec;
  for (size_t v = tid; v < nvec; v += stride) {
    uint4 acc = make_uint4(0, 0, 0, 0);
    for (int r = 0; r < n; r++) {
      uint4 x = r == me ? ((const uint4 *)a.mine)[v]
                        : cb_ld_cg((const uint4 *)cb_peer_pick(a.pulled, r) + v);
      acc = cb_reduce_rank_pack<T, OP>(acc, x, r);
    }
    ((uint4 *)a.out)[v] = cb_finalize_pack<T, OP>(acc, n);
  }
  for (size_t e = nvec * per_vec + tid; e < a.n; e += stride) {
    T acc = cb_from_int<T>(0);
    for (int r = 0; r < n; r++)
      acc = cb_apply_rank<T, OP>(
          acc,
          r == me ? ((const T *)a.mine)[e] : cb_ld_cg((const T *)cb_peer_pick(a.pulled, r) + e), r);
    if (OP == CB_AVG) acc = cb_divide<T>(acc, n);
    ((T *)a.out)[e] = acc;
  }
}

CB_DEFINE_TYPE_OP_LAUNCH(launch_reduce, ce_reduce, reduce_args)

/* ---- setup --------------------------------------------------------------- */

static size_t ceil_div(size_t a, size_t b) {
  return (a + b - 1) / b;
}
static size_t min_size(size_t a, size_t b) {
  return a < b ? a : b;
}

CB_DEFINE_TYPE_OP_FUNCS(reduce_funcs, ce_reduce)

extern "C" void cb_ce_reduce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply,
                                   const cb_ce_schedule *sched) {
  /* Residency: the reduce kernels spin while the signal kernels of the side
   * stream must run, so their grid is fitted leaving an SM free
   * (grid_fit.h); and with several ranks on one GPU (CB_SHARE_GPUS) the
   * kernel refuses the run, since their streams may share the device's
   * in-order hardware queues, where a signal kernel can wait behind a
   * spinning one. On every rank alike: nothing set up, ctx->state stays NULL. */
  if (cb_refuse_shared_gpus(ctx, reply,
                            "its reduce kernels wait on signal kernels of another stream"))
    return;
  cb_ce_reduce_state *st = (cb_ce_reduce_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  const int n = ctx->nranks;
  /* How a call cuts the longest part into pieces (cb_ce_plan): checked at
   * start and equal on every rank (their rows, in the kernels' files and
   * above, hold the defaults and why), since rank p reduces the pieces its
   * peers cut and signal. */
  st->cut.pieces = (size_t)cb_tunable(sched->pieces_env);
  st->cut.taper = (size_t)cb_tunable(sched->taper_env);
  st->cut.min_piece = (size_t)cb_tunable("CB_CE_MIN_PIECE");
  /* The largest part of any datatype: all_reduce's chunks are ceil(count/n)
   * elements rounded up to 16 bytes, at most ceil(max_bytes/n) + 16 + 8
   * bytes; a reduce-scatter's blocks are at most max_bytes/n. */
  st->part_cap = (ceil_div(ctx->max_bytes, n) + 32 + 15) / 16 * 16;
  cb_peer_share(ctx->world, ctx->send_buf, ctx->send_buf_bytes, &st->bufs[0]);
  cb_peer_share(ctx->world, ctx->recv_buf, ctx->recv_buf_bytes, &st->bufs[1]);
  cb_peer_alloc(ctx->world, (size_t)n * st->part_cap, &st->scratch);
  cb_peer_alloc(ctx->world, flag_word(W_KINDS, 0) * sizeof(uint64_t), &st->flags);
  CB_CUDA(cudaMalloc((void **)&st->counters, C_COUNTERS * sizeof *st->counters));
  CB_CUDA(cudaMemset(st->counters, 0, C_COUNTERS * sizeof *st->counters));
  CB_CUDA(cudaStreamCreateWithFlags(&st->rs, cudaStreamNonBlocking));
  CB_CUDA(cudaStreamCreateWithFlags(&st->sig, cudaStreamNonBlocking));
  CB_CUDA(cudaStreamCreateWithFlags(&st->ag, cudaStreamNonBlocking));
  CB_CUDA(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
  CB_CUDA(cudaEventCreateWithFlags(&st->joined, cudaEventDisableTiming));
  for (int i = 0; i < CB_CE_MAX_EVENTS; i++) {
    CB_CUDA(cudaEventCreateWithFlags(&st->pushed[i], cudaEventDisableTiming));
    CB_CUDA(cudaEventCreateWithFlags(&st->reduced[i], cudaEventDisableTiming));
    CB_CUDA(cudaEventCreateWithFlags(&st->signalled[i], cudaEventDisableTiming));
  }
  /* One SM left for the signal kernels that must run beside the reduce. */
  const void *funcs[CB_TYPE_OP_FUNCS];
  st->reduce_blocks = cb_fit_grid_all(ctx, reply, funcs, reduce_funcs(funcs), CE_THREADS, 0, 1,
                                      CE_REDUCE_BLOCKS, 1);
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

extern "C" void cb_ce_reduce_teardown(cb_kernel_ctx *ctx) {
  cb_ce_reduce_state *st = (cb_ce_reduce_state *)ctx->state;
  if (!st) return; /* the setup refused the run */
  CB_CUDA(cudaDeviceSynchronize());
  cb_peer_free(ctx->world, &st->bufs[0]);
  cb_peer_free(ctx->world, &st->bufs[1]);
  cb_peer_free(ctx->world, &st->scratch);
  cb_peer_free(ctx->world, &st->flags);
  CB_CUDA(cudaFree(st->counters));
  CB_CUDA(cudaStreamDestroy(st->rs));
  CB_CUDA(cudaStreamDestroy(st->sig));
  CB_CUDA(cudaStreamDestroy(st->ag));
  CB_CUDA(cudaEventDestroy(st->fork));
  CB_CUDA(cudaEventDestroy(st->joined));
  for (int i = 0; i < CB_CE_MAX_EVENTS; i++) {
    CB_CUDA(cudaEventDestroy(st->pushed[i]));
    CB_CUDA(cudaEventDestroy(st->reduced[i]));
    CB_CUDA(cudaEventDestroy(st->signalled[i]));
  }
  free(st);
  ctx->state = NULL;
}

/* ---- launch -------------------------------------------------------------- */

/* rs: piece k of every peer's part, from our input into the peer's scratch;
 * sig: then the landed signal. The signal kernel runs on its own stream so
 * the copy engine goes from one piece's copies straight to the next's
 * instead of idling while a kernel is launched between them. */
static void push_piece(const cb_ce_reduce_state *st, cb_kernel_ctx *ctx, const cb_call *call,
                       const cb_ce_parts *parts, size_t k, const flag_args *f) {
  const int n = ctx->nranks, me = ctx->rank;
  const size_t esz = cb_dtype_size(call->dtype);
  for (int p = 0; p < n; p++) {
    size_t off, take = cb_ce_piece(parts, parts->len[p], k, &off);
    if (p == me || take == 0) continue;
    char *dst = (char *)st->scratch.ptr[p] + (size_t)me * st->part_cap + off * esz;
    const char *src = (const char *)call->send + (parts->first[p] + off) * esz;
    CB_CUDA(cudaMemcpyAsync(dst, src, take * esz, cudaMemcpyDefault, st->rs));
  }
  cudaEvent_t pushed = st->pushed[k % CB_CE_MAX_EVENTS];
  CB_CUDA(cudaEventRecord(pushed, st->rs));
  CB_CUDA(cudaStreamWaitEvent(st->sig, pushed, 0));
  ce_signal_landed<<<1, 32, 0, st->sig>>>(*f, (uint32_t)k);
  CB_CUDA(cudaGetLastError());
  CB_CUDA(cudaEventRecord(st->signalled[k % CB_CE_MAX_EVENTS], st->sig));
}

/* The reduce's grid for a piece of `bytes` bytes: a thread a 16-byte
 * vector, at most the blocks fitted at setup. */
static int reduce_blocks_for(const cb_ce_reduce_state *st, size_t bytes) {
  return (int)min_size(ceil_div(ceil_div(bytes, 16), CE_THREADS), (size_t)st->reduce_blocks);
}

extern "C" void cb_ce_reduce_begin(cb_kernel_ctx *ctx, const cb_call *call,
                                   const cb_ce_parts *parts, cudaStream_t s) {
  const cb_ce_reduce_state *st = (const cb_ce_reduce_state *)ctx->state;
  const int me = ctx->rank;
  /* In place, send lies in the receive buffer. */
  if (!cb_peer_ptr_in(st->bufs, 2, me, call->send) ||
      !cb_peer_ptr_in(&st->bufs[1], 1, me, call->recv))
    cb_fatal("kernel %s: buffers outside the harness's", ctx->kernel_name);
  const size_t pieces = parts->pieces;
  const flag_args f = make_flag_args(st, ctx);
  ce_handshake<<<1, 32, 0, s>>>(f, W_ENTERED, pieces);
  CB_CUDA(cudaGetLastError());
  CB_CUDA(cudaEventRecord(st->fork, s));
  CB_CUDA(cudaStreamWaitEvent(st->rs, st->fork, 0));
  CB_CUDA(cudaStreamWaitEvent(st->sig, st->fork, 0));
  CB_CUDA(cudaStreamWaitEvent(st->ag, st->fork, 0));
  /* Every rank signals as many pieces as the longest part has, so a peer's
   * wait for any piece of its part is matched. */
  for (size_t k = 0; k < pieces; k++) push_piece(st, ctx, call, parts, k, &f);
}

extern "C" cudaEvent_t cb_ce_reduce_piece(cb_kernel_ctx *ctx, const cb_call *call,
                                          const cb_ce_parts *parts, size_t k, void *out,
                                          cudaStream_t s) {
  const cb_ce_reduce_state *st = (const cb_ce_reduce_state *)ctx->state;
  const int n = ctx->nranks, me = ctx->rank;
  const size_t esz = cb_dtype_size(call->dtype);
  size_t at, len = cb_ce_piece(parts, parts->len[me], k, &at);
  reduce_args a;
  a.mine = (const char *)call->send + (parts->first[me] + at) * esz;
  a.out = (char *)out + at * esz;
  a.n = len;
  a.k = (uint32_t)k;
  a.f = make_flag_args(st, ctx);
  for (int p = 0; p < n; p++)
    a.pulled[p] =
        p == me ? NULL : (const char *)st->scratch.ptr[me] + (size_t)p * st->part_cap + at * esz;
  int blocks = reduce_blocks_for(st, len * esz);
  /* Our signal k before our reduce k, in any graph (see the top). */
  CB_CUDA(cudaStreamWaitEvent(s, st->signalled[k % CB_CE_MAX_EVENTS], 0));
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_reduce, &a, blocks, CE_THREADS, s);
  CB_CUDA(cudaGetLastError());
  cudaEvent_t done = st->reduced[k % CB_CE_MAX_EVENTS];
  CB_CUDA(cudaEventRecord(done, s));
  return done;
}

extern "C" void cb_ce_reduce_end(cb_kernel_ctx *ctx, int done_handshake, cudaStream_t s) {
  const cb_ce_reduce_state *st = (const cb_ce_reduce_state *)ctx->state;
  /* Join the side streams before anything after the call. */
  CB_CUDA(cudaEventRecord(st->joined, st->ag));
  CB_CUDA(cudaStreamWaitEvent(s, st->joined, 0));
  CB_CUDA(cudaEventRecord(st->joined, st->sig)); /* after every copy of rs, too */
  CB_CUDA(cudaStreamWaitEvent(s, st->joined, 0));
  if (!done_handshake) return;
  ce_handshake<<<1, 32, 0, s>>>(make_flag_args(st, ctx), W_DONE, 0);
  CB_CUDA(cudaGetLastError());
}

/* ---- resources ----------------------------------------------------------- */

/* The reduce instance a launch for (dtype, op) picks. */
template <typename T, int OP> static void reduce_func(const void **f) {
  *f = (const void *)ce_reduce<T, OP>;
}

extern "C" void cb_ce_reduce_resources(const cb_kernel_ctx *ctx, const cb_call *call,
                                       const cb_ce_parts *parts, int push_results,
                                       int done_handshake, cb_kernel_resources *r) {
  const cb_ce_reduce_state *st = (const cb_ce_reduce_state *)ctx->state;
  const int n = ctx->nranks, me = ctx->rank;
  const size_t esz = cb_dtype_size(call->dtype);
  int reduces = 0, most = 0, pushes = 0, results = 0;
  for (size_t k = 0; k < parts->pieces; k++) {
    size_t off, len = cb_ce_piece(parts, parts->len[me], k, &off);
    for (int p = 0; p < n; p++)
      if (p != me && cb_ce_piece(parts, parts->len[p], k, &off)) pushes++;
    if (!len || reduces < (int)k) continue; /* as the launch: up to our part's first empty piece */
    reduces++;
    results += push_results ? n - 1 : 0;
    int blocks = reduce_blocks_for(st, len * esz);
    most = blocks > most ? blocks : most;
  }
  cb_grid_use *g = cb_res_grid(r, "handshake", (const void *)ce_handshake, 1, 32, 0);
  if (g) g->launches = done_handshake ? 2 : 1;
  const void *func = NULL;
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, reduce_func, &func);
  if ((g = cb_res_grid(r, "reduce", func, (unsigned)most, CE_THREADS, 0)) != NULL)
    g->launches = reduces;
  if ((g = cb_res_grid(r, "signal", (const void *)ce_signal_landed, 1, 32, 0)) != NULL) {
    g->launches = (int)parts->pieces;
    g->beside = 1;
  }
  r->side_streams = push_results ? 3 : 2;
  r->copies = pushes + results;
  r->copy_streams = (pushes > 0) + (results > 0);
}
