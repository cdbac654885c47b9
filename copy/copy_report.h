/* copy_perf's results, collected into one struct and rendered by four
 * sinks: collbench's text table (copy_report_text.c), OSU's layout (--osu,
 * report_osu.c), JSON (copy_report_json.c) and CSV (copy_report_csv.c).
 * The sinks only read the struct; the runner fills it. */
#ifndef CB_COPY_REPORT_H
#define CB_COPY_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "copy.h"
#include "copy_floor.h"
#include "device_info.h"
#include "load_window.h"
#include "rows.h"
#include "sink.h"
#include "text_pieces.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CB_COPY_LAT = 0, CB_COPY_BW = 1, CB_COPY_NUM_MEASURES }; /* index of cb_copy_row.m */

typedef struct {
  int ran;
  double time_us; /* latency: median sample; bandwidth: time per copy (window time / copies) */
  double p99_us;  /* latency only */
  double algbw;   /* GB/s: bytes / time_us */
  int copies;     /* copies per timed sample: 1 (latency) or the window */
  int samples;    /* timed iterations */
  int has_stats;  /* latency: per-sample statistics */
  cb_iter_stats stats;
  char protocol[16]; /* the kernel's protocol for these copies, or empty (copy.h: protocol) */
} cb_copy_measure;

typedef struct {
  int kernel; /* index into the program's kernel table */
  cb_copy_dir dir;
  size_t bytes;
  char skip[160]; /* non-empty: this size was skipped, and why */
  cb_copy_measure m[CB_COPY_NUM_MEASURES];
  long long wrong;           /* wrong bytes over every validation round; -1 = not checked */
  cb_overlap_result overlap; /* --overlap: the bandwidth copies beside the load (copy_overlap.h) */
} cb_copy_row;

typedef struct {
  const char *program; /* "copy_perf" */
  const cb_copy_program *prog;
  cb_copy_options opts;
  int nranks;
  cb_device_info *devices; /* nranks entries */
  int cuda_runtime, cuda_driver;
  char mpi[128];
  char date[32];                /* ISO 8601, UTC */
  const int *kernels_run;       /* per kernel: selected, and able to run in this world */
  char **kernel_skips;          /* per kernel: why a kernel of -k all cannot run at all, or NULL */
  char *dir_notes[CB_NUM_DIRS]; /* why a direction did not run, or NULL */
  char **kd_skips;              /* [kernel * CB_NUM_DIRS + dir]: why it skipped that direction */
  cb_copy_floor floor;          /* the flag round trip host paths are measured against */
  cb_copy_row *rows;
  size_t nrows, cap;
} cb_copy_report;

/* Allocates the per-kernel tables for prog; frees everything. */
void cb_copy_report_init(cb_copy_report *r, const cb_copy_program *prog);
void cb_copy_report_free(cb_copy_report *r);
/* Appends a row (copied) and returns the stored copy. */
cb_copy_row *cb_copy_report_add(cb_copy_report *r, const cb_copy_row *row);
/* Records why kernel k skipped direction d (copied). */
void cb_copy_report_kd_skip(cb_copy_report *r, int k, cb_copy_dir d, const char *why);
const char *cb_copy_report_kd_reason(const cb_copy_report *r, int k, cb_copy_dir d);
void cb_copy_report_dir_note(cb_copy_report *r, cb_copy_dir d, const char *why);
/* Wrong bytes over every row that was checked. */
long long cb_copy_report_wrong(const cb_copy_report *r);
/* Kernels that ran at least one size. */
int cb_copy_report_kernels_measured(const cb_copy_report *r);
/* The names the sinks give the host memory ("pinned", "pageable") and a
 * measurement (m: CB_COPY_LAT, CB_COPY_BW). */
const char *cb_copy_host_memory(const cb_copy_options *o);
const char *cb_copy_measure_name(int m);
/* How far row's latency is above the floor (its time less the floor's p50),
 * in microseconds: 1 and *us set where the row is a host path (h2d, d2h)
 * that was measured and the floor ran, else 0. */
int cb_copy_over_floor(const cb_copy_report *r, const cb_copy_row *row, double *us);

/* Text sink: collbench's layout. */
void cb_copy_text_header(FILE *out, const cb_copy_report *r);
/* "# h2d: <what>" heading the direction's kernel blocks. */
void cb_copy_text_dir_header(FILE *out, const cb_copy_report *r, cb_copy_dir d, const char *what);
void cb_copy_text_dir_note(FILE *out, cb_copy_dir d, const char *why);
/* The kernel's heading; protocol (NULL: none) is its describe() line. */
void cb_copy_text_kernel_header(FILE *out, const cb_copy_report *r, int kernel,
                                const char *protocol);
void cb_copy_text_kernel_skip(FILE *out, const cb_copy_report *r, int kernel, cb_copy_dir d,
                              const char *why);
void cb_copy_text_row(FILE *out, const cb_copy_row *row);
/* The fastest-kernel summary (when several kernels ran), the wrong total, the end line. */
void cb_copy_text_footer(FILE *out, const cb_copy_report *r);

/* --osu: osu_bw's then osu_latency's layout, one block per direction and
 * kernel (MB/s with MB = 10^6 bytes, as osu_bw); everything else is a '#'
 * comment, as in OSU's own output. */
void cb_copy_osu_write(FILE *out, const cb_copy_report *r);

/* The file sinks (sink.h), report a cb_copy_report: -J's document
 * (copy_report_json.c) and --csv's rows (copy_report_csv.c). */
extern const cb_json_sink cb_copy_report_json;
extern const cb_csv_sink cb_copy_report_csv;

#ifdef __cplusplus
}
#endif

#endif
