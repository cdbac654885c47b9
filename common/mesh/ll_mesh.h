/* What the LL packet kernels (all_reduce, all_gather, reduce_scatter -k ll)
 * share on the host: every rank's packet scratch, mapped on every rank,
 * and this rank's per-tile epoch counters; and the grid shape for a size.
 * The device half is common/mesh/device/ll_tiles.cuh, which explains the epochs
 * and the double buffering. */
#ifndef CB_LL_MESH_H
#define CB_LL_MESH_H

#include <stddef.h>
#include <stdint.h>

#include <vector_types.h>

#include "collective.h"
#include "peer_memory.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_LL_TILE 32 /* packets per tile: one per lane of a warp */

/* The kernel's view (passed by value in its arguments). Scratch pointers
 * are in ring order from this rank (device/ll_tiles.cuh reads them). */
typedef struct {
  uint4 *scratch[CB_MAX_PEERS]; /* [p]: rank (rank + p) % nranks's scratch; [0]: ours */
  uint64_t *epochs;             /* this rank's counters, one per tile */
  size_t slot_packets;          /* packets per (parity, source rank) region */
  int rank, nranks;
} cb_ll_mesh;

/* One rank's setup. */
typedef struct {
  cb_peer_buffer scratch; /* 2 parities x nranks sources x slot_packets LL16 packets */
  uint64_t *epochs;       /* tiles counters, zeroed */
  size_t slot_packets, tiles;
  int block_warps, max_warps; /* from CB_LL_BLOCK_WARPS / CB_LL_MAX_WARPS; 0: by size */
} cb_ll_state;

/* Collective: a cb_ll_state in ctx->state, with scratch for messages of
 * up to max_packets packets per source rank and counters for their tiles. */
void cb_ll_setup(cb_kernel_ctx *ctx, size_t max_packets);
/* Collective: frees ctx->state; an LL kernel's teardown in its table. */
void cb_ll_teardown(cb_kernel_ctx *ctx);

/* The kernel's view of st; fails (naming the kernel) if packets exceed the
 * scratch. */
cb_ll_mesh cb_ll_mesh_for(const cb_kernel_ctx *ctx, const cb_ll_state *st, size_t packets);

/* Grid for a message of `packets` packets per source rank: one warp per
 * tile up to the warp budget, grouped into blocks. */
typedef struct {
  unsigned blocks, threads;
} cb_ll_grid;
cb_ll_grid cb_ll_grid_for(const cb_ll_state *st, size_t packets);

/* For a setup: refuses the kernel (cb_kernel_refuse) unless the grid
 * cb_ll_grid_for gives for max_packets packets per source, the largest the
 * kernel launches, is resident at once on this GPU (grid_fit.h): a warp
 * polling for a peer's packets may wait on a peer warp that waits on one of
 * ours. func is the kernel (any instance: they differ only in the op). */
void cb_ll_check_resident(cb_kernel_ctx *ctx, const cb_ll_state *st, const void *func,
                          size_t max_packets);

#ifdef __cplusplus
}
#endif

#endif
