/* collbench's own reduce-scatter kernels, for the kernel table in reduce_scatter.c. */
#ifndef CB_REDUCE_SCATTER_KERNELS_H
#define CB_REDUCE_SCATTER_KERNELS_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k direct: 16-byte loads from every peer's input (reduce_scatter_direct.cu). */
void cb_rs_direct_setup(cb_kernel_ctx *ctx);
void cb_rs_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ring: Simple-protocol ring (reduce_scatter_ring.cu); teardown
 * cb_ring_teardown (ring_mesh.h). */
void cb_rs_ring_setup(cb_kernel_ctx *ctx);
void cb_rs_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ll: LL16 packets into every peer's scratch (reduce_scatter_ll.cu). The
 * limit is on the table size (the whole input, n blocks). */
#define CB_RS_LL_MAX_BYTES (1ull << 20)
void cb_rs_ll_setup(cb_kernel_ctx *ctx);
void cb_rs_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ce: copy engines push pieces into the peers' scratch, SMs reduce
 * (reduce_scatter_ce.cu); teardown cb_ce_reduce_teardown (ce_reduce.h). */
void cb_rs_ce_setup(cb_kernel_ctx *ctx);
void cb_rs_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
