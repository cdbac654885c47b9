/* What the LL packet kernels (-k ll of every collective) share on the host:
 * every rank's packet scratch, mapped on every rank, and this rank's
 * per-tile epoch counters; and the grid shape for a size. The device half
 * is src/kernels/ll/device/ll_tiles.cuh, which explains the epochs and the
 * double buffering, and device/ll_credit.cuh for one-to-many kernels.
 *
 * The reuse invariant. A rank writes packets of epoch e into the half
 * (e mod 2) of a peer's scratch that the peer last read at epoch e - 2; it
 * may do so only once the peer has read them. A setup declares which
 * proof of that its kernel relies on (cb_ll_pattern), and the mesh then
 * hands out only the device view that goes with it:
 *   CB_LL_ALL_READ_ALL  every call, every rank reads at least one packet of
 *       every tile it covers from every peer (all_reduce, all_gather,
 *       reduce_scatter, alltoall): having read the peer's packets of epoch
 *       e - 1 proves the peer finished epoch e - 2 (ll_tiles.cuh).
 *       View: cb_ll_mesh (cb_ll_mesh_for).
 *   CB_LL_CREDITED  anything else: some rank writes tiles and reads nothing
 *       back from their receiver (a broadcast root, a sendrecv sender), so
 *       under back-to-back launches it could lap the receiver. Receivers
 *       return credits and a sender stores into a peer's scratch only
 *       through cb_ll_push_slot, which needs the clearance that
 *       cb_ll_await_credit gives after the credit wait (ll_credit.cuh).
 *       View: cb_ll_push_mesh (cb_ll_push_mesh_for).
 * Asking for the other view than the setup declared stops the program
 * naming the kernel. A kernel whose pattern is not all-read-all must
 * declare CB_LL_CREDITED: nothing else proves its scratch reuse safe. */
#ifndef CB_LL_MESH_H
#define CB_LL_MESH_H

#include <stddef.h>
#include <stdint.h>

#include <vector_types.h>

#include "collbench/kernel.h"
#include "peer_limits.h"
#include "collbench/peer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_LL_TILE 32 /* packets per tile: one per lane of a warp */

/* The largest message (the table's size) an LL kernel of ours serves, its
 * row's .limits.max_bytes: past it the ring and direct kernels win, and the
 * scratch a setup sizes for it stays small. */
#define CB_LL_MAX_BYTES (1ull << 20)

/* The row of an LL kernel of ours (CB_KERNEL_ROW, collective.h): peer
 * memory in the given placements, up to CB_LL_MAX_BYTES, cb_ll_teardown,
 * its resources as resources_ says (CB_LL_ROW: cb_ll_resources), the waits
 * waits_ (CB_WAITS_LL, and CB_WAITS_LL_CREDIT for a credited kernel). */
#define CB_LL_ROW_RESOURCES(name_, summary_, placements_, setup_, launch_, resources_, waits_)     \
  {                                                                                                \
    .name = name_, .summary = summary_,                                                            \
    .limits = {CB_PEER_KERNEL_LIMITS(placements_), .max_bytes = CB_LL_MAX_BYTES}, .setup = setup_, \
    .teardown = cb_ll_teardown, .launch = launch_, .resources = resources_, .waits = waits_        \
  }
#define CB_LL_ROW(name_, summary_, placements_, setup_, launch_, waits_)                           \
  CB_LL_ROW_RESOURCES(name_, summary_, placements_, setup_, launch_, cb_ll_resources, waits_)

/* The kernel's view (passed by value in its arguments). Scratch pointers
 * are in ring order from this rank (device/ll_tiles.cuh reads them). */
typedef struct {
  uint4 *scratch[CB_MAX_PEERS]; /* [p]: rank (rank + p) % nranks's scratch; [0]: ours */
  uint64_t *epochs;             /* this rank's counters, one per tile */
  size_t slot_packets;          /* packets per (parity, source rank) region */
  int rank, nranks;
} cb_ll_mesh;

/* Which proof of scratch reuse a kernel relies on (see the top of the file). */
typedef enum { CB_LL_ALL_READ_ALL = 1, CB_LL_CREDITED = 2 } cb_ll_pattern;

/* The view of a CB_LL_CREDITED kernel: the packet mesh, and every rank's
 * credit area (one word per (tile, receiver rank), written by that
 * receiver), in ring order from this rank like the scratch. A sender never
 * writes packets through ll.scratch directly: only cb_ll_push_slot. */
