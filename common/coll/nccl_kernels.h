/* NCCL as kernel 0 of every test: the reference our kernels are measured
 * against, on the same buffers, with the same timer. Built with or without
 * NCCL; without it the kernel reports itself unavailable. */
#ifndef CB_NCCL_KERNELS_H
#define CB_NCCL_KERNELS_H

#include "catalogue.h"
#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NULL when NCCL was built in, else the reason. */
const char *cb_nccl_unavailable(void);
int cb_nccl_header_version(void);  /* NCCL_VERSION_CODE, 0 without NCCL */
int cb_nccl_library_version(void); /* ncclGetVersion(), 0 without NCCL */

/* Communicator per rank, created by all ranks together. */
void cb_nccl_setup(cb_kernel_ctx *ctx);
void cb_nccl_teardown(cb_kernel_ctx *ctx);

void cb_nccl_all_reduce(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);
void cb_nccl_all_gather(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);
void cb_nccl_reduce_scatter(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);
void cb_nccl_alltoall(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);
void cb_nccl_sendrecv(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);
void cb_nccl_broadcast(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* The kernel-table row for NCCL, with the launch function of one collective
 * and the placements it is validated in. */
#define CB_NCCL_KERNEL_PLACED(summary_, launch_, placements_)                                      \
  {                                                                                                \
    CB_KERNEL(NCCL), .summary = summary_,                                                  \
    .limits = {.placements = placements_,                                                          \
               .dtypes = CB_ALL_DTYPES,                                                            \
               .ops = CB_ALL_OPS,                                                                  \
               .gpu_per_rank = 1},                                                                 \
    .unavailable = cb_nccl_unavailable, .setup = cb_nccl_setup, .teardown = cb_nccl_teardown,      \
    .launch = launch_                                                                              \
  }
#define CB_NCCL_KERNEL(summary_, launch_)                                                          \
  CB_NCCL_KERNEL_PLACED(summary_, launch_, CB_OUT_OF_PLACE | CB_IN_PLACE)

#ifdef __cplusplus
}
#endif

#endif
