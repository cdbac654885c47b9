/* -k ll2: two-shot LL all-reduce, for small messages on 3 to 8 ranks.
 *
 * One-shot LL (-k ll) pushes the whole input to each of the n-1 peers: at
 * 8 ranks a rank sends 7 copies of it, and receives and reduces 7. Two-shot
 * sends 2(n-1)/n of it, in two hops:
 *   shot 1 (reduce-scatter): the input is cut into n chunks of C packets;
 *          every rank pushes chunk q, as LL16 packets, into its slot of
 *          rank q's scratch (region 1);
 *   reduce: rank q polls region 1 until every peer's packets of its chunk
 *          carry the epoch, reduces them with its own in rank order 0, 1,
 *          .., n-1, stores the result into its output, and
 *   shot 2 (all-gather): pushes the result, as packets, into its slot of
 *          every peer's scratch (region 2);
 *   pull:  every rank polls region 2 until every peer's result packets
 *          carry the epoch, and stores them into the peers' chunks of its
 *          output.
 * Each element is reduced once, by the rank owning its chunk, so every rank
 * holds the same bits. At 2 ranks the two shots send what one shot sends,
 * one hop later: there ll2 is the one-shot ll (all_reduce_ll.cu), on this
 * kernel's scratch, which holds a whole message per source at 2 ranks.
 *
 * Tiles and epochs (device/ll_tiles.cuh): tile t is packets 32t..32t+31 of
 * a chunk, handled by one warp in all four steps (the push of every chunk's
 * tile t, the reduce of our chunk's, the pull of every chunk's), with one
 * epoch; a packet's place in either region is its index in the chunk. The
 * last chunks may be shorter than C, or empty; their missing packets are
 * sent and received anyway, as zeros (never stored into an output), so
 * every call covering tile t reads lane 0's packet of tile t from every
 * peer in both regions; and lanes past C write filler packets, so every
 * slot of a tile is rewritten at every epoch of its half (ll_tiles.cuh,
 * "Counters"; each region is a whole number of tiles). Double buffering
 * then holds for both regions: our
 * warp writing a peer's half e%2 at epoch e+2 (region 1 in shot 1, region
 * 2 in shot 2) finished tile t at epoch e+1 only after reading the peer's
 * region-2 packets of tile t at e+1, which the peer wrote in a launch that
 * started after its launch for epoch e (its last reads of half e%2, in
 * both regions) had completed. No warp waits before its pushes of shot 1
 * are out, and a reduce waits only on shot-1 packets, so with every warp
 * resident (checked at setup) every wait ends.
 *
 * What the halves guard. A packet of the message could do with one half:
 * its rewrite at e+1 follows a round trip through its reader. In region 1
 * the reader reduces it into the result the writer pulls before its launch
 * for e ends; in region 2 the writer computes it at e+1 from the reader's
 * shot-1 packet of e+1, sent after the reader's launch for e. A filler
 * packet of shot 2 (a lane past C) waits for nothing, and a warp's lanes
 * may diverge, so when the chunk shrinks from e to e+1 a filler lane may
 * write it at e+1 where the reader still pulls the real packet of e: the
 * other half keeps them apart (the single_half mutant, device/mutation.cuh,
 * shows it).
 *
 * In place: a lane reads packet i of every other chunk of our input (shot
 * 1, all of its warp's tiles first) before it writes packet i of any of
 * them (the pull), and reads packet i of our own chunk just before writing
 * the result over it (the reduce); no other lane touches packet i of any
 * chunk, and peers write only our scratch.
 *
 * A skip_ll_poll mutant (device/mutation.cuh) takes packets without
 * checking their flags: the checks must find wrong values. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "collbench/device/dispatch.cuh"
#include "collbench/device/ll_packet.cuh"
#include "device/ll_reduce.cuh"
#include "device/ll_tiles.cuh"
#include "collbench/device/pack8.cuh"
#include "collbench/device/reduce.cuh"
#include "collbench/device/type_op_funcs.cuh"
#include "ll_mesh.h"

typedef struct {
  const char *send;
  char *recv;
  size_t bytes;   /* of the message */
  size_t chunk;   /* packets per chunk: ceil(packets / n) */
  size_t region2; /* where region 2 starts in a slot: half of slot_packets, whole tiles */
  cb_ll_mesh m;
  cb_spin_info spin;
} ll2_args;

/* Packet i of chunk q of our input, or zeros past the end of the message. */
__device__ __forceinline__ uint2 chunk_packet(const ll2_args &a, int q, size_t i) {
  const size_t g = (size_t)q * a.chunk + i;
  return g * 8 < a.bytes ? cb_load_pack8(a.send, g, a.bytes) : make_uint2(0, 0);
}

/* Stores packet i of chunk q into our output, unless past the end. */
__device__ __forceinline__ void store_chunk_packet(const ll2_args &a, int q, size_t i, uint2 v) {
  const size_t g = (size_t)q * a.chunk + i;
  if (g * 8 < a.bytes) cb_store_pack8(a.recv, g, a.bytes, v);
}

/* A shot-2 packet: rank q's result, packet i of its chunk. */
__device__ __forceinline__ uint2 take_result(const ll2_args &a, uint64_t epoch, uint32_t flag,
                                             int q, size_t i) {
  return cb_ll16_read(cb_ll_slot(a.m, 0, epoch, q, a.region2 + i), flag, a.spin, q);
}

