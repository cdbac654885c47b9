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
  int local_ranks;  /* ranks of this host (processes x ranks per process) */
  int first_device; /* NCCL_TESTS_DEVICE: every process's first device; -1: by local rank */
} cb_run;

/* -M: GPU memory a rank's run took, in bytes (the largest over kernels). */
typedef struct {
  long long base_free; /* free device memory before the harness allocated anything */
  cb_mem_use use;
} cb_mem_probe;

/* One rank's view during the sweep. */
typedef struct {
  cb_rank_info *me;
  cb_run *run;
  cb_buffers bufs;
  cudaStream_t stream;
  cb_timing_opts timing;
  cb_mem_probe mem; /* -M */
  /* Why the mapping CB_PEER_MAPPING names cannot serve the kernels that
   * use peer memory (they are skipped with it), or NULL (always under auto,
   * which takes ipc where cumem cannot serve); the text lives in the buffer. */
  const char *peer_mapping_why;
  char peer_mapping_buf[320];
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

/* The validation data of a call on this rank, round seed. */
cb_data_spec cb_spec_for(const cb_rank_state *st, const cb_call *call, const cb_counts *c,
                         uint64_t seed);

/* Enqueues a call's fresh inputs (spec's round) after poisoning its output. */
void cb_enqueue_inputs(cb_rank_state *st, const cb_data_spec *spec, const cb_call *call,
                       const cb_counts *c, cudaStream_t s);

/* One call of a validated chain (checked_calls.c). */
typedef struct {
  cb_launch launch; /* the kernel, its context and the placed call */
  cb_counts counts;
  int reps; /* launches before the check; above 1 only out of place */
} cb_checked_call;

/* Ranks whose output differs from rank 0's (the first CB_NAMED_RANKS named). */
#define CB_NAMED_RANKS 8
typedef struct {
  int count;
  int ranks[CB_NAMED_RANKS];
} cb_disagreement;

/* What a chain found per call, over every rank (and every replay). */
typedef struct {
  long long wrong[CB_CHECK_SLOTS];
  cb_disagreement disagree[CB_CHECK_SLOTS]; /* only where the shape's outputs must agree */
} cb_chain_result;

/* Collective: validates ncalls (1..CB_CHECK_SLOTS) calls launched back to
 * back on the rank's stream with no host wait between them, each on fresh
 * inputs of its own round written on the GPU, each checked into its own
 * counters; the chain runs `replays` times (one graph replayed, in graph
 * mode), on new rounds every time. Waits once, then gathers every rank's
 * counts and output hashes into out. */
void cb_run_checked_calls(cb_rank_state *st, cb_checked_call *calls, int ncalls, int replays,
                          const char *what, cb_chain_result *out);
/* Wrong values of call i: wrong elements plus one per disagreeing rank. */
long long cb_chain_wrong(const cb_chain_result *r, int i);
/* Rank 0: a "# rank agreement" line naming the ranks, when there are any. */
void cb_print_disagreement(const cb_rank_state *st, const char *what, const cb_disagreement *d);

/* Names a placed call in waits' timeout messages: "kernel 1 (ring) gather
 * float sum 32 B out-of-place root 0", then tail (may be ""). */
void cb_call_what(const cb_rank_state *st, const cb_launch *l, const cb_counts *c, const char *tail,
                  char *buf, size_t len);

/* Collective: times and validates one (kernel, call) as the table shows it. */
void cb_measure_call(cb_rank_state *st, cb_launch *l, const cb_counts *c, cb_measure *m);

/* Collective (warmup.h): nccl-tests' warm-up for all sizes of proto's
 * kernel, datatype, op and root: -w single calls at every size from -b to
 * -e by a factor of 2, each size placed and skipped as the sweep places and
 * skips it, then waited for (-T). Leaves the buffers' contents undefined:
 * every measurement writes its inputs afterwards. */
void cb_warm_up_sizes(cb_rank_state *st, const cb_launch *proto);

/* Collective: --stress N random calls of one kernel, validated back to back.
 * Returns the wrong values found. */
long long cb_stress_kernel(cb_rank_state *st, int kidx, cb_kernel_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
