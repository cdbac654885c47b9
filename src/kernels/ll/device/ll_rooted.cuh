/* LL16 packet kernels with a root (-k ll of broadcast, scatter, gather and
 * reduce): either the root sends one run to every other rank (one to many:
 * broadcast, the same run for all; scatter, run q for rank q), or every
 * other rank sends one run to the root (many to one: gather keeps them side
 * by side, reduce reduces them). Tiles, per-tile epochs, flags and the two
 * halves of the scratch are those of ll_tiles.cuh; a rank that only sends
 * reads nothing back from its receiver, so these kernels are CB_LL_CREDITED
 * and every push goes through the credits of ll_credit.cuh, which has the
 * protocol and its proof.
 *
 * One to many: the root's warp, for each of its tiles, issues its loads,
 * waits for the credit of every peer (one lane each), and stores a packet
 * into each peer's scratch; a peer's warp returns credit to the root for
 * all of its tiles, then polls the root's packets. Many to one: each
 * sender's warp waits for the root's credit and stores its packets into the
 * root's scratch; the root's warp returns credit to every sender for all of
 * its tiles (one lane per sender), then polls each sender's packets. Either
 * way, every receiver returns credit for a tile before it polls any packet
 * of the call: the rule ll_credit.cuh's progress argument needs. The root
 * may change from call to call: credits are per (tile, receiver) and go to
 * whoever sends in the call.
 *
 * Writers fill whole tiles (lanes past the run write filler packets), but
 * a slot is rewritten only in the calls whose root is its source (one to
 * many) or the rank it is in (many to one): a stale packet stays there
 * across the calls of other roots, which ll_tiles.cuh's "Counters" shows
 * harmless (it matches no flag of a later epoch of its half for 2^33 - 2
 * calls covering its tile).
 *
 * In place: the root of a one-to-many kernel only reads its input (and
 * stores its own run into its output only when it is elsewhere); a sender
 * of a many-to-one kernel only reads its input; a receiver writes only its
 * output, from packets in its scratch (reduce's root reads its own input
 * element before writing the result over it, in the same lane). */
#ifndef CB_DEVICE_LL_ROOTED_CUH
#define CB_DEVICE_LL_ROOTED_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/cuda_check.h"
#include "device/ll_credit.cuh"
#include "collbench/device/ll_packet.cuh"
#include "device/ll_tiles.cuh"
#include "collbench/device/pack8.cuh"
#include "collbench/device/spin.cuh"
#include "ll_mesh.h"

/* The arguments of a rooted LL kernel (passed by value). */
typedef struct {
  const char *send; /* our input */
  char *recv;       /* our output */
  size_t bytes;     /* of a run */
  int root;
  int copy_own; /* the root: its own run too, from its input into its output */
  cb_ll_push_mesh v;
  cb_spin_info spin;
} cb_ll_rooted_args;

/* Host, a kernel's setup (collective): the credited mesh for runs of up to
 * max_run bytes, the grid fitted to what funcs (its instances) hold. */
static inline void cb_ll_rooted_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply, uint64_t max_run,
                                      const void *const *funcs, int nfuncs) {
  cb_ll_setup(ctx, (size_t)(max_run + 7) / 8, CB_LL_CREDITED);
  cb_ll_fit(ctx, reply, funcs, nfuncs);
}

/* Host, a launch: KERNEL over a call whose runs are `bytes` long, on the
 * mesh's grid for them; nothing for 0 bytes, on every rank alike (see
 * "Double buffering" in ll_tiles.cuh). */
template <void (*KERNEL)(cb_ll_rooted_args)>
static void cb_ll_rooted_launch(cb_kernel_ctx *ctx, const cb_call *call, size_t bytes, int copy_own,
                                cudaStream_t stream) {
  if (bytes == 0) return;
  const cb_ll_state *st = (const cb_ll_state *)ctx->state;
  const size_t packets = (bytes + 7) / 8;
  cb_ll_rooted_args a;
  a.send = (const char *)call->send;
  a.recv = (char *)call->recv;
  a.bytes = bytes;
  a.root = call->root;
  a.copy_own = copy_own;
  a.v = cb_ll_push_mesh_for(ctx, st, packets);
  a.spin = CB_SPIN_INFO(ctx);
  const cb_ll_grid g = cb_ll_grid_for(st, packets);
  KERNEL<<<g.blocks, g.threads, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}

/* One to many, the root's warp: the run for the rank at ring offset p is
 * src + ((rank + p) % n) * src_stride (ONE_RUN: src for every rank, loaded
 * once), `bytes` long, into that rank's scratch; own (unless NULL) gets our
 * own run. */