template <typename T, int OP> __global__ void ll2_kernel(ll2_args a) {
  const cb_ll_mesh &m = a.m;
  const int n = m.nranks, r = m.rank;
  const size_t ntiles = cb_ll_tiles_of_packets(a.chunk);
  /* Shot 1: packet i of every peer's chunk into its region 1. */
  cb_ll_tiles<CB_LL_KEEP_OPEN>(m, ntiles, [&](const cb_ll_at &at) {
    for (int p = 1; p < n; p++) {
      uint2 v = at.i < a.chunk ? chunk_packet(a, (r + p) % n, at.i) : make_uint2(0, 0); /* filler */
      cb_ll16_write(cb_ll_slot(m, p, at.epoch, r, at.i), v, at.flag);
    }
  });
  /* Reduce our chunk in rank order, keep the result, shot 2 to every peer. */
  cb_ll_tiles<CB_LL_KEEP_OPEN>(m, ntiles, [&](const cb_ll_at &at) {
    uint2 acc = make_uint2(0, 0); /* filler past C */
    if (at.i < a.chunk) {
      /* Our own packet is loaded before the polls, so its latency hides
       * behind them rather than following them. */
      const uint2 mine = chunk_packet(a, r, at.i);
      acc = cb_ll_reduce_ranks<T, OP>(m, at.epoch, at.flag, at.i, mine, a.spin);
      store_chunk_packet(a, r, at.i, acc);
    }
    for (int p = 1; p < n; p++)
      cb_ll16_write(cb_ll_slot(m, p, at.epoch, r, a.region2 + at.i), acc, at.flag);
  });
  /* Pull: every peer's result into its chunk of our output. */
  cb_ll_pull_tiles(m, a.chunk, [&](const cb_ll_at &at) {
    for (int p = 1; p < n; p++) {
      const int q = (r + p) % n;
      store_chunk_packet(a, q, at.i, take_result(a, at.epoch, at.flag, q, at.i));
    }
  });
}

CB_DEFINE_TYPE_OP_LAUNCH(launch_typed, ll2_kernel, ll2_args)

static size_t chunk_packets(size_t bytes, int n) {
  return ((bytes + 7) / 8 + (size_t)n - 1) / (size_t)n;
}

CB_DEFINE_TYPE_OP_FUNCS(ll2_funcs, ll2_kernel)

/* Packets of a region: whole tiles of the largest chunk. */
static size_t region_packets(size_t chunk) {
  return (chunk + CB_LL_TILE - 1) / CB_LL_TILE * CB_LL_TILE;
}

static void cb_ar_ll2_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  uint64_t max = cb_ll_run_bytes(ctx);
  const size_t chunk = chunk_packets((size_t)max, ctx->nranks);
  /* Two regions of whole tiles per source; at 2 ranks that holds a whole
   * message in whole tiles, what the one-shot kernel needs. */
  cb_ll_setup(ctx, 2 * region_packets(chunk), CB_LL_ALL_READ_ALL);
  /* Every instance of the two-shot kernel (at 2 ranks the one-shot's runs,
   * whose registers differ little: both are small). */
  const void *funcs[CB_TYPE_OP_FUNCS];
  cb_ll_fit(ctx, reply, funcs, ll2_funcs(funcs));
}

/* The one-shot kernel's row (all_reduce_ll.cu). */
extern "C" const cb_kernel cb_all_reduce_ll;

static void cb_ar_ll2_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  if (ctx->nranks == 2) {
    cb_all_reduce_ll.launch(ctx, call, stream); /* see above: at 2 ranks, one shot */
    return;
  }
  const cb_ll_state *st = (const cb_ll_state *)ctx->state;
  ll2_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* see "Double buffering" in device/ll_tiles.cuh */
  a.send = (const char *)call->send;
  a.recv = (char *)call->recv;
  a.chunk = chunk_packets(a.bytes, ctx->nranks);
  a.region2 = st->slot_packets / 2;
  a.m = cb_ll_mesh_for(ctx, st, a.region2 + a.chunk);
  a.spin = CB_SPIN_INFO(ctx);
  const cb_ll_grid g = cb_ll_grid_for(st, a.chunk);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &a, g.blocks, g.threads, stream);
  CB_CUDA(cudaGetLastError());
}

extern "C" const void *cb_all_reduce_ll_kernel_of(cb_dtype dtype, cb_redop op);

/* What the launch above launches: at 2 ranks the one-shot kernel over the whole message,
 * else this one over a chunk a source. */
static void cb_ar_ll2_resources(const cb_kernel_ctx *ctx, const cb_call *call,
                                cb_kernel_resources *r) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  if (ctx->nranks == 2)
    cb_ll_resources_for(ctx, call, (bytes + 7) / 8,
                        cb_all_reduce_ll_kernel_of(call->dtype, call->op), r);
  else
    cb_ll_resources_for(ctx, call, chunk_packets(bytes, ctx->nranks), NULL, r);
}

CB_KERNEL_ROW(cb_all_reduce_ll2) = CB_LL_ROW_RESOURCES(
    "ll2",
    "two-shot LL16: reduce-scatter in packets (each rank reduces its chunk in "
    "rank order), then all-gather of the results in packets; for 3-8 ranks (at 2 "
    "ranks it is the one-shot ll)",
    CB_BOTH_PLACEMENTS, cb_ar_ll2_setup, cb_ar_ll2_launch, cb_ar_ll2_resources, CB_WAITS_LL);
CB_REGISTER_KERNEL(all_reduce, cb_all_reduce_ll2,
                   "two-shot LL16, for 3–8 ranks: each rank pushes chunk q of its input to rank q "
                   "as packets, rank q reduces its chunk in rank order and pushes the result to "
                   "every rank as packets; sends 2(n-1)/n of the input instead of one-shot's n-1 "
                   "copies, in two hops; at 2 ranks it is the one-shot ll; up to 1 MiB");
