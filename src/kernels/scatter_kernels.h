/* collbench's own scatter kernels, for the kernel table in scatter.c: rank
 * q ends with block q of the root's (-r) input. */
#ifndef CB_SCATTER_KERNELS_H
#define CB_SCATTER_KERNELS_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k ll: the root's LL16 packets of block q into rank q's scratch, credits
 * back (scatter_ll.cu); teardown cb_ll_teardown (ll_mesh.h). The limit is
 * on the table size (the root's whole input, n blocks). */
#define CB_SC_LL_MAX_BYTES (1ull << 20)
void cb_sc_ll_setup(cb_kernel_ctx *ctx);
void cb_sc_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k direct: the root's 16-byte stores of block q into rank q's output
 * (scatter_direct.cu); teardown cb_direct_teardown (direct_mesh.h). */
void cb_sc_direct_setup(cb_kernel_ctx *ctx);
void cb_sc_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ce: the root's cudaMemcpyAsync of block q into rank q's output
 * (scatter_ce.cu); setup and teardown cb_ce_rooted_setup and
 * cb_ce_rooted_teardown (ce_rooted.h). */
void cb_sc_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
