/* Copy-engine kernels with a root (broadcast, scatter and gather -k ce):
 * each call's copies (cudaMemcpyAsync) go between the root and the other
 * ranks only, into the harness's receive buffers, between the two one-block
 * flag kernels of ce_flags.h (start: the buffers copied into are free; end:
 * the copies have landed), which pair the root with each other rank. The
 * root sends (broadcast, scatter: a copy into every rank's output) or
 * receives (gather: every rank's copy into the root's output). Copies to
 * other ranks run on side streams, forked from and joined back into the
 * call's stream with events, so several copy engines work at once; a copy
 * into our own buffer runs on the call's stream. Everything can be captured
 * into a CUDA graph; nothing on the host changes per call. */
#ifndef CB_CE_ROOTED_H
#define CB_CE_ROOTED_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "ce_side.h"
#include "collbench/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  cb_ce_side io; /* receive buffers, the handshakes, side streams */
} cb_ce_rooted_state;

/* One copy of a call: `bytes` bytes from src (ours) into rank `to`'s
 * receive buffer, at the place dst (in ours) has in our receive buffer. */
typedef struct {
  const void *src, *dst;
  int to;
} cb_ce_copy;

static inline cb_ce_copy cb_ce_copy_of(const void *src, const void *dst, int to) {
  cb_ce_copy c = {src, dst, to};
  return c;
}

/* Collective: a cb_ce_rooted_state in ctx->state, or a refusal (state
 * NULL) when ranks share a GPU (ce_rooted.cu says why). */
void cb_ce_rooted_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply);
/* Collective: frees ctx->state; the kernels' teardown in their tables. */
void cb_ce_rooted_teardown(cb_kernel_ctx *ctx);

/* One call with root `root`: this rank's copies (ncopies of them, at most
 * one per rank), each `bytes` long, between the flag kernels (nothing at
 * all for 0 bytes: call it on every rank alike). */
void cb_ce_rooted_launch(cb_kernel_ctx *ctx, int root, const cb_ce_copy *copies, int ncopies,
                         size_t bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
