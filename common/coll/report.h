/* Results of a run, collected into one struct and rendered by three sinks:
 * the nccl-tests text table (report_text.c), JSON (report_json.c) and CSV
 * (report_csv.c). The sinks only read this struct; the runner fills it. */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "collective.h"
#include "device_info.h"
#include "json_writer.h"
#include "load_window.h"
#include "options.h"
#include "peer_mapping.h"
#include "plugins.h"
#include "rows.h"
#include "sink.h"
#include "text_pieces.h"
#include "stats.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CB_OOP = 0, CB_INP = 1 }; /* index of cb_row.m: out-of-place, in-place */

/* -I's samples, as nccl-tests' JSON carries them. */
typedef struct {
  int n;              /* samples: iterations (graph launches in graph mode) */
  int skipped;        /* -K: leading samples the statistics leave out */
  int nprocs;         /* rows of proc_times: the processes, when more than one; else 0 */
  double *times;      /* n: each sample's slowest rank, us per operation */
  double *proc_times; /* nprocs x n: each process's slowest rank, row by row */
} cb_iter_times;

typedef struct {
  int ran; /* 0: skipped, reason in skip */
  char skip[96];
  double time_us;      /* per operation, combined across ranks by -a */
  double cpu_us;       /* -C: rank 0's host time to launch, per operation (timing.h) */
  double algbw, busbw; /* GB/s */
  long long wrong;     /* wrong elements summed over ranks; -1 = not checked */
  int has_stats;       /* -I */
  cb_iter_stats stats; /* of iter.times, the -K first left out */
  cb_iter_times iter;  /* owned: cb_measure_free */
  int has_res;         /* res holds what the call held of world rank 0's GPU */
  cb_kernel_resources res;
  cb_overlap_result overlap; /* --overlap: the call beside a load (overlap.h) */
} cb_measure;

/* Frees what a measurement owns (its -I samples). */
void cb_measure_free(cb_measure *m);

typedef struct {
  char stamp[24]; /* -S: the local time the row was measured ("2026-01-02 03:04:05") */
  int kernel;     /* index into the collective's kernel table */
  cb_dtype dtype;
  cb_redop op;
  int root;     /* -1 for collectives without a root */
  size_t bytes; /* the table's size column */
  size_t count; /* the table's count column */
  cb_measure m[2];
} cb_row;

/* --stress: one kernel's random validated calls. */
typedef struct {
  int kernel;
  long long calls, skipped; /* skipped: random calls the kernel cannot serve */
  long long wrong;          /* wrong elements, plus one per rank whose output disagreed */
  double seconds;
  int batch, replays; /* different calls back to back at most, and runs of each batch */
} cb_stress_result;

/* -M, as nccl-tests' "GPU memory usage" line (bytes, the most any rank took):
 * init what the kernels' setups took (NCCL's communicators, our kernels'
 * scratch and peer mappings), user the harness's buffers, coll what a
 * kernel's sweep took beyond its setup. */
typedef struct {
  long long init, user, coll;
} cb_mem_use;

typedef struct {
  const char *program; /* "all_reduce_perf" */
  const cb_collective *coll;
  const cb_plugin_set *plugins; /* the plugins loaded (NULL: none) */
  cb_options opts;
  cb_peer_mapping_auto peer_auto; /* opts.peer_mapping auto: what the ranks resolved it to */
  int nranks;                     /* ranks of a group (of the world without a split) */
  cb_device_info *devices;        /* cb_report_all_ranks entries */
  int nccl_header, nccl_library;  /* version codes, 0 = none */
  int cuda_runtime, cuda_driver;
  char mpi[128];
  char date[32];          /* ISO 8601, UTC */
  const int *kernels_run; /* per kernel-table index: 1 if it ran */
  char **kernel_skips;    /* per kernel-table index: why a kernel of -k all cannot run, or NULL */
  cb_row *rows;
  size_t nrows, cap;
  cb_stress_result stress[16]; /* --stress results, one per kernel run */
  int nstress;
  int ngroups;      /* NCCL_TESTS_SPLIT: groups running the test at once (1: no split) */
  int check_min_bw; /* NCCL_TESTS_MIN_BW was set: the headline busbw must reach 90% of ... */
  double min_bw;    /* ... this many GB/s */
  int has_mem;      /* -M: mem holds what the run took */
  cb_mem_use mem;
  char start_time[32];     /* local time, as nccl-tests' JSON has it: "2026-01-02 03:04:05" */
  const char *const *argv; /* the command line, for nccl-tests' JSON "args" */
  int argc;
  char *const *envp; /* the environment, for nccl-tests' JSON "env" (NULL: none) */
  /* Why this run's times mean nothing, as its header says (ranks sharing a
   * GPU, hosts simulated on one machine), or empty: the JSON's
   * "times_comparable", which scripts/ refuse to compare or gate on. */
  char times_void[192];
} cb_report;

