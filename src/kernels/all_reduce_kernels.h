/* collbench's own all-reduce kernels, for the kernel table in all_reduce.c. */
#ifndef CB_ALL_REDUCE_KERNELS_H
#define CB_ALL_REDUCE_KERNELS_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k ll: one-shot LL16 all-reduce (all_reduce_ll.cu). */
#define CB_AR_LL_MAX_BYTES (1ull << 20)
void cb_ar_ll_setup(cb_kernel_ctx *ctx);
void cb_ar_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ll2: two-shot LL16 all-reduce (all_reduce_ll2.cu); at 2 ranks the
 * one-shot ll; teardown cb_ll_teardown (ll_mesh.h). */
#define CB_AR_LL2_MAX_BYTES (1ull << 20)
void cb_ar_ll2_setup(cb_kernel_ctx *ctx);
void cb_ar_ll2_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ring: Simple-protocol ring all-reduce (all_reduce_ring.cu). */
void cb_ar_ring_setup(cb_kernel_ctx *ctx);
void cb_ar_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k direct: all-pairs loads, reduce, stores to every rank (all_reduce_direct.cu). */
void cb_ar_direct_setup(cb_kernel_ctx *ctx);
void cb_ar_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ce: copy engines move the data, SMs reduce (all_reduce_ce.cu);
 * teardown cb_ce_reduce_teardown (ce_reduce.h). */
void cb_ar_ce_setup(cb_kernel_ctx *ctx);
void cb_ar_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
