/* Command-line options: one struct, parsed and checked without touching a GPU. */
#ifndef CB_OPTIONS_H
#define CB_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "datagen.h"      /* cb_data_kind */
#include "option_parse.h" /* cb_opts_result, CB_PATH_MAX */
#include "sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the per-rank times are combined (-a), as nccl-tests. */
typedef enum { CB_AVG_RANK0 = 0, CB_AVG_MEAN = 1, CB_AVG_MIN = 2, CB_AVG_MAX = 3 } cb_average;

/* How a measurement is timed (--timer). HOST is nccl-tests' method: the host
 * clock from after the barrier to the end of the stream sync that follows
 * the -n launches (or the -G graph launches). EVENTS: CUDA events recorded on
 * the stream around them. Unless --timer says, stream mode uses HOST (so a
 * kernel-0 row means what the nccl-tests row means) and graph and blocking
 * modes EVENTS (graph mode agrees with nccl-tests within 4% that way; -z 1
 * excludes the wait between iterations). */
typedef enum { CB_TIMER_HOST = 1, CB_TIMER_EVENTS = 2 } cb_timer;

/* -r all (or nccl-tests' -r -1): rooted collectives run once per root. */
#define CB_ROOT_ALL (-1)

/* -z, as nccl-tests: when the host waits for the operations it launches. */
typedef enum {
  CB_BLOCK_NONE = 0,       /* launch the -n iterations back to back, wait once */
  CB_BLOCK_OP_BARRIER = 1, /* wait for each operation (each of -m), then all ranks meet */
  CB_BLOCK_OP = 2,         /* wait for each operation, no meeting */
  CB_BLOCK_ITERATION = 3,  /* wait for each iteration (its -m operations), then all ranks
                              meet; the time leaves the meeting out */
} cb_blocking;

/* The most plugins a run loads (--plugin and CB_PLUGINS together: plugins.h). */
#define CB_MAX_PLUGINS 8

/* -x not given: the communicator's CTA policy is left to NCCL. */
#define CB_CTA_POLICY_UNSET (-1)

typedef struct {
  cb_sweep sweep;        /* -b -e -i -f */
  int iters;             /* -n: timed iterations per size */
  int warmup;            /* -w: warm-up iterations per size */
  int all_sizes_warmup;  /* --all_sizes_warmup: 1 = nccl-tests' warm-up of every size (-b to -e by
                            2, -w calls each) before the first size is timed */
  int check;             /* -c: validation rounds after timing (0 = off) */
  uint32_t dtypes;       /* -d: mask of cb_dtype */
  uint32_t ops;          /* -o: mask of cb_redop */
  int root;              /* -r: root rank for rooted collectives, or CB_ROOT_ALL */
  int threads;           /* -t: host threads per process (each drives -g GPUs) */
  int gpus;              /* -g: GPUs per thread; each GPU is a rank with its own host thread */
  int graph_launches;    /* -G: 0 = stream mode, N = capture -n iterations, launch N times */
  int average;           /* -a: a cb_average */
  int blocking;          /* -z: a cb_blocking */
  int agg_iters;         /* -m: operations per timed iteration (NCCL's in one group) */
  int run_cycles;        /* -N: times the sweep of every size runs, printed each time; 0 = until
                            stopped */
  int parallel_init;     /* -p: recorded (each rank's own thread always sets its kernels up) */
  int stream_null;       /* -y: time on the legacy NULL stream instead of a stream of our own */
  int report_cputime;    /* -C: the time column is the host's time to launch, not the latency */
  int report_timestamps; /* -S: each row ends with the local time */
  int memory_report;     /* -M: a GPU memory usage line closes the report */
  int per_iter_skip;     /* -K: leading samples -I's statistics leave out */
  int timeout_s;         /* -T: bound on any wait for a GPU or a peer */
  int per_iter;          /* -I: per-iteration statistics in the table, JSON and CSV */
  int stress;            /* --stress N: N random validated calls per kernel instead of the sweep */
  int unalign;           /* -u: every call's buffers start this many elements in (nccl-tests') */
  cb_data_kind data;     /* --data: exact small integers, or random values (datagen.h) */
  int local_register;    /* -R: kernel 0's buffers as nccl-tests' -R: 0 plain, 1 ncclCommRegister,
                             2 symmetric windows (ncclCommWindowRegister) */
  int cta_policy;        /* -x: kernel 0's ncclConfig_t.CTAPolicy (0..2), or CB_CTA_POLICY_UNSET */
  int timer;             /* --timer: a cb_timer (resolved from the mode when not given) */
  int peer_mapping;      /* CB_PEER_MAPPING (environment, not argv): a cb_peer_mapping, as
                             asked (auto by default; what auto resolved to is the report's) */
  int overlap;           /* --overlap: a cb_load_kind run beside every timed call (load.h) */
  uint64_t overlap_size; /* --overlap_size: the load's size (its default when not given) */
  char kernels[256];     /* -k: as typed; resolved against the collective's table */
  const char *plugins[CB_MAX_PLUGINS]; /* --plugin: the paths, in order (argv's words) */
  int nplugins;
  char json_path[CB_PATH_MAX]; /* -J */
  char csv_path[CB_PATH_MAX];  /* --csv */
} cb_options;

void cb_options_defaults(cb_options *o);

/* Parses argv into o. On CB_OPTS_ERROR, err (err_len bytes) says what is wrong.
 * Checks everything that needs no GPU: ranges, -b <= -e, a sweep that advances,
 * -G with -z, names of datatypes, ops, timers and loads, and the loads this
 * build cannot run. */
cb_opts_result cb_options_parse(int argc, char **argv, cb_options *o, char *err, size_t err_len);

void cb_options_usage(FILE *out, const char *prog);

/* One line holding every option that changes what is run, as the user
 * types them ("-b 8; -e 8; ...; -d float; ...", each "; "-separated); ranks
 * compare it to refuse a launch where they were started differently, naming
 * the options that differ. */
void cb_options_canonical(const cb_options *o, char *buf, size_t len);

/* "host" or "events". */
const char *cb_timer_name(int timer);

/* Ranks each process drives. */
static inline int cb_options_ranks_per_proc(const cb_options *o) {
  return o->threads * o->gpus;
}

#ifdef __cplusplus
}
#endif

#endif
