#include "copy_report_overlap.h"

#include "load_options.h"

void cb_copy_text_overlap_header(FILE *out, const cb_copy_report *r) {
  cb_text_overlap_header(out, r->opts.overlap, r->opts.overlap_size,
                         "the bandwidth copies of every row, on the copying rank's GPU",
                         "the copies' time with it (x: over their time alone) and the load's "
                         "rate alone and beside them (x: alone over beside)");
}

void cb_copy_text_overlap(FILE *out, const cb_copy_report *r, const cb_copy_row *row) {
  const cb_copy_options *o = &r->opts;
  const cb_overlap_result *v = &row->overlap;
  if (o->overlap == CB_LOAD_NONE || row->skip[0]) return;
  fprintf(out, "#   beside %s: ", cb_load_name(o->overlap));
  if (!v->ran) {
    fprintf(out, "not measured: %s\n", v->why);
    return;
  }
  const double slower = cb_overlap_call_slowdown(v, row->m[CB_COPY_BW].time_us);
  fprintf(out, "bandwidth %.2f us a copy (%.2f GB/s)", v->time_us,
          cb_copy_gbps(row->bytes, v->time_us));
  if (slower > 0) fprintf(out, " x%.2f", slower);
  cb_text_overlap_load(out, o->overlap, v);
  fputc('\n', out);
}

void cb_copy_json_overlap(cb_json *j, const cb_copy_report *r, const cb_copy_row *row, int m) {
  if (m != CB_COPY_BW || row->skip[0]) return;
  cb_json_overlap(j, r->opts.overlap, &row->overlap, row->m[CB_COPY_BW].time_us);
}

void cb_copy_csv_row_end(FILE *out, const cb_copy_report *r, const cb_copy_row *row, int m) {
  fputc(',', out);
  const int ran = m == CB_COPY_BW && !row->skip[0];
  cb_csv_overlap(out, r->opts.overlap, &row->overlap, ran, row->m[CB_COPY_BW].time_us);
  fputc('\n', out);
}
