/* Copy-engine pushes between two flag kernels, shared by all_gather and
 * alltoall -k ce: each rank copies (cudaMemcpyAsync) one run per peer into
 * that peer's output, block `rank` of it, and its own run into its own
 * output; SMs only run the two one-block handshake kernels of a call. The
 * protocol and its ordering argument are in ce_push.cu. */
#ifndef CB_CE_PUSH_H
#define CB_CE_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ce_side.h"
#include "collbench/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  cb_ce_side io; /* receive buffers, the handshakes (with every peer), side streams */
  int parallel;  /* copies to peers on side streams */
  int own_by_sm; /* our own run into our own block by a kernel (CB_CE_OWN_COPY=sm) */
} cb_ce_push_state;

/* Collective: a cb_ce_push_state in ctx->state. parallel_env names the
 * tunable (1, the default: one side stream per peer, so several copy
 * engines work at once; 0: every copy on the call's stream). */
void cb_ce_push_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply, const char *parallel_env);
/* Collective: frees ctx->state; the kernels' teardown in their tables. */
void cb_ce_push_teardown(cb_kernel_ctx *ctx);

/* One call: the run for rank q, src + q * src_stride (src_stride 0: the
 * same run for every rank), `bytes` bytes, goes into block `rank` of rank
 * q's output; mine is that block of our own output (in the harness's
 * receive buffer), and our own run is copied there unless it is already
 * there (in place). Nothing for 0 bytes, on every rank alike. */
void cb_ce_push_launch(cb_kernel_ctx *ctx, const char *src, size_t src_stride, char *mine,
                       size_t bytes, cudaStream_t stream);

/* Resources (collective.h) of a call of `bytes` bytes a run: the two flag
 * kernels, the copies to the peers (on a side stream each, or on the call's
 * stream) and our own run's copy when own_copy (by the copy engine, or a
 * kernel with CB_CE_OWN_COPY=sm); nothing for 0 bytes. */
void cb_ce_push_resources(const cb_kernel_ctx *ctx, size_t bytes, int own_copy,
                          cb_kernel_resources *r);

#ifdef __cplusplus
}
#endif

#endif
