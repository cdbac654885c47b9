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

#include "collbench/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ranks sharing a GPU (CB_SHARE_GPUS, or hosts simulated on one machine:
 * every rank on the physical GPU, of whatever host, cb_ranks_on_gpu) spin
 * on each other from grids of their own, and every block of all of them
 * must be resident at once.
 * Blocks of other kernels land between them (each rank's fill and check
 * kernels, another rank's next call in another block shape), and grids that
 * together fill the GPU were seen to wait forever for a block that never
 * starts; CUDA promises no concurrency between streams, so only measurement
 * bounds how much room is enough. tools/coresident.cu shows it without any
 * protocol: eight streams whose grids spin until all have arrived, a short
 * kernel between rounds, hung within 2000 rounds with grids of 97% and 100%
 * of the GPU (not every run) and not at 75%. With ranks sharing one H200,
 * sendrecv -k ll at 8 ranks hung under --stress at 100%, and once in 10^5
 * stream-mode calls at 75%, while every other kernel of ours passed 10^4 to
 * 10^5 calls there (docs/architecture.md, "Ranks sharing a GPU"). So ranks
 * sharing a GPU split only half of it; one rank on its GPU may fill it,
 * since no other grid spins beside its own. */
#define CB_SHARED_GPU_PERCENT 50

/* Blocks one rank may keep resident: per_sm blocks on each of sms SMs,
 * all of them for one rank on its GPU, else CB_SHARED_GPU_PERCENT of them
 * split among the ranks_on_device ranks. Arithmetic only (unit-tested). */
int cb_shared_resident_blocks(int per_sm, int sms, int ranks_on_device);

/* The same for ctx's grid (cb_shared_resident_blocks at ctx->ranks_on_device),
 * at one block an SM where NCCL's kernels must start beside the grids of
 * ranks sharing the GPU (ctx->beside_nccl: the parts of a hierarchical
 * kernel). There a rank's part waits for a peer of its host whose stream is
 * at its rail's NCCL call, and that call's blocks must become resident
 * beside the waiting grids. An NCCL block takes most of an SM (NCCL 2.28 on
 * sm_90: 96 registers a thread, 512 to 640 threads, 22 KB of static and
 * 80 KB of dynamic shared memory), so it needs an SM nearly free of ours,
 * and a grid of many small blocks (LL: blocks of 2 or 4 warps, 660 warps a
 * rank at 4 ranks on an H100) puts blocks on every SM: all_reduce -k
 * hier-ll at 2 hosts of 2 ranks on one H100 timed out with a rank of a host
 * waiting for the other, the wait this explains (docs/multi-node.md). At
 * one block an SM the ranks' grids hold at most CB_SHARED_GPU_PERCENT of
 * the SMs and leave the others empty of them. Arithmetic only
 * (unit-tested). */
int cb_ctx_resident_blocks(const cb_kernel_ctx *ctx, int per_sm, int sms);
/* What a note on ctx's grid adds after its "N ranks on it" where
 * cb_ctx_resident_blocks keeps whole SMs free for NCCL's kernels, or "". */
const char *cb_whole_sms_words(const cb_kernel_ctx *ctx);

/* Blocks of every one of funcs (threads per block, smem dynamic shared
 * bytes) that can be resident at once on ctx's GPU, the fewest of them,
 * less `reserve_sms` SMs kept free for kernels that must run beside it
 * (signal kernels of the ce paths), and shared among the ranks on the GPU
 * (ctx->ranks_on_device) by cb_ctx_resident_blocks. */
int cb_resident_blocks_all(const cb_kernel_ctx *ctx, const void *const *funcs, int nfuncs,
                           int threads, size_t smem, int reserve_sms);
static inline int cb_resident_blocks(const cb_kernel_ctx *ctx, const void *func, int threads,
                                     size_t smem, int reserve_sms) {
  return cb_resident_blocks_all(ctx, &func, 1, threads, smem, reserve_sms);
}

/* The grid to launch on this rank: want blocks when they fit, else as many
 * as fit (with a note). When fewer than min_blocks fit, refuses the kernel
 * (naming what fits and what it needs) and returns 0. */
int cb_fit_grid_all(cb_kernel_ctx *ctx, cb_setup_reply *reply, const void *const *funcs, int nfuncs,
                    int threads, size_t smem, int reserve_sms, int want, int min_blocks);
static inline int cb_fit_grid(cb_kernel_ctx *ctx, cb_setup_reply *reply, const void *func,
                              int threads, size_t smem, int reserve_sms, int want, int min_blocks) {
  return cb_fit_grid_all(ctx, reply, &func, 1, threads, smem, reserve_sms, want, min_blocks);
}

/* Collective (every rank's setup calls it): as cb_fit_grid_all, but the same
 * grid on every rank, the fewest blocks that fit on any rank's GPU; for
 * kernels whose block b pairs with block b of every peer (ring channels,
 * direct handshakes). */
int cb_fit_grid_agreed(cb_kernel_ctx *ctx, cb_setup_reply *reply, const void *const *funcs,
                       int nfuncs, int threads, size_t smem, int reserve_sms, int want,
                       int min_blocks);

/* The instance a launch for (dtype, op) picks among funcs, as a setup
 * passes them to the fits above: every (datatype, op) in the order of
 * CB_DEFINE_TYPE_OP_FUNCS (device/type_op_funcs.cuh), or one for all;
 * NULL for any other count. For the kernels' resources (collective.h). */
const void *cb_func_for(const void *const *funcs, int nfuncs, cb_dtype dtype, cb_redop op);

/* Collective: the most ranks that share one GPU, over every rank (1
 * unless CB_SHARE_GPUS); the same answer on every rank. */
int cb_most_ranks_on_a_gpu(cb_kernel_ctx *ctx);

/* Collective, for a kernel whose spinning kernels wait on kernels of its
 * other streams (`why` says which): refuses the run, on every rank alike,
 * when any rank shares its GPU with another, since the streams of several
 * ranks may share one of the device's hardware queues, which run in order,
 * and CUDA promises no concurrency between them. Returns whether it did. */
int cb_refuse_shared_gpus(cb_kernel_ctx *ctx, cb_setup_reply *reply, const char *why);

#ifdef __cplusplus
}
#endif

#endif
