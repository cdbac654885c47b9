/* copy_perf's --overlap: the bandwidth copies of a measurement timed again
 * with a load (load.h) running beside them on a stream of its own, and the
 * load's rate alone and beside them. The collective programs do the same for
 * their calls (coll/overlap_measure.h); docs/overlap.md says what is measured.
 *
 * The copying rank only (rank 0), on its GPU: the load alone (one unit of
 * warm-up, three timed); then the load started (a mark, then units each
 * followed by a mark, twice the window the copies' own time predicts), the
 * path's warm-up window and its -n bandwidth windows timed on the host clock
 * as the row times them, between two events recorded on the copying stream
 * while it is idle, which mark the window on the GPU's clock whatever drives
 * the copies (the CPU-driven paths too); the load read against the window
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

typedef struct {
  cb_load *load; /* NULL: no --overlap */
  cudaEvent_t window[2];
  int units; /* started by the last measurement (the validation's load starts as many) */
} cb_copy_overlap;

/* On the copying rank, before its buffers (whose check then counts the
 * load's memory): the load of --overlap; nothing without it. */
void cb_copy_overlap_open(cb_copy_overlap *ov, const cb_copy_options *o);
void cb_copy_overlap_close(cb_copy_overlap *ov);

/* The bandwidth measurement of kernel k (its copies c, -W a window, -n
 * windows, on stream s) again beside the load, into out; bw_us is the
 * row's time per copy without it. */
void cb_copy_overlap_measure(cb_copy_overlap *ov, const cb_copy_kernel *k, cb_copy_ctx *ctx,
                             const cb_copy_call *c, cudaStream_t s, const cb_copy_options *o,
                             double bw_us, const char *what, cb_overlap_result *out);

/* Around validation rounds: the load started as the last measurement
 * started it, then waited for. No-ops without --overlap. */
void cb_copy_overlap_validation_begin(cb_copy_overlap *ov);
void cb_copy_overlap_validation_end(cb_copy_overlap *ov, const cb_copy_options *o,
                                    const char *what);

#ifdef __cplusplus
}
#endif

#endif
