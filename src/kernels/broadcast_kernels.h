/* collbench's own broadcast kernels, for the kernel table in broadcast.c:
 * every rank ends with the root's (-r) input. */
#ifndef CB_BROADCAST_KERNELS_H
#define CB_BROADCAST_KERNELS_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k ll: the root pushes LL16 packets into every peer's scratch, credits
 * back (broadcast_ll.cu). */
#define CB_BC_LL_MAX_BYTES (1ull << 20)
void cb_bc_ll_setup(cb_kernel_ctx *ctx);
void cb_bc_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k direct: the root's 16-byte stores into every peer's output, flag
 * handshakes between the root and each peer (broadcast_direct.cu). */
void cb_bc_direct_setup(cb_kernel_ctx *ctx);
void cb_bc_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ce: the root's cudaMemcpyAsync into every peer's output between two
 * flag kernels (broadcast_ce.cu); teardown cb_ce_rooted_teardown
 * (ce_rooted.h). */
void cb_bc_ce_setup(cb_kernel_ctx *ctx);
void cb_bc_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ring: a pipelined chain root -> root + 1 -> ..., slices through
 * FIFOs in the next rank's memory (broadcast_ring.cu). */
void cb_bc_ring_setup(cb_kernel_ctx *ctx);
void cb_bc_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
