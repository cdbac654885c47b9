/* Residency of kernels whose blocks wait on each other (or on a peer's
 * blocks): every block of such a grid must be resident at once, or a
 * resident block spins on one that never starts. A setup asks here, with
 * the occupancy API, how many blocks fit, shrinks its grid to that, or
 * refuses the kernel (cb_kernel_refuse) when too few fit. Never rely on
 * block dispatch order. */
#ifndef CB_GRID_FIT_H
#define CB_GRID_FIT_H

#include <stddef.h>

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of func (threads per block, smem dynamic shared bytes) that can be
 * resident at once on ctx's GPU, less `reserve_sms` SMs kept free for
 * kernels that must run beside it (signal kernels of the ce paths), and
 * divided among the ranks sharing the GPU (ctx->ranks_on_device). */
int cb_resident_blocks(const cb_kernel_ctx *ctx, const void *func, int threads, size_t smem,
                       int reserve_sms);

/* The grid to launch: want blocks when they fit, else as many as fit. When
 * fewer than min_blocks fit, refuses the kernel (naming what fits and what
 * it needs) and returns 0. */
int cb_fit_grid(cb_kernel_ctx *ctx, const void *func, int threads, size_t smem, int reserve_sms,
                int want, int min_blocks);

/* cb_fit_grid for each of nfuncs kernels (the instances of one template:
 * their registers differ), then the fewest blocks over all ranks
 * (collective): for grids whose block b pairs with block b of every peer,
 * which every rank must launch alike. 0 when some rank refused. */
int cb_fit_grid_everywhere(cb_kernel_ctx *ctx, const void *const *funcs, int nfuncs, int threads,
                           size_t smem, int reserve_sms, int want, int min_blocks);

#ifdef __cplusplus
}
#endif

#endif
