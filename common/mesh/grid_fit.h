/* Residency of kernels whose blocks wait on each other (or on a peer's
 * blocks): every block of such a grid must be resident at once, or a
 * resident block spins on one that never starts. A setup asks here, with
 * the occupancy API, how many blocks fit, shrinks its grid to that (the
 * harness prints a note saying so), or refuses the kernel
 * (cb_kernel_refuse) when too few fit. Never rely on block dispatch order.
 *
 * A kernel templated on datatype and op passes every instantiation a launch
 * may pick (device/type_op_funcs.cuh lists them): the fewest that fit of any
 * of them decide. */
#ifndef CB_GRID_FIT_H
#define CB_GRID_FIT_H

#include <stddef.h>

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of every one of funcs (threads per block, smem dynamic shared
 * bytes) that can be resident at once on ctx's GPU, the fewest of them,
 * less `reserve_sms` SMs kept free for kernels that must run beside it
 * (signal kernels of the ce paths), and divided among the ranks sharing the
 * GPU (ctx->ranks_on_device). */
int cb_resident_blocks_all(const cb_kernel_ctx *ctx, const void *const *funcs, int nfuncs,
                           int threads, size_t smem, int reserve_sms);
static inline int cb_resident_blocks(const cb_kernel_ctx *ctx, const void *func, int threads,
                                     size_t smem, int reserve_sms) {
  return cb_resident_blocks_all(ctx, &func, 1, threads, smem, reserve_sms);
}

/* The grid to launch on this rank: want blocks when they fit, else as many
 * as fit (with a note). When fewer than min_blocks fit, refuses the kernel
 * (naming what fits and what it needs) and returns 0. */
int cb_fit_grid_all(cb_kernel_ctx *ctx, const void *const *funcs, int nfuncs, int threads,
                    size_t smem, int reserve_sms, int want, int min_blocks);
static inline int cb_fit_grid(cb_kernel_ctx *ctx, const void *func, int threads, size_t smem,
                              int reserve_sms, int want, int min_blocks) {
  return cb_fit_grid_all(ctx, &func, 1, threads, smem, reserve_sms, want, min_blocks);
}

/* Collective (every rank's setup calls it): as cb_fit_grid_all, but the same
 * grid on every rank, the fewest blocks that fit on any rank's GPU; for
 * kernels whose block b pairs with block b of every peer (ring channels,
 * direct handshakes). */
int cb_fit_grid_agreed(cb_kernel_ctx *ctx, const void *const *funcs, int nfuncs, int threads,
                       size_t smem, int reserve_sms, int want, int min_blocks);

/* Collective: the most ranks that share one GPU, over every rank (1
 * unless CB_SHARE_GPUS); the same answer on every rank. */
int cb_most_ranks_on_a_gpu(cb_kernel_ctx *ctx);

/* Collective, for a kernel whose spinning kernels wait on kernels of its
 * other streams (`why` says which): refuses the run, on every rank alike,
 * when any rank shares its GPU with another, since the streams of several
 * ranks may share one of the device's hardware queues, which run in order,
 * and CUDA promises no concurrency between them. Returns whether it did. */
int cb_refuse_shared_gpus(cb_kernel_ctx *ctx, const char *why);

#ifdef __cplusplus
}
#endif

#endif
