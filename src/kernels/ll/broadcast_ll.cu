/* -k ll: broadcast by LL16 packets, for small messages.
 *
 * The root writes its input, as LL16 packets (8 data bytes and two copies
 * of the epoch in one 16-byte store, device/ll_packet.cuh), into its slot
 * of every peer's scratch, and out of place into its own output; every
 * other rank polls its scratch until the root's packets carry the epoch
 * and copies them into its output. One kernel, no handshake: the flag
 * travels with the data. Tiles and per-tile epochs: device/ll_tiles.cuh.
 * One-shot: the root's links carry n - 1 copies, which for the small
 * messages this kernel is for costs less than a chain's n - 1 hops.
 *
 * The root reads nothing back, so nothing but credits keeps it from
 * lapping a peer under back-to-back launches: the kernel is
 * CB_LL_CREDITED (ll_mesh.h, device/ll_credit.cuh). A peer's warp returns
 * credit to the call's root for all its tiles before it polls any; the
 * root's warp waits, one lane per peer, for every peer's credit of a tile
 * before pushing it. Credits go to the root of the call, so the root may
 * change from call to call. The root's and the peers' warps are those of
 * device/ll_rooted.cuh's one-to-many kernels, with one run for every peer.
 *
 * In place (send == recv): the root only reads its buffer; the others
 * only write theirs, and never read their input. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "device/ll_rooted.cuh"
#include "ll_mesh.h"

__global__ void bcll_kernel(cb_ll_rooted_args a) {
  if (a.v.ll.rank == a.root)
    cb_ll_root_push<true>(a.v, a.send, 0, a.copy_own ? a.recv : NULL, a.bytes, a.spin);
  else
    cb_ll_from_root(a.v, a.root, a.recv, a.bytes, a.spin);
}

static void cb_bc_ll_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  uint64_t max = cb_ll_run_bytes(ctx);
  const void *func = (const void *)bcll_kernel;
  cb_ll_rooted_setup(ctx, reply, max, &func, 1);
}

static void cb_bc_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const int copy_own = ctx->rank == call->root && call->send != call->recv;
  cb_ll_rooted_launch<bcll_kernel>(ctx, call, call->count * cb_dtype_size(call->dtype), copy_own,
                                   stream);
}

CB_KERNEL_ROW(cb_broadcast_ll) = CB_LL_ROW(
    "ll",
    "LL16: the root pushes its input to every peer as packets, each peer copies "
    "them into its output; peers return credits to the root",
    CB_BOTH_PLACEMENTS, cb_bc_ll_setup, cb_bc_ll_launch, CB_WAITS_LL | CB_WAITS_LL_CREDIT);
CB_REGISTER_KERNEL(
    broadcast, cb_broadcast_ll,
    "LL16: the root pushes its input to every peer as packets, each peer copies them "
    "into its output; peers return credits to the root, so back-to-back calls never "
    "overwrite packets not yet read (`src/kernels/ll/device/ll_credit.cuh`); one warp "
    "per 32-packet tile; up to 1 MiB");
