/* A compute load that runs on a stream of its own beside a timed call
 * (--overlap), so that a kernel is measured as it runs in training and
 * inference: beside GEMMs, taking SMs, memory bandwidth and copy engines
 * from them and slowed by them. docs/overlap.md says what is measured and
 * how to read it.
 *
 * A load is a unit of work enqueued again and again on its stream:
 *   gemm  a bf16 GEMM through cuBLAS (cublasGemmEx, fp32 accumulation),
 *         M = N = K = size; 2 size^3 flop a unit. Listed unavailable, with
 *         the reason, where cuBLAS is not in the build or does not load.
 *   fma   our kernel: every thread runs 8 independent chains of fp32 FMAs,
 *         size FMAs a thread; 2 flop an FMA.
 *   mem   our kernel: a copy of size bytes within the GPU's memory, 16-byte
 *         loads and stores; 2 size bytes moved.
 * Each of our kernels is CB_LOAD_WAVES times the blocks the GPU holds at
 * once (load_options.h).
 * Its rate is TFLOP/s (gemm, fma) or GB/s (mem). The operands are filled
 * with values that are not zero (a GEMM of zeros draws less power and
 * runs faster than one of real data).
 *
 * The collective and copy harnesses share it (coll/overlap_measure.c,
 * copy's); the arithmetic of the window a load is measured in is
 * load_window.h. */
#ifndef CB_LOAD_H
#define CB_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "load_options.h"
#include "load_window.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_load cb_load;

/* A load of the kind and size on the current device, with its own
 * non-blocking stream and its operands allocated and filled; fails (one
 * line) when the device lacks the memory. */
cb_load *cb_load_create(int kind, uint64_t size);
void cb_load_destroy(cb_load *l);

/* The rate (TFLOP/s or GB/s) of `units` units back to back with nothing
 * else on the GPU from this rank, after one unit of warm-up, and a unit's
 * time in *unit_us. Waits for them (failing with `what` after timeout_s). */
double cb_load_rate_alone(cb_load *l, int units, int timeout_s, const char *what, double *unit_us);

/* Beside a call: enqueues a mark (an event) and then `units` units, each
 * followed by its mark, on the load's stream (at most CB_LOAD_MAX_UNITS).
 * A stream holds about a thousand pending launches and event records before
 * a launch blocks the host until room is made: 256 units (a GEMM may be two
 * kernels), and their marks, stay well below, so that enqueueing them never
 * waits for the GPU (a rank thread waiting there can hold a lock of the
 * driver that another rank's launch needs, run_env.c). */
#define CB_LOAD_MAX_UNITS 256
void cb_load_start(cb_load *l, int units);

/* What a harness keeps for --overlap, per rank (coll/overlap_measure.c,
 * copy/copy_overlap.c): the load (NULL: none), the two events that mark the
 * timed window (on the call's stream, or on `idle`), the units the last
 * measurement started, which the validation's load starts again, and a
 * stream nothing else uses: an event recorded there completes as soon as it
 * is recorded, so it marks a host time on the GPU's clock, for work that is
 * not in one stream's order (copy_perf's CPU-driven paths, a resident
 * kernel that runs from a session's start to its stop). */
typedef struct {
  cb_load *load;
  cudaEvent_t window[2];
  int units;
  cudaStream_t idle;
} cb_load_beside;

/* How a harness measures beside the load: units timed alone (after one of
 * warm-up); starts, the first and up to three more with four times the
 * units; host time a measurement adds to its window beyond its launches
 * (the ranks' meeting, a graph's capture and upload). */
#define CB_LOAD_ALONE_UNITS     3
#define CB_LOAD_TRIES           4
#define CB_LOAD_WINDOW_SLACK_US 2000.0

/* The load of kind (nothing for CB_LOAD_NONE) and its window events, on the
 * current device; cb_load_beside_close frees them. */
void cb_load_beside_open(cb_load_beside *b, int kind, uint64_t size);
void cb_load_beside_close(cb_load_beside *b);
/* After a measurement beside `units` started units: the load waited for and
 * read against the window (load_window.h). */
void cb_load_beside_read(cb_load_beside *b, int units, int timeout_s, const char *what,
                         cb_load_window *w);
/* Around validation rounds: the load started as the last measurement
 * started it, then waited for. No-ops without a load. */
void cb_load_beside_validation_begin(cb_load_beside *b);
void cb_load_beside_validation_end(cb_load_beside *b, int timeout_s, const char *what);

#ifdef __cplusplus
}
#endif

#endif