/* Appends a row (copied) and returns the stored copy. */
cb_row *cb_report_add(cb_report *r, const cb_row *row);
void cb_report_free(cb_report *r);

/* Records one kernel's --stress result. */
void cb_report_add_stress(cb_report *r, const cb_stress_result *s);

/* Totals over every measurement that ran (and every stress call). */
long long cb_report_wrong(const cb_report *r);
/* Mean busbw of one kernel's measurements (-1: all kernels); NAN when none ran. */
double cb_report_avg_busbw(const cb_report *r, int kernel /* -1 = all */);

/* The kernel whose mean the first "# Avg bus bandwidth" line gives (and
 * nccl-tests' JSON "average_bus_bandwidth", and NCCL_TESTS_MIN_BW's gate):
 * the line keeps nccl-tests' meaning (NCCL's average over the run) for
 * scripts that read it, so it is NCCL's (kernel id 0) when NCCL ran, else
 * the first kernel of the table that ran (the only one, when one ran); -1
 * when none ran. */
int cb_report_headline_kernel(const cb_report *r);
/* Ranks of every group: the devices the report lists. */
int cb_report_all_ranks(const cb_report *r);
/* That kernel's mean busbw; NAN when it measured nothing (or none ran). */
double cb_report_headline_busbw(const cb_report *r);
/* The peer mapping our kernels used: the one CB_PEER_MAPPING named, or
 * what auto resolved to; CB_PEER_AUTO when auto was not resolved (no kernel
 * of ours mapped peer memory). */
cb_peer_mapping cb_report_peer_mapping(const cb_report *r);

/* Text sink, in nccl-tests' layout column for column. */
void cb_text_header(FILE *out, const cb_report *r);
void cb_text_kernel_header(FILE *out, const cb_report *r, int kernel);
void cb_text_row(FILE *out, const cb_report *r, const cb_row *row);
/* Before a row: "#   resources: ..." (kernel_resources.h), what its call
 * holds of the GPU (world rank 0's), when it differs from what the
 * kernel's rows showed last: shown (len bytes) holds that text, "" before a
 * kernel's first row, and is updated; a second line for the in-place call
 * where it differs from the out-of-place one. */
void cb_text_resources(FILE *out, const cb_row *row, char *shown, size_t len);
/* After a row, with --overlap: "#   beside gemm: ...", each placement's
 * time with the load and the load's rate alone and beside it. */
void cb_text_overlap(FILE *out, const cb_report *r, const cb_row *row);
/* Out of bounds values, Avg bus bandwidth, the kernel summary, the end line. */
void cb_text_footer(FILE *out, const cb_report *r);
void cb_text_stress(FILE *out, const cb_report *r, const cb_stress_result *s);

/* The file sinks (sink.h), report a cb_report: -J's document
 * (report_json.c) and --csv's rows (report_csv.c). */
extern const cb_json_sink cb_report_json;
extern const cb_csv_sink cb_report_csv;
/* nccl-tests' -J keys, written into the object j has open (report_json_nccl_tests.c). */
void cb_json_nccl_tests_keys(cb_json *j, const cb_report *r);

#ifdef __cplusplus
}
#endif

#endif
