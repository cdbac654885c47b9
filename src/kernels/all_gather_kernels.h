/* collbench's own all-gather kernels, for the kernel table in all_gather.c. */
#ifndef CB_ALL_GATHER_KERNELS_H
#define CB_ALL_GATHER_KERNELS_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k direct: 16-byte stores into every peer's output (all_gather_direct.cu);
 * teardown cb_direct_teardown (direct_mesh.h). */
void cb_ag_direct_setup(cb_kernel_ctx *ctx);
void cb_ag_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ce: copy-engine copies into every peer's output (all_gather_ce.cu);
 * teardown cb_ce_push_teardown (ce_push.h). */
void cb_ag_ce_setup(cb_kernel_ctx *ctx);
void cb_ag_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ring: Simple-protocol ring (all_gather_ring.cu); teardown
 * cb_ring_teardown (ring_mesh.h). */
void cb_ag_ring_setup(cb_kernel_ctx *ctx);
void cb_ag_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ll: LL16 packets into every peer's scratch (all_gather_ll.cu). The
 * limit is on the table size (the whole output, n blocks). */
#define CB_AG_LL_MAX_BYTES (1ull << 20)
void cb_ag_ll_setup(cb_kernel_ctx *ctx);
void cb_ag_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
