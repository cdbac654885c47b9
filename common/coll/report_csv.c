/* The CSV sink: one row per measurement, RFC 4180 quoting. */
#include <math.h>

#include "csv_writer.h"
#include "load_report.h"
#include "report.h"

static const char csv_header[] =
    "collective,kernel,kernel_name,type,redop,root,size,count,placement,mode,time_us,algbw,"
    "busbw,wrong,skipped,iter_samples,iter_min_us,iter_p50_us,iter_p99_us,iter_max_us,"
    "iter_cv_pct,timer,local_register,cta_policy," CB_CSV_RESOURCES_HEADER
    "," CB_CSV_OVERLAP_HEADER;

/* The run's timer and kernel 0's -R and -x (cta_policy empty when not given),
 * then what the call held of the GPU and how it fared beside --overlap's
 * load: the last columns of every row. */
static void csv_row_tail(FILE *out, const cb_options *o, const cb_measure *m) {
  fprintf(out, ",%s,%d,", cb_timer_name(o->timer), o->local_register);
  if (o->cta_policy != CB_CTA_POLICY_UNSET) fprintf(out, "%d", o->cta_policy);
  fputc(',', out);
  cb_csv_resources(out, m->ran && m->has_res ? &m->res : NULL);
  cb_csv_overlap(out, o->overlap, &m->overlap, m->ran, m->time_us);
  fputc('\n', out);
}

static void csv_measure(FILE *out, const cb_report *r, const cb_row *row, int p) {
  const cb_kernel *k = r->coll->kernels[row->kernel];
  const cb_measure *m = &row->m[p];
  fprintf(out, "%s,%d,", r->coll->shape->name, k->id);
  cb_csv_string(out, k->name);
  fprintf(out, ",%s,%s,%d,%zu,%zu,%s,%s,", cb_dtype_name(row->dtype),
          cb_shape_op_name(r->coll->shape, row->op), row->root, row->bytes, row->count,
          p ? "in-place" : "out-of-place", r->opts.graph_launches ? "graph" : "stream");
  if (!m->ran) {
    fputs(",,,,", out);
    cb_csv_string(out, m->skip);
    fputs(",,,,,,", out);
    csv_row_tail(out, &r->opts, m);
    return;
  }
  cb_csv_number(out, m->time_us);
  cb_csv_number(out, m->algbw);
  cb_csv_number(out, m->busbw);
  cb_csv_count(out, m->wrong);
  fputc(',', out); /* skipped: empty */
  if (m->has_stats) {
    fprintf(out, "%d,", m->stats.samples);
    cb_csv_number(out, m->stats.min_us);
    cb_csv_number(out, m->stats.p50_us);
    cb_csv_number(out, m->stats.p99_us);
    cb_csv_number(out, m->stats.max_us);
    if (isfinite(m->stats.cv_pct)) fprintf(out, "%.10g", m->stats.cv_pct);
  } else {
    fputs(",,,,,", out);
  }
  csv_row_tail(out, &r->opts, m);
}

static void csv_rows(FILE *out, const void *report) {
  const cb_report *r = report;
  for (size_t i = 0; i < r->nrows; i++)
    for (int p = 0; p < 2; p++) csv_measure(out, r, &r->rows[i], p);
}

const cb_csv_sink cb_report_csv = {csv_header, csv_rows};
