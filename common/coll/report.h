/* Results of a run, collected into one struct and rendered by three sinks:
 * the nccl-tests text table (report_text.c), JSON (report_json.c) and CSV
 * (report_csv.c). The sinks only read this struct; the runner fills it. */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "collective.h"
#include "device_info.h"
#include "options.h"
#include "rows.h"
#include "text_pieces.h"
#include "stats.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CB_OOP = 0, CB_INP = 1 }; /* index of cb_row.m: out-of-place, in-place */

typedef struct {
  int ran; /* 0: skipped, reason in skip */
  char skip[96];
  double time_us;      /* per iteration, combined across ranks by -a */
  double algbw, busbw; /* GB/s */
  long long wrong;     /* wrong elements summed over ranks; -1 = not checked */
  int has_stats;       /* -I */
  cb_iter_stats stats;
} cb_measure;

typedef struct {
  int kernel; /* index into the collective's kernel table */
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

typedef struct {
  const char *program; /* "all_reduce_perf" */
  const cb_collective *coll;
  cb_options opts;
  int nranks;
  cb_device_info *devices;       /* nranks entries */
  int nccl_header, nccl_library; /* version codes, 0 = none */
  int cuda_runtime, cuda_driver;
  char mpi[128];
  char date[32];          /* ISO 8601, UTC */
  const int *kernels_run; /* per kernel-table index: 1 if it ran */
  char **kernel_skips;    /* per kernel-table index: why a kernel of -k all cannot run, or NULL */
  cb_row *rows;
  size_t nrows, cap;
  cb_stress_result stress[16]; /* --stress results, one per kernel run */
  int nstress;
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

/* Text sink, in nccl-tests' layout column for column. */
void cb_text_header(FILE *out, const cb_report *r);
void cb_text_kernel_header(FILE *out, const cb_report *r, int kernel);
void cb_text_row(FILE *out, const cb_report *r, const cb_row *row);
/* Out of bounds values, Avg bus bandwidth, the kernel summary, the end line. */
void cb_text_footer(FILE *out, const cb_report *r);
void cb_text_stress(FILE *out, const cb_report *r, const cb_stress_result *s);

int cb_json_write(FILE *out, const cb_report *r);
int cb_csv_write(FILE *out, const cb_report *r);
/* The CSV header line, without newline. */
extern const char cb_csv_header[];

#ifdef __cplusplus
}
#endif

#endif
