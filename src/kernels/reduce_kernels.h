/* collbench's own reduce kernels, for the kernel table in reduce.c: the
 * root (-r) ends with the reduction of every rank's input; the other
 * ranks' outputs are never written. */
#ifndef CB_REDUCE_KERNELS_H
#define CB_REDUCE_KERNELS_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k ring: a pipelined chain root+1 -> ... -> root through FIFOs in the
 * next rank's memory (reduce_ring.cu); teardown cb_ring_teardown
 * (ring_mesh.h). */
void cb_rd_ring_setup(cb_kernel_ctx *ctx);
void cb_rd_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ll: every rank's LL16 packets into the root's scratch, credits back
 * (reduce_ll.cu); teardown cb_ll_teardown (ll_mesh.h). The limit is on the
 * message (every rank's whole input). */
#define CB_RD_LL_MAX_BYTES (1ull << 20)
void cb_rd_ll_setup(cb_kernel_ctx *ctx);
void cb_rd_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k direct: the root's 16-byte loads of every rank's input over NVLink
 * (reduce_direct.cu); teardown cb_direct_teardown (direct_mesh.h). */
void cb_rd_direct_setup(cb_kernel_ctx *ctx);
void cb_rd_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
