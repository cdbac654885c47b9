/* -k ll: one-shot LL all-reduce for small messages.
 *
 * Every rank writes its whole input, as LL16 packets tagged with the epoch,
 * into its slot of every peer's scratch; then it polls its own scratch until
 * each peer's packets carry the epoch, reduces them with its own input and
 * writes the result. One kernel, no barrier, no reset between launches.
 * Tiles, per-tile epochs and the double buffering: device/ll_tiles.cuh.
 *
 * Every rank reduces in rank order (0, 1, ..., n-1), so all hold the same
 * bits. In place. Element i of the output is written only by the lane that
 * reads element i of the input, after reading it; peers never read our input
 * (they get packets), and no warp touches another warp's tiles. So
 * send == recv is safe, and no fence is needed anywhere. */
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
#include "grid_fit.h"
#include "ll_mesh.h"

typedef struct {
  const void *send;
  void *recv;
  size_t bytes;
  cb_ll_mesh m;
  cb_spin_info spin;
} ll_args;

template <typename T, int OP> __global__ void ll_kernel(ll_args a) {
  const cb_ll_mesh &m = a.m;
  const size_t npackets = (a.bytes + 7) / 8;
  /* Push: every packet of this warp's tiles to every peer. */
  cb_ll_tiles<CB_LL_KEEP_OPEN>(m, cb_ll_tiles_of_packets(npackets), [&](const cb_ll_at &at) {
    /* Lanes past the message write filler: every slot of a tile is
     * rewritten at every epoch of its half (ll_tiles.cuh, "Counters"). */
    uint2 mine = at.i < npackets ? cb_load_pack8(a.send, at.i, a.bytes) : make_uint2(0, 0);
    for (int p = 1; p < m.nranks; p++)
      cb_ll16_write(cb_ll_slot(m, p, at.epoch, m.rank, at.i), mine, at.flag);
  });
  /* Pull: every rank's packets for the same tiles, ours from our input,
   * reduced in rank order 0, 1, ..., n-1 on every rank, so floating-point
   * sums and min/max of signed zeros and NaNs give the same bits everywhere. */
  cb_ll_pull_tiles(m, npackets, [&](const cb_ll_at &at) {
    /* Our own element is loaded before the polls, so its latency hides
     * behind them rather than following them. */
    const uint2 mine = cb_load_pack8(a.send, at.i, a.bytes);
    cb_store_pack8(a.recv, at.i, a.bytes,
                   cb_ll_reduce_ranks<T, OP>(m, at.epoch, at.flag, at.i, mine, a.spin));
  });
}

CB_DEFINE_TYPE_OP_LAUNCH(launch_typed, ll_kernel, ll_args)

CB_DEFINE_TYPE_OP_FUNCS(ll_funcs, ll_kernel)

static void cb_ar_ll_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  uint64_t max = cb_ll_run_bytes(ctx);
  cb_ll_setup(ctx, (size_t)(max + 7) / 8, CB_LL_ALL_READ_ALL);
  const void *funcs[CB_TYPE_OP_FUNCS];
  cb_ll_fit(ctx, reply, funcs, ll_funcs(funcs));
}

static void cb_ar_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_ll_state *st = (const cb_ll_state *)ctx->state;
  ll_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* see "Double buffering" in device/ll_tiles.cuh */
  size_t packets = (a.bytes + 7) / 8;
  a.send = call->send;
  a.recv = call->recv;
  a.m = cb_ll_mesh_for(ctx, st, packets);
  a.spin = CB_SPIN_INFO(ctx);
  const cb_ll_grid g = cb_ll_grid_for(st, packets);
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, &a, g.blocks, g.threads, stream);
  CB_CUDA(cudaGetLastError());
}

/* The instance a launch for (dtype, op) runs: the two-shot kernel's resources at 2 ranks,
 * where it launches this one (all_reduce_ll2.cu). */
extern "C" const void *cb_all_reduce_ll_kernel_of(cb_dtype dtype, cb_redop op) {
  const void *funcs[CB_TYPE_OP_FUNCS];
  return cb_func_for(funcs, ll_funcs(funcs), dtype, op);
}

CB_KERNEL_ROW(cb_all_reduce_ll) =
    CB_LL_ROW("ll",
              "one-shot LL16: every rank pushes its input to every peer as packets, "
              "each rank reduces",
              CB_BOTH_PLACEMENTS, cb_ar_ll_setup, cb_ar_ll_launch, CB_WAITS_LL);
CB_REGISTER_KERNEL(all_reduce, cb_all_reduce_ll,
                   "one-shot LL16: every rank pushes its input to every peer as 16-byte packets (8 "
                   "B data + two flags), each rank reduces; one warp per 32-packet tile, each tile "
                   "with its own epoch counter, so the grid is chosen per size; up to 1 MiB");
