/* collbench's own gather kernels, for the kernel table in gather.c: the
 * root (-r) ends with every rank's input in rank order; the other ranks'
 * outputs are never written. */
#ifndef CB_GATHER_KERNELS_H
#define CB_GATHER_KERNELS_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k ll: every rank's LL16 packets into the root's scratch, credits back
 * (gather_ll.cu); teardown cb_ll_teardown (ll_mesh.h). The limit is on the
 * table size (the root's whole output, n blocks). */
#define CB_GA_LL_MAX_BYTES (1ull << 20)
void cb_ga_ll_setup(cb_kernel_ctx *ctx);
void cb_ga_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k direct: every rank's 16-byte stores into its block of the root's
 * output (gather_direct.cu); teardown cb_direct_teardown (direct_mesh.h). */
void cb_ga_direct_setup(cb_kernel_ctx *ctx);
void cb_ga_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ce: every rank's cudaMemcpyAsync into its block of the root's output
 * (gather_ce.cu); setup and teardown cb_ce_rooted_setup and
 * cb_ce_rooted_teardown (ce_rooted.h). */
void cb_ga_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
