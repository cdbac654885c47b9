/* copy_perf's CSV file (--csv): one row per measurement, RFC 4180 quoting;
 * the kernel's protocol at that size and, for a latency of a host path,
 * how far it is above the floor (copy_floor.h). */
#include "copy_report.h"
#include "copy_report_overlap.h"
#include "csv_writer.h"

static const char csv_header[] =
    "program,kernel,kernel_name,direction,measurement,host_memory,size,copies,iterations,time_us,"
    "p50_us,p99_us,algbw,wrong,skipped,protocol,over_floor_us" CB_COPY_CSV_OVERLAP_HEADER;

static void csv_measure(FILE *out, const cb_copy_report *r, const cb_copy_row *row, int m) {
  const cb_copy_kernel *k = &r->prog->kernels[row->kernel];
  const cb_copy_measure *x = &row->m[m];
  fprintf(out, "%s,%d,", r->program, k->id);
  cb_csv_string(out, k->name);
  fprintf(out, ",%s,%s,%s,%zu,", cb_copy_dir_name(row->dir), cb_copy_measure_name(m),
          cb_copy_host_memory(&r->opts), row->bytes);
  if (row->skip[0]) {
    fputs(",,,,,,,", out);
    cb_csv_string(out, row->skip);
    fputc(',', out);
    cb_csv_string(out, x->protocol);
    fputc(',', out); /* no over_floor_us */
    cb_copy_csv_row_end(out, r, row, m);
    return;
  }
  fprintf(out, "%d,%d,", x->copies, x->samples);
  cb_csv_number(out, x->time_us);
  if (m == CB_COPY_LAT) {
    cb_csv_number(out, x->time_us);
    cb_csv_number(out, x->p99_us);
  } else {
    fputs(",,", out);
  }
  cb_csv_number(out, x->algbw);
  cb_csv_count(out, row->wrong);
  fputc(',', out); /* after the empty skipped */
  cb_csv_string(out, x->protocol);
  fputc(',', out);
  double over;
  if (m == CB_COPY_LAT && cb_copy_over_floor(r, row, &over)) fprintf(out, "%.10g", over);
  cb_copy_csv_row_end(out, r, row, m);
}

static void csv_rows(FILE *out, const void *report) {
  const cb_copy_report *r = report;
  for (size_t i = 0; i < r->nrows; i++)
    for (int m = 0; m < CB_COPY_NUM_MEASURES; m++) csv_measure(out, r, &r->rows[i], m);
}

const cb_csv_sink cb_copy_report_csv = {csv_header, csv_rows};
