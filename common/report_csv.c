/* The CSV sink: one row per measurement, RFC 4180 quoting. */
#include <math.h>
#include <string.h>

#include "report.h"

const char cb_csv_header[] =
    "collective,kernel,kernel_name,type,redop,root,size,count,placement,mode,time_us,algbw,"
    "busbw,wrong,skipped,iter_samples,iter_min_us,iter_p50_us,iter_p99_us,iter_max_us,"
    "iter_cv_pct";

/* A field quoted only when it holds a comma, quote or newline. */
static void csv_string(FILE *out, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

/* A number and its comma; empty when not finite, as JSON writes null. */
static void csv_number(FILE *out, double v) {
  if (isfinite(v)) fprintf(out, "%.10g", v);
  fputc(',', out);
}

static void csv_measure(FILE *out, const cb_report *r, const cb_row *row, int p) {
  const cb_kernel *k = &r->coll->kernels[row->kernel];
  const cb_measure *m = &row->m[p];
  fprintf(out, "%s,%d,", r->coll->shape->name, k->id);
  csv_string(out, k->name);
  fprintf(out, ",%s,%s,%d,%zu,%zu,%s,%s,", cb_dtype_name(row->dtype),
          cb_shape_op_name(r->coll->shape, row->op), row->root, row->bytes, row->count,
          p ? "in-place" : "out-of-place", r->opts.graph_launches ? "graph" : "stream");
  if (!m->ran) {
    fputs(",,,,", out);
    csv_string(out, m->skip);
    fputs(",,,,,,\n", out);
    return;
  }
  csv_number(out, m->time_us);
  csv_number(out, m->algbw);
  csv_number(out, m->busbw);
  if (m->wrong >= 0) fprintf(out, "%lld", m->wrong);
  fputs(",,", out);
  if (m->has_stats) {
    fprintf(out, "%d,", m->stats.samples);
    csv_number(out, m->stats.min_us);
    csv_number(out, m->stats.p50_us);
    csv_number(out, m->stats.p99_us);
    csv_number(out, m->stats.max_us);
    if (isfinite(m->stats.cv_pct)) fprintf(out, "%.10g", m->stats.cv_pct);
  } else {
    fputs(",,,,,", out);
  }
  fputc('\n', out);
}

int cb_csv_write(FILE *out, const cb_report *r) {
  fprintf(out, "%s\n", cb_csv_header);
  for (size_t i = 0; i < r->nrows; i++)
    for (int p = 0; p < 2; p++) csv_measure(out, r, &r->rows[i], p);
  return ferror(out) ? -1 : 0;
}
