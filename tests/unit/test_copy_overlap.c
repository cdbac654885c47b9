/* copy_perf's --overlap without a GPU: its options (the load, its size,
 * what is refused), and its report pieces (copy_report_overlap.h): the
 * header line, the line under a row, the JSON keys and the CSV columns. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "copy_options.h"
#include "copy_report.h"
#include "copy_report_overlap.h"
#include "load_options.h"
#include "opts_check.h"

static char err[512];

static cb_opts_result parse(const char *line, cb_copy_options *o) {
  char *argv[64];
  int argc = opts_argv("copy_perf", line, argv, 64);
  memset(err, 0, sizeof err);
  return cb_copy_options_parse(argc, argv, o, err, sizeof err);
}

static void test_options(void) {
  cb_copy_options o;
  CHECK(parse("", &o) == CB_OPTS_RUN);
  CHECK_EQ_INT(o.overlap, CB_LOAD_NONE);
  CHECK(parse("--overlap mem --overlap_size 2M", &o) == CB_OPTS_RUN);
  CHECK_EQ_INT(o.overlap, CB_LOAD_MEM);
  CHECK_EQ_U64(o.overlap_size, 2u << 20);
  CHECK(parse("--overlap fma", &o) == CB_OPTS_RUN);
  CHECK_EQ_U64(o.overlap_size, 16u << 10);
  cb_opts_result r = parse("--overlap fma --osu", &o);
  check_refused("--overlap fma --osu", r, err, "--overlap cannot be combined with --osu");
  r = parse("--overlap_size 64M", &o);
  check_refused_with("--overlap_size 64M", r, err,
                     "--overlap_size 67108864 sizes a load, and --overlap gives none");
  r = parse("--overlap lots", &o);
  check_refused_with("--overlap lots", r, err,
                     "unknown --overlap 'lots' (it takes gemm, fma, mem or none)");
  r = parse("--overlap mem --overlap_size 1000", &o);
  check_refused("--overlap mem --overlap_size 1000", r, err, "from 1M to 64G");
  r = parse("--overlap fma --overlap_size 0", &o);
  check_refused("--overlap fma --overlap_size 0", r, err, "bad --overlap_size '0'");
  /* Processes started with another load run something else. */
  char a[512], b[512];
  CHECK(parse("", &o) == CB_OPTS_RUN);
  cb_copy_options_canonical(&o, a, sizeof a);
  CHECK(parse("--overlap fma", &o) == CB_OPTS_RUN);
  cb_copy_options_canonical(&o, b, sizeof b);
  CHECK(strcmp(a, b) != 0);
}

/* What fn writes, as a string (caller frees). */
static char *render_row(void (*fn)(FILE *, const cb_copy_report *, const cb_copy_row *),
                        const cb_copy_report *r, const cb_copy_row *row) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  fn(f, r, row);
  fclose(f);
  return buf;
}

static char *render_header(const cb_copy_report *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cb_copy_text_overlap_header(f, r);
  fclose(f);
  return buf;
}

/* The CSV end of a row: a comma, then the overlap columns. */
static void csv_end(FILE *f, const cb_copy_report *r, const cb_copy_row *row) {
  cb_copy_csv_row_end(f, r, row, CB_COPY_BW);
}

static int fields_of(const char *line) {
  int n = 1, quoted = 0;
  for (const char *p = line; *p && *p != '\n'; p++) {
    if (*p == '"') quoted = !quoted;
    if (*p == ',' && !quoted) n++;
  }
  return n;
}

static void test_report(void) {
  cb_copy_report r;
  memset(&r, 0, sizeof r);
  cb_copy_options_defaults(&r.opts);
  cb_copy_row row;
  memset(&row, 0, sizeof row);
  row.bytes = 1 << 20;
  row.m[CB_COPY_BW].ran = 1;
  row.m[CB_COPY_BW].time_us = 40.0;
  /* Without --overlap: no line, empty columns. */
  char *s = render_header(&r);
  CHECK_STR(s, "");
  free(s);
  s = render_row(cb_copy_text_overlap, &r, &row);
  CHECK_STR(s, "");
  free(s);
  s = render_row(csv_end, &r, &row);
  CHECK_STR(s, ",,,,,,,,\n");
  CHECK_EQ_INT(fields_of(s + 1), 8);
  free(s);
  /* With it: the header names the load; the row's line and columns. */
  r.opts.overlap = CB_LOAD_MEM;
  r.opts.overlap_size = 64u << 20;
  s = render_header(&r);
  CHECK_CONTAINS(s, "# Overlap: --overlap mem: copy kernel, 64 MiB copied within the GPU's "
                    "memory a unit, on a stream of its own beside the bandwidth copies");
  free(s);
  row.overlap = (cb_overlap_result){
      .ran = 1, .time_us = 50.0, .alone = 3000.0, .beside = 2000.0, .units_inside = 6};
  s = render_row(cb_copy_text_overlap, &r, &row);
  CHECK_STR(s, "#   beside mem: bandwidth 50.00 us a copy (20.97 GB/s) x1.25, load 3000 GB/s "
               "alone, 2000 beside x1.50 (6 units inside)\n");
  free(s);
  s = render_row(csv_end, &r, &row);
  CHECK_STR(s, ",mem,50,1.25,3000,2000,1.5,GB/s,\n");
  free(s);
  /* Not measured: why, in the line and the last column. */
  row.overlap = (cb_overlap_result){.ran = 0};
  snprintf(row.overlap.why, sizeof row.overlap.why, "the load did not run, \"so\"");
  s = render_row(cb_copy_text_overlap, &r, &row);
  CHECK_STR(s, "#   beside mem: not measured: the load did not run, \"so\"\n");
  free(s);
  s = render_row(csv_end, &r, &row);
  CHECK_STR(s, ",mem,,,,,,,\"the load did not run, \"\"so\"\"\"\n");
  CHECK_EQ_INT(fields_of(s + 1), 8);
  free(s);
  /* The latency measurement and a skipped row carry none. */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cb_copy_csv_row_end(f, &r, &row, CB_COPY_LAT);
  fclose(f);
  CHECK_STR(buf, ",,,,,,,,\n");
  free(buf);
  snprintf(row.skip, sizeof row.skip, "too big");
  s = render_row(cb_copy_text_overlap, &r, &row);
  CHECK_STR(s, "");
  free(s);
}

int main(void) {
  test_options();
  test_report();
  return check_summary();
}
