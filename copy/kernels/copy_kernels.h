/* copy_perf's kernels (paths), for the table in copy/copy_perf.c. */
#ifndef CB_COPY_KERNELS_H
#define CB_COPY_KERNELS_H

#include "copy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -k 0 ce: cudaMemcpyAsync (copy_ce.c). */
void cb_copy_ce_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s);

/* -k 1 batch: cudaMemcpyBatchAsync, one call per window (copy_ce.c). */
const char *cb_copy_batch_unavailable(void);
const char *cb_copy_batch_setup(cb_copy_ctx *ctx);
void cb_copy_batch_teardown(cb_copy_ctx *ctx);
void cb_copy_batch_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s);

/* -k 2 sm: a copy kernel per copy (copy_sm.cu). */
const char *cb_copy_sm_setup(cb_copy_ctx *ctx);
void cb_copy_sm_teardown(cb_copy_ctx *ctx);
void cb_copy_sm_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s);

/* -k 3 gdrcopy: CPU copies through a GDRCopy mapping of device memory (copy_gdrcopy.c). */
const char *cb_copy_gdr_unavailable(void);
const char *cb_copy_gdr_setup(cb_copy_ctx *ctx);
void cb_copy_gdr_teardown(cb_copy_ctx *ctx);
void cb_copy_gdr_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s);

/* -k 4 llhost: LL16 packets, or a payload and a flag per chunk, through
 * mapped host memory to and from a resident GPU kernel (copy_llhost.c,
 * copy_llhost.cu). */
const char *cb_copy_llh_refuse_run(const cb_copy_options *o, cb_copy_dir d, uint64_t copies,
                                   char *buf, size_t len);
const char *cb_copy_llh_setup(cb_copy_ctx *ctx);
void cb_copy_llh_teardown(cb_copy_ctx *ctx);
void cb_copy_llh_start(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s);
void cb_copy_llh_stop(cb_copy_ctx *ctx, cudaStream_t s);
void cb_copy_llh_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s);
void cb_copy_llh_complete(cb_copy_ctx *ctx, cudaStream_t s);
const char *cb_copy_llh_protocol(const cb_copy_ctx *ctx, size_t bytes, int copies);
void cb_copy_llh_describe(const cb_copy_ctx *ctx, char *buf, size_t len);
/* How the CPU writes large LL16 h2d chunks, read at setup: -1 (the
 * default) with non-temporal stores where the CPU's manual keeps each
 * packet half whole (Intel's), 0 never, 1 wherever SSE2 is. For the tests,
 * which run both ways on any CPU. */
void cb_copy_llh_nt_stores(int mode);

#ifdef __cplusplus
}
#endif

#endif
