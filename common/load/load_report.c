#include "load_report.h"

#include <math.h>

#include "csv_writer.h"
#include "load_options.h"

static void json_rate(cb_json *j, const char *key, double v) {
  cb_json_key(j, key);
  if (v > 0)
    cb_json_double(j, v);
  else
    cb_json_null(j);
}

void cb_json_overlap(cb_json *j, int kind, const cb_overlap_result *o, double time_alone_us) {
  if (kind == CB_LOAD_NONE) return;
  cb_json_key(j, "overlap");
  cb_json_begin_object(j);
  cb_json_key(j, "load"), cb_json_string(j, cb_load_name(kind));
  if (!o->ran) {
    cb_json_key(j, "skipped"), cb_json_string(j, o->why);
    cb_json_end_object(j);
    return;
  }
  cb_json_key(j, "time_us"), cb_json_double(j, o->time_us);
  json_rate(j, "call_slowdown", cb_overlap_call_slowdown(o, time_alone_us));
  json_rate(j, "load_alone", o->alone);
  json_rate(j, "load_beside", o->beside);
  json_rate(j, "load_slowdown", cb_overlap_load_slowdown(o));
  cb_json_key(j, "load_rate_unit"), cb_json_string(j, cb_load_rate_unit(kind));
  cb_json_key(j, "load_units_inside"), cb_json_int(j, o->units_inside);
  cb_json_key(j, "why");
  if (o->why[0])
    cb_json_string(j, o->why);
  else
    cb_json_null(j);
  cb_json_end_object(j);
}

/* A rate and its comma; empty when not measured. */
static void csv_rate(FILE *out, double v) {
  cb_csv_number(out, v > 0 ? v : NAN);
}

void cb_csv_overlap(FILE *out, int kind, const cb_overlap_result *o, int ran,
                    double time_alone_us) {
  if (kind == CB_LOAD_NONE || !ran) {
    fputs(",,,,,,,", out);
    return;
  }
  cb_csv_string(out, cb_load_name(kind));
  fputc(',', out);
  if (!o->ran) {
    fputs(",,,,,,", out);
    cb_csv_string(out, o->why);
    return;
  }
  cb_csv_number(out, o->time_us);
  csv_rate(out, cb_overlap_call_slowdown(o, time_alone_us));
  csv_rate(out, o->alone);
  csv_rate(out, o->beside);
  csv_rate(out, cb_overlap_load_slowdown(o));
  cb_csv_string(out, cb_load_rate_unit(kind));
  fputc(',', out);
  cb_csv_string(out, o->why);
}

void cb_text_overlap_load(FILE *out, int kind, const cb_overlap_result *v) {
  fprintf(out, ", load %.4g %s alone", v->alone, cb_load_rate_unit(kind));
  if (v->beside > 0)
    fprintf(out, ", %.4g beside x%.2f (%d units inside)", v->beside, cb_overlap_load_slowdown(v),
            v->units_inside);
  else
    fprintf(out, ", beside not measured: %s", v->why);
}

void cb_json_overlap_options(cb_json *j, int kind, uint64_t size) {
  cb_json_key(j, "overlap"), cb_json_string(j, cb_load_name(kind));
  cb_json_key(j, "overlap_size");
  if (kind == CB_LOAD_NONE)
    cb_json_null(j);
  else
    cb_json_int(j, (long long)size);
}

void cb_text_overlap_header(FILE *out, int kind, uint64_t size, const char *beside,
                            const char *rows) {
  if (kind == CB_LOAD_NONE) return;
  char what[160];
  cb_load_describe(kind, size, what, sizeof what);
  fprintf(out, "# Overlap: --overlap %s: %s, on a stream of its own beside %s; under each row %s\n",
          cb_load_name(kind), what, beside, rows);
}
