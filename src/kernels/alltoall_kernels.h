/* collbench's own alltoall kernels, for the kernel table in alltoall.c. */
#ifndef CB_ALLTOALL_KERNELS_H
#define CB_ALLTOALL_KERNELS_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k ring: n-1 ring-ordered steps through FIFO pipes (alltoall_ring.cu). */
void cb_a2a_ring_setup(cb_kernel_ctx *ctx);
void cb_a2a_ring_teardown(cb_kernel_ctx *ctx);
void cb_a2a_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ll: LL16 packets into every peer's scratch (alltoall_ll.cu); teardown
 * cb_ll_teardown (ll_mesh.h). The limit is on the table size (the whole
 * input, n blocks). */
#define CB_A2A_LL_MAX_BYTES (1ull << 20)
void cb_a2a_ll_setup(cb_kernel_ctx *ctx);
void cb_a2a_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k direct: 16-byte stores into every peer's output (alltoall_direct.cu);
 * teardown cb_direct_teardown (direct_mesh.h). */
void cb_a2a_direct_setup(cb_kernel_ctx *ctx);
void cb_a2a_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ce: copy-engine copies into every peer's output (alltoall_ce.cu);
 * teardown cb_ce_push_teardown (ce_push.h). */
void cb_a2a_ce_setup(cb_kernel_ctx *ctx);
void cb_a2a_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
