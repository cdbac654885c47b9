#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

cb_row *cb_report_add(cb_report *r, const cb_row *row) {
  r->rows = cb_rows_reserve(r->rows, &r->cap, r->nrows, sizeof *r->rows);
  r->rows[r->nrows] = *row;
  return &r->rows[r->nrows++];
}

void cb_measure_free(cb_measure *m) {
  free(m->iter.times);
  free(m->iter.proc_times);
  m->iter.times = m->iter.proc_times = NULL;
}

void cb_report_free(cb_report *r) {
  for (size_t i = 0; i < r->nrows; i++)
    for (int p = 0; p < 2; p++) cb_measure_free(&r->rows[i].m[p]);
  free(r->rows);
  free(r->devices);
  r->rows = NULL;
  r->devices = NULL;
  r->nrows = r->cap = 0;
}

void cb_report_add_stress(cb_report *r, const cb_stress_result *s) {
  if (r->nstress == (int)(sizeof r->stress / sizeof r->stress[0]))
    cb_fatal("more than %d stress results", r->nstress);
  r->stress[r->nstress++] = *s;
}

long long cb_report_wrong(const cb_report *r) {
  long long wrong = 0;
  for (int i = 0; i < r->nstress; i++) wrong += r->stress[i].wrong;
  for (size_t i = 0; i < r->nrows; i++)
    for (int p = 0; p < 2; p++)
      if (r->rows[i].m[p].ran && r->rows[i].m[p].wrong > 0) wrong += r->rows[i].m[p].wrong;
  return wrong;
}

/* As nccl-tests: the plain mean of busbw over every measurement; NAN when
 * nothing was measured (every size skipped), which the sinks print as n/a. */
double cb_report_avg_busbw(const cb_report *r, int kernel) {
  double sum = 0;
  int n = 0;
  for (size_t i = 0; i < r->nrows; i++) {
    if (kernel >= 0 && r->rows[i].kernel != kernel) continue;
    for (int p = 0; p < 2; p++)
      if (r->rows[i].m[p].ran) {
        sum += r->rows[i].m[p].busbw;
        n++;
      }
  }
  return n ? sum / n : NAN;
}

int cb_report_headline_kernel(const cb_report *r) {
  int first = -1;
  for (int k = 0; k < r->coll->nkernels; k++) {
    if (!r->kernels_run[k]) continue;
    if (r->coll->kernels[k]->id == CB_KID_NCCL) return k;
    if (first < 0) first = k;
  }
  return first;
}

double cb_report_headline_busbw(const cb_report *r) {
  int k = cb_report_headline_kernel(r);
  return k >= 0 ? cb_report_avg_busbw(r, k) : NAN;
}

cb_peer_mapping cb_report_peer_mapping(const cb_report *r) {
  cb_peer_mapping asked = (cb_peer_mapping)r->opts.peer_mapping;
  if (asked != CB_PEER_AUTO) return asked;
  return r->peer_auto.resolved ? r->peer_auto.mapping : CB_PEER_AUTO;
}

int cb_report_all_ranks(const cb_report *r) {
  return r->nranks * (r->ngroups > 1 ? r->ngroups : 1);
}
