/* -k ll: reduce-scatter by LL16 packets, for small messages.
 *
 * Every rank writes block q of its input, as LL16 packets (8 data bytes and
 * two copies of the epoch in one 16-byte store, device/ll_packet.cuh), into
 * its slot of peer q's scratch; then it polls its scratch until each peer's
 * packets carry the epoch and reduces them with block r of its own input, in
 * rank order 0, 1, .., n-1 whatever its rank (the same bits on every rank),
 * into its output. One kernel, no handshake: the flag travels with the data,
 * and peers never touch our buffers, only our scratch. Tiles, per-tile
 * epochs and the double buffering: device/ll_tiles.cuh (all blocks of the
 * input have the same length, so every call covering tile t reads tile t
 * from every peer).
 *
 * In place: our output is block r of our input. Packet i of it is read (as
 * our contribution) and then written by the same lane; the push reads only
 * the other blocks, which nothing writes. */
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
  const char *in; /* our input: n blocks */
  char *out;      /* our output: one block */
  size_t bytes;   /* bytes of a block */
  cb_ll_mesh m;
  cb_spin_info spin;
} rsll_args;

template <typename T, int OP> __global__ void rsll_kernel(rsll_args a) {
  const cb_ll_mesh &m = a.m;
  const size_t npackets = (a.bytes + 7) / 8;
  /* Push: block q of our input, this warp's tiles, to peer q. */
  cb_ll_tiles<CB_LL_KEEP_OPEN>(m, cb_ll_tiles_of_packets(npackets), [&](const cb_ll_at &at) {
    /* Lanes past the message write filler: every slot of a tile is
     * rewritten at every epoch of its half (ll_tiles.cuh, "Counters"). */
    for (int p = 1; p < m.nranks; p++) {
      int peer = (m.rank + p) % m.nranks;
      uint2 v = at.i < npackets ? cb_load_pack8(a.in + (size_t)peer * a.bytes, at.i, a.bytes)
                                : make_uint2(0, 0);
      cb_ll16_write(cb_ll_slot(m, p, at.epoch, m.rank, at.i), v, at.flag);
    }
  });
  /* Pull: every rank's contribution to the same tiles of our block, in rank
   * order; ours from our input. */
  const char *own = a.in + (size_t)m.rank * a.bytes;
  cb_ll_pull_tiles(m, npackets, [&](const cb_ll_at &at) {
    /* Our own block is loaded before the polls, so its latency hides
     * behind them rather than following them. */
    const uint2 mine = cb_load_pack8(own, at.i, a.bytes);
    cb_store_pack8(a.out, at.i, a.bytes,
                   cb_ll_reduce_ranks<T, OP>(m, at.epoch, at.flag, at.i, mine, a.spin));
  });
}

CB_DEFINE_TYPE_OP_LAUNCH(launch_typed, rsll_kernel, rsll_args)

CB_DEFINE_TYPE_OP_FUNCS(rsll_funcs, rsll_kernel)

static void cb_rs_ll_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  /* The limit is on the table size, the whole input: a block is 1/n of it. */
  cb_ll_setup(ctx, (size_t)(cb_ll_run_block_bytes(ctx) + 7) / 8, CB_LL_ALL_READ_ALL);
  const void *funcs[CB_TYPE_OP_FUNCS];
  cb_ll_fit(ctx, reply, funcs, rsll_funcs(funcs));
}

static void cb_rs_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_ll_state *st = (const cb_ll_state *)ctx->state;
  rsll_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* see "Double buffering" in device/ll_tiles.cuh */
  size_t packets = (a.bytes + 7) / 8;
  a.in = (const char *)call->send;
  a.out = (char *)call->recv;
  a.m = cb_ll_mesh_for(ctx, st, packets);
  a.spin = CB_SPIN_INFO(ctx);
  const cb_ll_grid g = cb_ll_grid_for(st, packets);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &a, g.blocks, g.threads, stream);
  CB_CUDA(cudaGetLastError());
}

CB_KERNEL_ROW(cb_reduce_scatter_ll) =
    CB_LL_ROW("ll",
              "LL16: every rank pushes each peer's block to it as packets, each rank "
              "reduces what it receives with its own block, in rank order",
              CB_BOTH_PLACEMENTS, cb_rs_ll_setup, cb_rs_ll_launch, CB_WAITS_LL);
CB_REGISTER_KERNEL(
    reduce_scatter, cb_reduce_scatter_ll,
    "LL16: every rank pushes each peer's block to it as packets, each rank reduces "
    "them with its own block in rank order; one warp per 32-packet tile; up to 1 MiB "
    "(the whole input)");
