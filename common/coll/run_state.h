/* State shared by the harness's parts while a program runs: the run (one
 * per process) and each rank's view of it. The parts that work on them
 * (placed_call, checked_calls, measure, warmup, stress) each have their own
 * header. Internal to common/coll/. */
#ifndef CB_RUN_STATE_H
#define CB_RUN_STATE_H

#include "buffers.h"
#include "collective.h"
#include "load.h"
#include "options.h"
#include "plugins.h"
#include "report.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What all ranks of the process share. Rank 0 alone writes the report. */
typedef struct {
  const cb_collective *coll;
  const cb_plugin_set *plugins; /* the plugins loaded (NULL: none) */
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
  cb_load_beside beside; /* --overlap (overlap_measure.h): this rank's load */
  int ranks_on_gpu;      /* ranks of any host on this rank's GPU (cb_ranks_on_gpu) */
  /* The resources the text last printed for the kernel being swept
   * (world rank 0): a line is printed when a row's differ. */
  char shown_resources[640];
} cb_rank_state;

#ifdef __cplusplus
}
#endif

#endif
