/* copy_perf's report: the struct its runner fills, and the totals and names
 * its sinks share (the text table, copy_report_text.c; OSU's layout,
 * report_osu.c; JSON, copy_report_json.c; CSV, copy_report_csv.c). */
#define _GNU_SOURCE /* strdup */
#include "copy_report.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

void cb_copy_report_init(cb_copy_report *r, const cb_copy_program *prog) {
  memset(r, 0, sizeof *r);
  r->prog = prog;
  r->kernel_skips = calloc((size_t)prog->nkernels, sizeof *r->kernel_skips);
  r->kd_skips = calloc((size_t)prog->nkernels * CB_NUM_DIRS, sizeof *r->kd_skips);
  if (!r->kernel_skips || !r->kd_skips) cb_fatal("out of host memory");
}

void cb_copy_report_free(cb_copy_report *r) {
  if (r->prog) {
    for (int k = 0; k < r->prog->nkernels; k++) {
      if (r->kernel_skips) free(r->kernel_skips[k]);
      for (int d = 0; d < CB_NUM_DIRS; d++)
        if (r->kd_skips) free(r->kd_skips[k * CB_NUM_DIRS + d]);
    }
  }
  for (int d = 0; d < CB_NUM_DIRS; d++) free(r->dir_notes[d]);
  free(r->kernel_skips);
  free(r->kd_skips);
  free(r->rows);
  free(r->devices);
  memset(r, 0, sizeof *r);
}

cb_copy_row *cb_copy_report_add(cb_copy_report *r, const cb_copy_row *row) {
  r->rows = cb_rows_reserve(r->rows, &r->cap, r->nrows, sizeof *r->rows);
  r->rows[r->nrows] = *row;
  return &r->rows[r->nrows++];
}

static char *dup_text(const char *s) {
  char *d = strdup(s);
  if (!d) cb_fatal("out of host memory");
  return d;
}

void cb_copy_report_kd_skip(cb_copy_report *r, int k, cb_copy_dir d, const char *why) {
  char **slot = &r->kd_skips[k * CB_NUM_DIRS + d];
  free(*slot);
  *slot = dup_text(why);
}

const char *cb_copy_report_kd_reason(const cb_copy_report *r, int k, cb_copy_dir d) {
  return r->kd_skips ? r->kd_skips[k * CB_NUM_DIRS + d] : NULL;
}

void cb_copy_report_dir_note(cb_copy_report *r, cb_copy_dir d, const char *why) {
  free(r->dir_notes[d]);
  r->dir_notes[d] = dup_text(why);
}

long long cb_copy_report_wrong(const cb_copy_report *r) {
  long long wrong = 0;
  for (size_t i = 0; i < r->nrows; i++)
    if (!r->rows[i].skip[0] && r->rows[i].wrong > 0) wrong += r->rows[i].wrong;
  return wrong;
}

int cb_copy_report_kernels_measured(const cb_copy_report *r) {
  int n = 0;
  for (int k = 0; k < r->prog->nkernels; k++)
    for (size_t i = 0; i < r->nrows; i++)
      if (r->rows[i].kernel == k && !r->rows[i].skip[0]) {
        n++;
        break;
      }
  return n;
}

const char *cb_copy_host_memory(const cb_copy_options *o) {
  return o->pageable ? "pageable" : "pinned";
}

const char *cb_copy_measure_name(int m) {
  static const char *const names[CB_COPY_NUM_MEASURES] = {"latency", "bandwidth"};
  return names[m];
}

int cb_copy_over_floor(const cb_copy_report *r, const cb_copy_row *row, double *us) {
  if (!r->floor.ran || row->dir == CB_D2D || row->skip[0] || !row->m[CB_COPY_LAT].ran) return 0;
  *us = row->m[CB_COPY_LAT].time_us - r->floor.p50_us;
  return 1;
}
