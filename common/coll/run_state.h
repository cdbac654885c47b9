/* State shared by the harness's parts while a program runs: the run (one
 * per process) and each rank's view of it; one measurement (measure.c) and
 * the stress loop (stress.c) work on these. Internal to common/coll/. */
#ifndef CB_RUN_STATE_H
#define CB_RUN_STATE_H

#include "buffers.h"
#include "collective.h"
#include "datagen.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What all ranks of the process share. Rank 0 alone writes the report. */
typedef struct {
  const cb_collective *coll;
  cb_options opts;
  int *runnable; /* per kernel-table index: selected and able to run here */
  cb_report report;
  int fault_skip_rank; /* CB_FAULT_SKIP_RANK: this rank never launches (-1: none) */
  int share_gpus;      /* CB_SHARE_GPUS: ranks share GPUs round robin (gpu.h) */
  int visible_gpus;
  int local_ranks; /* ranks of this host (processes x ranks per process) */
} cb_run;

/* One rank's view during the sweep. */
typedef struct {
  cb_rank_info *me;
  cb_run *run;
  cb_buffers bufs;
  cudaStream_t stream;
  cb_timing_opts timing;
} cb_rank_state;

/* One kernel call as the timer and the validation enqueue it. */
typedef struct {
  const cb_kernel *kernel;
  cb_kernel_ctx *ctx;
  cb_call call;
  int skip; /* fault injection: enqueue nothing, so the peers must time out */
} cb_launch;

/* cb_enqueue_fn for a cb_launch. */
void cb_enqueue_kernel(void *launch, cudaStream_t s);

/* Points send and receive at this rank's buffers for one placement. */
void cb_place_call(cb_rank_state *st, const cb_counts *c, size_t elem, int in_place, cb_call *call);

/* The validation data of a call on this rank. */
cb_data_spec cb_spec_for(const cb_rank_state *st, const cb_call *call, const cb_counts *c,
                         int seed);

/* Collective: fills inputs with spec's round, enqueues fn once (through a
 * graph in graph mode), and returns the wrong elements summed over ranks. */
long long cb_check_round(cb_rank_state *st, const cb_data_spec *spec, const cb_call *call,
                         const cb_counts *c, cb_enqueue_fn fn, void *arg, const char *what);

/* Collective: times and validates one (kernel, call) as the table shows it. */
void cb_measure_call(cb_rank_state *st, cb_launch *l, const cb_counts *c, cb_measure *m);

/* Collective: --stress N iterations of random calls of one kernel. Returns
 * the wrong elements found. */
long long cb_stress_kernel(cb_rank_state *st, int kidx, cb_kernel_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