typedef struct {
  cb_ll_mesh ll;
  uint64_t *credit[CB_MAX_PEERS]; /* [p]: rank (rank + p) % nranks's area; [0]: ours */
} cb_ll_push_mesh;

/* Word of (tile t, receiver rank) in a credit area. */
#define CB_LL_CREDIT_WORD(t, receiver) ((size_t)(t)*CB_MAX_PEERS + (size_t)(receiver))

/* One rank's setup. */
typedef struct {
  cb_ll_pattern pattern;
  cb_peer_buffer scratch; /* 2 parities x nranks sources x slot_packets LL16 packets */
  cb_peer_buffer credits; /* CB_LL_CREDITED: tiles x CB_MAX_PEERS words, zeroed */
  uint64_t *epochs;       /* tiles counters, zeroed */
  size_t slot_packets, tiles;
  int block_warps, max_warps; /* from CB_LL_BLOCK_WARPS / CB_LL_MAX_WARPS; 0: by size */
  int warp_cap;               /* warps that can all be resident at once (cb_ll_fit); 0: none */
  const void *funcs[CB_NUM_DTYPES * CB_NUM_OPS]; /* cb_ll_fit's, for the resources */
  int nfuncs;
} cb_ll_state;

/* Collective: a cb_ll_state in ctx->state, with scratch for messages of
 * up to max_packets packets per source rank and counters for their tiles,
 * for a kernel of the given pattern (credit areas for CB_LL_CREDITED). */
void cb_ll_setup(cb_kernel_ctx *ctx, size_t max_packets, cb_ll_pattern pattern);
/* After cb_ll_setup: caps the grid at the warps every one of funcs (the
 * kernel's instantiations) can hold resident at once, in the block sizes
 * cb_ll_grid_for uses, noting a cap below the warp budget and refusing the
 * kernel when not one block fits. Every LL kernel's setup calls it: a warp
 * polling for a peer's packets may wait on a peer warp that waits on one of
 * ours. */
void cb_ll_fit(cb_kernel_ctx *ctx, cb_setup_reply *reply, const void *const *funcs, int nfuncs);
/* The largest message of this run an LL kernel's setup sizes its scratch
 * for: the sweep's -e, or CB_LL_MAX_BYTES where that is smaller. */
static inline uint64_t cb_ll_run_bytes(const cb_kernel_ctx *ctx) {
  return ctx->max_bytes < CB_LL_MAX_BYTES ? ctx->max_bytes : CB_LL_MAX_BYTES;
}
/* The same for a collective whose table is n blocks, one a rank (all_gather's
 * output, alltoall's and reduce_scatter's input, gather's and scatter's
 * root buffer): the largest block, since the limit is on the whole table. */
static inline uint64_t cb_ll_run_block_bytes(const cb_kernel_ctx *ctx) {
  return cb_ll_run_bytes(ctx) / (uint64_t)ctx->nranks;
}
/* Collective: frees ctx->state; an LL kernel's teardown in its table. */
void cb_ll_teardown(cb_kernel_ctx *ctx);

/* The kernel's view of st; fails (naming the kernel) if packets exceed the
 * scratch, or if st was not set up for the view's pattern. */
cb_ll_mesh cb_ll_mesh_for(const cb_kernel_ctx *ctx, const cb_ll_state *st, size_t packets);
cb_ll_push_mesh cb_ll_push_mesh_for(const cb_kernel_ctx *ctx, const cb_ll_state *st,
                                    size_t packets);

/* Grid for a message of `packets` packets per source rank: one warp per
 * tile up to the warp budget (and the residency cap), grouped into blocks. */
typedef struct {
  unsigned blocks, threads;
} cb_ll_grid;
cb_ll_grid cb_ll_grid_for(const cb_ll_state *st, size_t packets);

/* Resources (collective.h) of one LL grid for runs of `packets` packets
 * per source: the grid cb_ll_grid_for gives, of func, or of the instance
 * for the call's datatype and op among those cb_ll_fit was given when func
 * is NULL; none for 0 packets, which launch nothing. */
void cb_ll_resources_for(const cb_kernel_ctx *ctx, const cb_call *call, size_t packets,
                         const void *func, cb_kernel_resources *r);
/* An LL row's resources (CB_LL_ROW): runs of the call's count elements,
 * what every LL kernel of ours but the two-shot one sends. */
void cb_ll_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r);

#ifdef __cplusplus
}
#endif

#endif