template <bool ONE_RUN>
__device__ __forceinline__ void cb_ll_root_push(const cb_ll_push_mesh &v, const char *src,
                                                size_t src_stride, char *own, size_t bytes,
                                                const cb_spin_info &spin) {
  const cb_ll_mesh &m = v.ll;
  const int n = m.nranks;
  const size_t npackets = (bytes + 7) / 8;
  cb_ll_tiles<CB_LL_CLOSE>(m, cb_ll_tiles_of_packets(npackets), [&](const cb_ll_at &at) {
    const size_t i = at.i;
    const bool in_run = i < npackets;
    /* Loads first: the credit wait's acquire holds back only what follows it. */
    uint2 x[CB_MAX_PEERS];
#pragma unroll
    for (int p = 0; p < CB_MAX_PEERS; p++) {
      if (ONE_RUN && p > 0) {
        x[p] = x[0];
        continue;
      }
      const char *run = src + (ONE_RUN ? 0 : (size_t)((m.rank + p) % n) * src_stride);
      x[p] = in_run && p < n ? cb_load_pack8(run, i, bytes) : make_uint2(0, 0);
    }
    const cb_ll_clearance c = cb_ll_await_credit(v, at.t, at.epoch, 1, n - 1, spin);
#pragma unroll
    for (int p = 1; p < CB_MAX_PEERS; p++)
      if (p < n) cb_ll16_write(cb_ll_push_slot(v, c, p, i), x[p], at.flag);
    if (own && in_run) cb_store_pack8(own, i, bytes, x[0]);
  });
}

/* One to many, a peer's warp: credit to the root for all its tiles, then
 * the root's packets into out (the late_credit mutant: the other way
 * round). */
__device__ __forceinline__ void cb_ll_from_root(const cb_ll_push_mesh &v, int root, char *out,
                                                size_t bytes, const cb_spin_info &spin) {
  const cb_ll_mesh &m = v.ll;
  const int root_off = (root - m.rank + m.nranks) % m.nranks;
  cb_ll_credit_tiles<false>(v, bytes, root_off, CB_LL_BEFORE_POLLS);
  cb_ll_receive_from(m, root, out, bytes, spin);
  cb_ll_credit_tiles<false>(v, bytes, root_off, CB_LL_AFTER_POLLS);
}

/* Many to one, a sender's warp: our run (src, `bytes` long) into the root's
 * scratch, once the root's credit for each tile is in. */
__device__ __forceinline__ void cb_ll_push_to_root(const cb_ll_push_mesh &v, int root,
                                                   const char *src, size_t bytes,
                                                   const cb_spin_info &spin) {
  const cb_ll_mesh &m = v.ll;
  const int root_off = (root - m.rank + m.nranks) % m.nranks;
  const size_t npackets = (bytes + 7) / 8;
  cb_ll_tiles<CB_LL_CLOSE>(m, cb_ll_tiles_of_packets(npackets), [&](const cb_ll_at &at) {
    const uint2 x = at.i < npackets ? cb_load_pack8(src, at.i, bytes) : make_uint2(0, 0);
    const cb_ll_clearance c = cb_ll_await_credit(v, at.t, at.epoch, root_off, 1, spin);
    cb_ll16_write(cb_ll_push_slot(v, c, root_off, at.i), x, at.flag);
  });
}

/* Many to one, the root's warp, before it polls (CB_LL_BEFORE_POLLS) and
 * after (CB_LL_AFTER_POLLS): credit to every sender for all of its tiles
 * of a run of `bytes` bytes, at the one point of the two that
 * CB_LL_CREDIT_DUE names. */
__device__ __forceinline__ void cb_ll_credit_senders(const cb_ll_push_mesh &v, size_t bytes,
                                                     int when) {
  cb_ll_credit_tiles<true>(v, bytes, 0, when);
}

/* Packet i of tile epoch `epoch` from rank src, polled in our scratch. */
__device__ __forceinline__ uint2 cb_ll_take(const cb_ll_mesh &m, uint64_t epoch, int src, size_t i,
                                            const cb_spin_info &spin) {
  return cb_ll16_read(cb_ll_slot(m, 0, epoch, src, i), cb_ll_flag(epoch), spin, src);
}

/* Many to one, the root's warp, between its two cb_ll_credit_senders: for
 * each of its tiles of a run of `bytes` bytes, take(epoch, i) for each
 * packet i of the run (the caller's poll of the senders' packets, and what
 * it makes of them), then close the tile. */
template <typename TAKE>
__device__ __forceinline__ void cb_ll_root_receive(const cb_ll_mesh &m, size_t bytes,
                                                   const TAKE &take) {
  cb_ll_pull_tiles(m, (bytes + 7) / 8, [&](const cb_ll_at &at) { take(at.epoch, at.i); });
}

#endif
