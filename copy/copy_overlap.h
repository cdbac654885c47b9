/* copy_perf's --overlap: the bandwidth copies of a measurement timed again
 * with a load (load.h) running beside them on a stream of its own, and the
 * load's rate alone and beside them. The collective programs do the same for
 * their calls (coll/overlap_measure.h); docs/overlap.md says what is measured.
 *
 * The copying rank only (rank 0), on its GPU: the load alone (one unit of
 * warm-up, three timed); then the load started (a mark, then units each
 * followed by a mark, twice the window the copies' own time predicts), the
 * path's warm-up window and its -n bandwidth windows timed on the host clock
 * as the row times them, between two events recorded on a stream nothing
 * else uses where that clock starts and stops, which mark the window on the
 * GPU's clock whatever drives the copies (the CPU-driven paths too); the load
 * read against the window
 * (load_window.h), started again with four times the units, up to three more
 * times, when it did not outlast it. */
#ifndef CB_COPY_OVERLAP_H
#define CB_COPY_OVERLAP_H

#include <cuda_runtime_api.h>

#include "copy.h"
#include "load.h"
#include "load_window.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bandwidth measurement of kernel k (its copies c, -W a window, -n
 * windows, on stream s) again beside the load b (opened on the copying rank
 * before its buffers, so that their check counts its memory), into out;
 * bw_us is the row's time per copy without it. Nothing without a load. */
void cb_copy_overlap_measure(cb_load_beside *b, const cb_copy_kernel *k, cb_copy_ctx *ctx,
                             const cb_copy_call *c, cudaStream_t s, const cb_copy_options *o,
                             double bw_us, const char *what, cb_overlap_result *out);

#ifdef __cplusplus
}
#endif

#endif
