/* collbench's own sendrecv kernels, for the kernel table in sendrecv.c:
 * rank r sends its input to rank r + 1 and receives rank r - 1's. */
#ifndef CB_SENDRECV_KERNELS_H
#define CB_SENDRECV_KERNELS_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k ll: LL16 packets into the next rank's scratch, credits back (at 2
 * ranks the LL exchange, no credits) (sendrecv_ll.cu). */
#define CB_SR_LL_MAX_BYTES (1ull << 20)
void cb_sr_ll_setup(cb_kernel_ctx *ctx);
void cb_sr_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k direct: 16-byte stores into the next rank's output, flag handshakes
 * with the next and previous ranks (sendrecv_direct.cu). */
void cb_sr_direct_setup(cb_kernel_ctx *ctx);
void cb_sr_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ce: one cudaMemcpyAsync into the next rank's output between two flag
 * kernels (sendrecv_ce.cu). */
void cb_sr_ce_setup(cb_kernel_ctx *ctx);
void cb_sr_ce_teardown(cb_kernel_ctx *ctx);
void cb_sr_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

/* -k ring: slices pushed through FIFOs in the next rank's memory, the
 * receiver copies them out (sendrecv_ring.cu). */
void cb_sr_ring_setup(cb_kernel_ctx *ctx);
void cb_sr_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
