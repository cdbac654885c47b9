/* The text sink against nccl-tests' own output.
 *
 *   test_report_text             layout checks that need no reference file
 *   test_report_text FIXTURE     every line of a real nccl-tests output that
 *                                collbench prints the same way, byte for byte */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "collectives.h"
#include "fixture.h"
#include "load_options.h"
#include "options.h"
#include "opts_check.h"
#include "report.h"

/* ---- helpers ----------------------------------------------------------- */

#define MAX_OUT_LINES 256

/* Splits text into lines (in place); returns the count. */
static int split_lines(char *text, char **lines, int max) {
  int n = 0;
  char *p = text;
  while (*p && n < max) {
    lines[n++] = p;
    char *nl = strchr(p, '\n');
    if (!nl) break;
    *nl = '\0';
    p = nl + 1;
  }
  return n;
}

static int count_of(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static char *row_text(const cb_report *r, const cb_row *row) {
  FILE *f = check_tmpfile();
  cb_text_row(f, r, row);
  char *s = check_slurp(f);
  fclose(f);
  return s;
}

static cb_kernel fixture_kernels[] = {
    {.id = 0,
     .name = "nccl",
     .summary = "NCCL (reference)",
     .limits = {.placements = CB_OUT_OF_PLACE | CB_IN_PLACE,
                .dtypes = CB_ALL_DTYPES,
                .ops = CB_ALL_OPS}},
    {.id = 1,
     .name = "ring",
     .summary = "a second kernel",
     .limits = {.placements = CB_OUT_OF_PLACE | CB_IN_PLACE,
                .dtypes = CB_ALL_DTYPES,
                .ops = CB_ALL_OPS}},
    {.id = 2,
     .name = "ll",
     .summary = "a third kernel",
     .limits = {.placements = CB_OUT_OF_PLACE | CB_IN_PLACE,
                .dtypes = CB_ALL_DTYPES,
                .ops = CB_ALL_OPS}},
};
static const cb_kernel *const fixture_rows[] = {&fixture_kernels[0], &fixture_kernels[1],
                                                &fixture_kernels[2]};

/* ---- layout checks without a reference file --------------------------- */

static void check_fixed(double v, int width, const char *want) {
  char buf[64];
  memset(buf, 'x', sizeof buf);
  cb_format_fixed(v, width, buf);
  CHECKF(strcmp(buf, want) == 0, "cb_format_fixed(%.9g, %d) = \"%s\", expected \"%s\"", v, width,
         buf, want);
  CHECKF(strlen(buf) == (size_t)width, "cb_format_fixed(%.9g, %d) = \"%s\" is not %d wide", v,
         width, buf, width);
}

static void test_format_fixed(void) {
  check_fixed(0.0, 6, "  0.00");
  check_fixed(0.004, 6, "  0.00");
  check_fixed(0.006, 6, "  0.01");
  check_fixed(14.97, 7, "  14.97");
  check_fixed(1046.77, 7, "1046.77");
  check_fixed(316.46, 6, "316.46");
  check_fixed(1234.5, 6, "1234.5"); /* one decimal to fit */
  check_fixed(12345.67, 7, "12345.7");
  check_fixed(99999.4, 6, " 99999"); /* no decimals */
  check_fixed(123456.7, 7, " 123457");
  check_fixed(1234567.0, 6, " 1e+06"); /* exponent when nothing else fits */
  check_fixed(12345678.9, 7, "1.2e+07");
  check_fixed(999.999, 6, "1000.0");
  check_fixed(5.0, 8, "    5.00");
}

static cb_report basic_report(const cb_collective *coll, const int *run) {
  cb_report r;
  memset(&r, 0, sizeof r);
  r.program = "all_reduce_perf";
  r.coll = coll;
  cb_options_defaults(&r.opts);
  r.nranks = 2;
  r.kernels_run = run;
  return r;
}

static cb_row ran_row(int kernel, size_t bytes, double t, double bw) {
  cb_row row;
  memset(&row, 0, sizeof row);
  row.kernel = kernel;
  row.dtype = CB_FLOAT;
  row.op = CB_SUM;
  row.root = -1;
  row.bytes = bytes;
  row.count = bytes / 4;
  for (int p = 0; p < 2; p++) {
    row.m[p].ran = 1;
    row.m[p].time_us = t;
    row.m[p].algbw = bw;
    row.m[p].busbw = bw;
    row.m[p].wrong = 0;
  }
  return row;
}

static void test_skipped_rows(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  cb_row full = ran_row(0, 2097152, 20.5, 102.3);
  char *full_line = row_text(&r, &full);
  CHECK(full_line[0] != '#');
  CHECK_EQ_INT(count_of(full_line, "\n"), 1);
  size_t width = strcspn(full_line, "\n");
  CHECK_EQ_INT(width, 118);

  /* Both placements skipped for one reason: a note, not a row. */
  cb_row both = full;
  for (int p = 0; p < 2; p++) {
    both.m[p].ran = 0;
    snprintf(both.m[p].skip, sizeof both.m[p].skip, "above the kernel's 1 MiB limit");
  }
  char *s = row_text(&r, &both);
  CHECKF(s[0] == '#', "a skipped size should print a comment line: [%s]", s);
  CHECK_CONTAINS(s, "skipped");
  CHECK_CONTAINS(s, "above the kernel's 1 MiB limit");
  CHECK_CONTAINS(s, "2097152");
  CHECK_CONTAINS(s, "float");
  CHECK_CONTAINS(s, "sum");
  CHECK_EQ_INT(count_of(s, "\n"), 1);
  CHECK(strstr(s, "N/A") == NULL);
  free(s);

  /* One placement skipped: N/A in its four columns, the reason at the end. */
  cb_row half = full;
  half.m[CB_INP].ran = 0;
  snprintf(half.m[CB_INP].skip, sizeof half.m[CB_INP].skip, "in-place not supported");
  s = row_text(&r, &half);
  CHECK(s[0] != '#');
  CHECK_EQ_INT(count_of(s, "N/A"), 4);
  CHECK_CONTAINS(s, "# in-place: in-place not supported");
  CHECK_EQ_INT(count_of(s, "\n"), 1);
  /* The columns stay where a full row has them. */
  const char *comment = strstr(s, "  # in-place");
  CHECK(comment && (size_t)(comment - s) == width);
  /* The out-of-place half is the full row's. */
  CHECK(strncmp(s, full_line, 12 + 2 + 12 + 2 + 8 + 2 + 6 + 2 + 6 + 33) == 0);
  free(s);

  cb_row half2 = full;
  half2.m[CB_OOP].ran = 0;
  snprintf(half2.m[CB_OOP].skip, sizeof half2.m[CB_OOP].skip, "out-of-place not supported");
  s = row_text(&r, &half2);
  CHECK_EQ_INT(count_of(s, "N/A"), 4);
  CHECK_CONTAINS(s, "# out-of-place: out-of-place not supported");
  CHECK(strstr(s, "# in-place") == NULL);
  comment = strstr(s, "  # out-of-place");
  CHECK(comment && (size_t)(comment - s) == width);
  free(s);

  /* Both skipped for different reasons: a row of N/A with both reasons. */
  cb_row diff = both;
  snprintf(diff.m[CB_INP].skip, sizeof diff.m[CB_INP].skip, "in-place not supported");
  s = row_text(&r, &diff);
  CHECK(s[0] != '#');
  CHECK_EQ_INT(count_of(s, "N/A"), 8);
  CHECK_CONTAINS(s, "# out-of-place: above the kernel's 1 MiB limit");
  CHECK_CONTAINS(s, "# in-place: in-place not supported");
  free(s);

  /* Not validated (-c 0): #wrong is N/A, the rest is printed. */
  cb_row nocheck = full;
  nocheck.m[CB_OOP].wrong = nocheck.m[CB_INP].wrong = -1;
  s = row_text(&r, &nocheck);
  CHECK_EQ_INT(count_of(s, "N/A"), 2);
  CHECK(strncmp(s, full_line, 12 + 2 + 12 + 2 + 8 + 2 + 6 + 2 + 6 + 2 + 7 + 2 + 6 + 2 + 6) == 0);
  free(s);

  /* Wrong values are counted in the #wrong column. */
  cb_row bad = full;
  bad.m[CB_OOP].wrong = 12345;
  s = row_text(&r, &bad);
  CHECK_CONTAINS(s, " 12345  ");
  free(s);
  free(full_line);
}

static char *footer_text(const cb_report *r) {
  FILE *f = check_tmpfile();
  cb_text_footer(f, r);
  char *s = check_slurp(f);
  fclose(f);
  return s;
}

static void test_footer(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 2};
  static const int one[] = {1, 0}, both[] = {1, 1};
  cb_report r = basic_report(&coll, one);
  cb_row a = ran_row(0, 1024, 10.0, 2.0);
  a.m[CB_INP].busbw = 4.0;
  cb_report_add(&r, &a);
  char *s = footer_text(&r);
  char *lines[16];
  int n = split_lines(s, lines, 16);
  CHECK_EQ_INT(n, 5);
  if (n == 5) {
    CHECK_STR(lines[0], "# Out of bounds values : 0 OK");
    CHECK_STR(lines[1], "# Avg bus bandwidth    : 3 ");
    CHECK_STR(lines[2], "#");
    CHECK_STR(lines[3], "# Collective test concluded: all_reduce_perf");
    CHECK_STR(lines[4], "#");
  }
  free(s);

  /* Wrong values: FAILED, and only measurements that ran count. */
  cb_row w = ran_row(0, 2048, 10.0, 2.0);
  w.m[CB_OOP].wrong = 3;
  w.m[CB_INP].wrong = -1;
  cb_report_add(&r, &w);
  cb_row sk = ran_row(0, 4096, 10.0, 100.0);
  sk.m[CB_OOP].ran = sk.m[CB_INP].ran = 0;
  sk.m[CB_OOP].wrong = sk.m[CB_INP].wrong = 99;
  cb_report_add(&r, &sk);
  CHECK_EQ_INT(cb_report_wrong(&r), 3);
  CHECK_NEAR(cb_report_avg_busbw(&r, -1), (2.0 + 4.0 + 2.0 + 2.0) / 4, 1e-12);
  s = footer_text(&r);
  CHECK_CONTAINS(s, "# Out of bounds values : 3 FAILED\n");
  CHECK_CONTAINS(s, "# Avg bus bandwidth    : 2.5 \n");
  free(s);
  cb_report_free(&r);

  /* Two kernels: one average each, and the fastest kernel per size. */
  r = basic_report(&coll, both);
  cb_row n1 = ran_row(0, 1024, 10.0, 1.0), r1 = ran_row(1, 1024, 5.0, 3.0);
  cb_row n2 = ran_row(0, 2048, 4.0, 5.0), r2 = ran_row(1, 2048, 8.0, 7.0);
  cb_report_add(&r, &n1);
  cb_report_add(&r, &n2);
  cb_report_add(&r, &r1);
  cb_report_add(&r, &r2);
  CHECK_NEAR(cb_report_avg_busbw(&r, 0), 3.0, 1e-12);
  CHECK_NEAR(cb_report_avg_busbw(&r, 1), 5.0, 1e-12);
  s = footer_text(&r);
  /* The first line is NCCL's average, as nccl-tests' (not the mean over
   * every kernel, 4, which no nccl-tests run would print). */
  CHECK_EQ_INT(count_of(s, "# Avg bus bandwidth    : "), 1);
  CHECK_CONTAINS(s, "# Avg bus bandwidth    : 3 \n");
  CHECK_CONTAINS(s, "# Avg busbw nccl       : 3 \n");
  CHECK_CONTAINS(s, "# Avg busbw ring       : 5 \n");
  /* nccl-tests users grep "Avg bus bandwidth": one line, the first. */
  CHECK_EQ_INT(count_of(s, "Avg bus bandwidth"), 1);
  CHECK_CONTAINS(s, "Fastest kernel per size");
  n = split_lines(s, lines, 16);
  int seen1024 = 0, seen2048 = 0;
  for (int i = 0; i < n; i++) {
    if (strncmp(lines[i], "#       1024", 12) == 0) {
      seen1024++;
      CHECK_EQ_INT(count_of(lines[i], "ring"), 2);
      CHECK_EQ_INT(count_of(lines[i], "2.00x"), 2);
    }
    if (strncmp(lines[i], "#       2048", 12) == 0) {
      seen2048++;
      /* NCCL is the fastest: named as fastest and as the reference, 1.00x. */
      CHECK_EQ_INT(count_of(lines[i], "nccl"), 4);
      CHECK_EQ_INT(count_of(lines[i], "1.00x"), 2);
    }
  }
  CHECK_EQ_INT(seen1024, 1);
  CHECK_EQ_INT(seen2048, 1);
  CHECK_STR(lines[n - 1], "#");
  CHECK_STR(lines[n - 2], "# Collective test concluded: all_reduce_perf");
  free(s);
  r.devices = NULL; /* not malloc'd: cb_report_free would free it */
  cb_report_free(&r);
}

/* The first "# Avg bus bandwidth" line without NCCL, and n/a where a
 * kernel (or the whole run) measured nothing. */
static void test_avg_bus_bandwidth_lines(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 3};
  /* NCCL did not run: the first kernel that ran (ring), then each kernel. */
  static const int ours[] = {0, 1, 1};
  cb_report r = basic_report(&coll, ours);
  cb_row ring = ran_row(1, 1024, 5.0, 6.0), ll = ran_row(2, 1024, 2.0, 8.0);
  cb_report_add(&r, &ring);
  cb_report_add(&r, &ll);
  char *s = footer_text(&r);
  char *lines[32];
  int n = split_lines(s, lines, 32);
  CHECK(n > 4);
  if (n > 4) {
    CHECK_STR(lines[1], "# Avg bus bandwidth    : 6 ");
    CHECK_STR(lines[2], "# Avg busbw ring       : 6 ");
    CHECK_STR(lines[3], "# Avg busbw ll         : 8 ");
  }
  free(s);
  cb_report_free(&r);

  /* NCCL ran but every size was skipped: its lines say n/a, not 0. */
  static const int nccl_and_ll[] = {1, 0, 1};
  r = basic_report(&coll, nccl_and_ll);
  cb_row skipped = ran_row(0, 1024, 10.0, 3.0);
  skipped.m[CB_OOP].ran = skipped.m[CB_INP].ran = 0;
  cb_report_add(&r, &skipped);
  cb_report_add(&r, &ll);
  s = footer_text(&r);
  CHECK_CONTAINS(s, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : n/a \n");
  CHECK_CONTAINS(s, "# Avg busbw nccl       : n/a \n");
  CHECK_CONTAINS(s, "# Avg busbw ll         : 8 \n");
  free(s);
  cb_report_free(&r);

  /* One kernel and nothing measured. */
  static const int only_ring[] = {0, 1, 0};
  r = basic_report(&coll, only_ring);
  s = footer_text(&r);
  CHECK_CONTAINS(s, "# Avg bus bandwidth    : n/a \n");
  CHECK(strstr(s, "Avg busbw ring") == NULL);
  free(s);
  cb_report_free(&r);
}

static void test_header_variants(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  char err[256];
  char *argv[] = {"prog", "-b", "1M", "-e", "4M", "-i", "1M", "-z", "1", "-t", "2", NULL};
  CHECK(cb_options_parse(11, argv, &r.opts, err, sizeof err) == CB_OPTS_RUN);
  cb_device_info dev[2] = {
      {.rank = 0, .pid = 7, .device = 0, .host = "h", .pci = "p", .name = "n"},
      {.rank = 1, .pid = 7, .device = 1, .host = "h", .pci = "p", .name = "n"}};
  r.devices = dev;
  FILE *f = check_tmpfile();
  cb_text_header(f, &r);
  char *s = check_slurp(f);
  fclose(f);
  CHECK_CONTAINS(s, "# nThread 2 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 1048576(bytes) "
                    "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n");
  CHECK_CONTAINS(s, "Blocking");
  CHECK_CONTAINS(s, "# Collective test starting: all_reduce_perf\n");
  CHECK_EQ_INT(count_of(s, "#  Rank"), 2);
  CHECK(strstr(s, "skipped") == NULL);
  free(s);

  /* A kernel of -k all that cannot run here is named in the header, with why. */
  static const cb_collective two = {&cb_shape_all_reduce, fixture_rows, 2};
  static const int run2[] = {1, 0};
  char *skips[] = {NULL, "serves at most 8 ranks, this run has 16"};
  r.coll = &two;
  r.kernels_run = run2;
  r.kernel_skips = skips;
  f = check_tmpfile();
  cb_text_header(f, &r);
  s = check_slurp(f);
  fclose(f);
  CHECK_CONTAINS(s, "\n#\n# kernel 1 (ring) skipped: serves at most 8 ranks, this run has 16\n");
  CHECK_EQ_INT(count_of(s, "skipped"), 1);
  free(s);
}

/* The summary's "vs nccl" is taken against the fastest of NCCL's variants
 * (nccl, nccl-sym, nccl-ce) that ran at that size, in that placement, and
 * names it in its own column. */
static cb_kernel variant_kernels[] = {
    {.id = 0, .name = "nccl", .summary = "NCCL"},
    {.id = 2, .name = "ll", .summary = "ours"},
    {.id = 6, .name = "nccl-sym", .summary = "NCCL, symmetric windows"},
    {.id = 7, .name = "nccl-ce", .summary = "NCCL, copy engines"},
};
static const cb_kernel *const variant_rows[] = {&variant_kernels[0], &variant_kernels[1],
                                                &variant_kernels[2], &variant_kernels[3]};

/* Adds a row of kernel k at size bytes with these out-of-place and in-place
 * times; a time of 0 is a placement the kernel skipped. */
static void add_timed(cb_report *r, int k, size_t bytes, double oop_us, double inp_us) {
  cb_row row = ran_row(k, bytes, 1.0, 1.0);
  const double t[2] = {oop_us, inp_us};
  for (int p = 0; p < 2; p++) {
    row.m[p].time_us = t[p];
    row.m[p].ran = t[p] > 0;
    if (!row.m[p].ran) snprintf(row.m[p].skip, sizeof row.m[p].skip, "not here");
  }
  cb_report_add(r, &row);
}

/* The summary's cells for size: fastest, time, vs nccl, nccl of each placement. */
static int summary_cells(const char *footer, size_t bytes, char cells[8][16]) {
  char prefix[32];
  snprintf(prefix, sizeof prefix, "# %10zu  ", bytes);
  const char *line = strstr(footer, prefix);
  if (!line) return 0;
  char type[16], redop[16];
  return sscanf(line + strlen(prefix), "%15s %15s %15s %15s %15s %15s %15s %15s %15s %15s", type,
                redop, cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6],
                cells[7]) == 10;
}

static void check_cells(const char *footer, size_t bytes, const char *const want[8]) {
  char got[8][16];
  if (!CHECKF(summary_cells(footer, bytes, got), "no summary line for %zu B in:\n%s", bytes,
              footer))
    return;
  for (int i = 0; i < 8; i++)
    CHECKF(strcmp(got[i], want[i]) == 0, "%zu B, summary cell %d: '%s', expected '%s'", bytes, i,
           got[i], want[i]);
}

static void test_summary_reference(void) {
  static const cb_collective coll = {&cb_shape_all_gather, variant_rows, 4};
  static const int run[] = {1, 1, 1, 1};
  cb_report r = basic_report(&coll, run);
  r.program = "all_gather_perf";
  /* 64 B: ours fastest; nccl-sym is NCCL's best (nccl-ce's copy engines are slow there). */
  add_timed(&r, 0, 64, 5.0, 5.0);
  add_timed(&r, 1, 64, 2.0, 2.5);
  add_timed(&r, 2, 64, 3.5, 3.0);
  add_timed(&r, 3, 64, 26.0, 17.0);
  /* 4 KiB: the best NCCL variant differs by placement. */
  add_timed(&r, 0, 4096, 4.0, 10.0);
  add_timed(&r, 1, 4096, 2.0, 2.0);
  add_timed(&r, 3, 4096, 9.0, 3.0);
  /* 1 GiB: our kernel skips the size; NCCL's copy engines win, in place by more. */
  add_timed(&r, 0, 1u << 30, 3000.0, 3000.0);
  add_timed(&r, 1, 1u << 30, 0, 0);
  add_timed(&r, 2, 1u << 30, 3300.0, 3300.0);
  add_timed(&r, 3, 1u << 30, 2800.0, 2000.0);
  /* 128 B: no NCCL variant ran: no ratio, no reference. */
  add_timed(&r, 0, 128, 0, 0);
  add_timed(&r, 1, 128, 2.0, 2.0);
  char *s = footer_text(&r);
  CHECK_CONTAINS(s, "vs nccl = the fastest NCCL variant's time / the fastest time");
  static const char *const at64[8] = {"ll", "2.00", "1.75x", "nccl-sym",
                                      "ll", "2.50", "1.20x", "nccl-sym"};
  static const char *const at4k[8] = {"ll", "2.00", "2.00x", "nccl",
                                      "ll", "2.00", "1.50x", "nccl-ce"};
  static const char *const at1g[8] = {"nccl-ce", "2800.00", "1.00x", "nccl-ce",
                                      "nccl-ce", "2000.00", "1.00x", "nccl-ce"};
  static const char *const at128[8] = {"ll", "2.00", "-", "-", "ll", "2.00", "-", "-"};
  check_cells(s, 64, at64);
  check_cells(s, 4096, at4k);
  check_cells(s, 1u << 30, at1g);
  check_cells(s, 128, at128);
  free(s);
  cb_report_free(&r);
}

/* A kernel whose name takes the longest a name may (CB_KERNEL_NAME_MAX)
 * keeps the summary's columns in line: every line of it as long as its
 * header, the name whole. Shorter names keep the columns 8 wide. */
static void summary_lines_alike(const char *s, size_t *len) {
  const char *head = strstr(s, "#       size");
  *len = 0;
  if (!CHECKF(head != NULL, "no summary header in:\n%s", s)) return;
  *len = strcspn(head, "\n");
  for (const char *line = head; strncmp(line, "# ", 2) == 0; line += strcspn(line, "\n") + 1)
    CHECKF(strcspn(line, "\n") == *len, "a summary line of %zu characters, the header %zu:\n%s",
           strcspn(line, "\n"), *len, s);
}

static void test_summary_long_name(void) {
  static cb_kernel kernels[] = {{.id = 0, .name = "nccl", .summary = "NCCL"},
                                {.id = 12, .name = "oneshot-read-16", .summary = "a plugin's"},
                                {.id = 2, .name = "ll", .summary = "ours"}};
  static const cb_kernel *const rows[] = {&kernels[0], &kernels[1], &kernels[2]};
  static const cb_collective coll = {&cb_shape_all_reduce, rows, 3};
  static const int both[] = {1, 1, 0}, short_names[] = {1, 0, 1};
  cb_report r = basic_report(&coll, both);
  add_timed(&r, 0, 64, 5.0, 5.0);
  add_timed(&r, 1, 64, 2.0, 2.5);
  add_timed(&r, 0, 128, 5.0, 5.0);
  add_timed(&r, 1, 128, 9.0, 9.0);
  char *s = footer_text(&r);
  size_t wide, narrow;
  summary_lines_alike(s, &wide);
  static const char *const at64[8] = {"oneshot-read-16", "2.00", "2.50x", "nccl",
                                      "oneshot-read-16", "2.50", "2.00x", "nccl"};
  check_cells(s, 64, at64);
  free(s);
  cb_report_free(&r);
  r = basic_report(&coll, short_names);
  add_timed(&r, 0, 64, 5.0, 5.0);
  add_timed(&r, 2, 64, 2.0, 2.0);
  s = footer_text(&r);
  summary_lines_alike(s, &narrow);
  CHECK_EQ_INT((int)(wide - narrow), 4 * (15 - 8));
  free(s);
  cb_report_free(&r);
}

/* -r all: a rooted collective's rows of the same size but other roots are
 * other cases; the summary has one line per root, with a root column. */
static void test_summary_per_root(void) {
  static const cb_collective coll = {&cb_shape_reduce, variant_rows, 2};
  static const int run[] = {1, 1};
  cb_report r = basic_report(&coll, run);
  r.program = "reduce_perf";
  for (int root = 0; root < 2; root++) {
    cb_row nccl = ran_row(0, 4096, 4.0 + root, 1.0), ll = ran_row(1, 4096, 2.0, 1.0);
    nccl.root = ll.root = root;
    cb_report_add(&r, &nccl);
    cb_report_add(&r, &ll);
  }
  char *s = footer_text(&r);
  CHECK_CONTAINS(s, "redop    root   fastest");
  CHECK_CONTAINS(s, "#       4096     float     sum       0        ll      2.00    2.00x");
  CHECK_CONTAINS(s, "#       4096     float     sum       1        ll      2.00    2.50x");
  free(s);
  cb_report_free(&r);
  /* Collectives without a root keep nccl-tests-like lines, without the column. */
  static const cb_collective ag = {&cb_shape_all_gather, variant_rows, 2};
  r = basic_report(&ag, run);
  cb_row nccl = ran_row(0, 4096, 4.0, 1.0), ll = ran_row(1, 4096, 2.0, 1.0);
  cb_report_add(&r, &nccl);
  cb_report_add(&r, &ll);
  s = footer_text(&r);
  CHECK(strstr(s, "root") == NULL);
  CHECK_CONTAINS(s, "#       4096     float    none        ll      2.00    2.00x");
  free(s);
  cb_report_free(&r);
}

/* -J's top level is nccl-tests' document: a row's redop and root are the
 * table's columns as printed (hypercube's redop empty, nccl-tests' too; a
 * rooted row's root "%6i"), while collbench's own document beside it keeps
 * "none" for a collective without an op. */
static void test_json_rows_as_printed(void) {
  static const struct {
    const cb_coll_shape *shape;
    int root;
    const char *table, *json, *collbench;
  } cases[] = {
      {&cb_shape_hypercube, -1, "   float              -1", "\"redop\":\"\",\"root\":\"    -1\"",
       "\"redop\":\"none\""},
      {&cb_shape_reduce, 1, "   float     sum       1", "\"redop\":\"sum\",\"root\":\"     1\"",
       "\"redop\":\"sum\""},
      {&cb_shape_all_gather, -1, "   float    none      -1",
       "\"redop\":\"none\",\"root\":\"    -1\"", "\"redop\":\"none\""},
  };
  static const int run[] = {1};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const cb_collective coll = {cases[i].shape, fixture_rows, 1};
    cb_report r = basic_report(&coll, run);
    cb_row row = ran_row(0, 4096, 2.0, 1.0);
    row.root = cases[i].root;
    cb_report_add(&r, &row);
    char *text = row_text(&r, &r.rows[0]);
    CHECKF(strstr(text, cases[i].table) != NULL, "%s: no '%s' in the row '%s'",
           cases[i].shape->name, cases[i].table, text);
    FILE *f = check_tmpfile();
    CHECK_EQ_INT(cb_json_sink_write(f, &cb_report_json, &r), 0);
    char *json = check_slurp(f);
    fclose(f);
    const char *ours = strstr(json, "\"collbench\":");
    CHECKF(ours != NULL, "%s: no collbench document", cases[i].shape->name);
    const char *nt = strstr(json, cases[i].json);
    CHECKF(nt != NULL && (!ours || nt < ours), "%s: nccl-tests' row lacks '%s' in:\n%s",
           cases[i].shape->name, cases[i].json, json);
    if (ours)
      CHECKF(strstr(ours, cases[i].collbench) != NULL, "%s: collbench's rows lack '%s'",
             cases[i].shape->name, cases[i].collbench);
    free(json);
    free(text);
    cb_report_free(&r);
  }
}

/* What one part of the text sink (cb_text_header, or the kernel header of
 * kernel 0) prints for a one-rank report of shape's program run with the
 * options of line. */
static char *text_of(const cb_coll_shape *shape, const char *line, int kernel_header) {
  const cb_collective coll = {shape, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  char program[64];
  snprintf(program, sizeof program, "%s_perf", shape->name);
  r.program = program;
  char *argv[24], err[256];
  int argc = opts_argv("prog", line, argv, 24);
  CHECKF(cb_options_parse(argc, argv, &r.opts, err, sizeof err) == CB_OPTS_RUN, "'%s': %s", line,
         err);
  cb_device_info dev = {.rank = 0, .pid = 7, .device = 0, .host = "h", .pci = "p", .name = "n"};
  r.devices = &dev;
  r.nranks = 1;
  FILE *f = check_tmpfile();
  if (kernel_header)
    cb_text_kernel_header(f, &r, 0);
  else
    cb_text_header(f, &r);
  char *s = check_slurp(f);
  fclose(f);
  return s;
}

/* The same of all_reduce_perf. */
static char *text_for(const char *line, int kernel_header) {
  return text_of(&cb_shape_all_reduce, line, kernel_header);
}

/* -o in a program that does not reduce: one line says its calls take no op. */
static void test_header_op_ignored(void) {
  for (int c = 0; c < 2; c++)
    for (int given = 0; given < 2; given++) {
      const cb_coll_shape *shape = c ? &cb_shape_all_reduce : &cb_shape_sendrecv;
      char *s = text_of(shape, given ? "-o mulsum" : "", 0);
      const int noted = strstr(s, "# -o: ") != NULL; /* any program's note */
      CHECKF(noted == (!c && given), "%s_perf, -o %s: note %s", shape->name,
             given ? "mulsum" : "unset", noted ? "printed" : "missing");
      if (!c && given)
        CHECK_CONTAINS(
            s, "# -o: sendrecv_perf does not reduce: each op of -o names rows of the same copy, "
               "as in nccl-tests\n");
      free(s);
    }
}

/* The timer and kernel 0's -R/-x are named in the header only where the run
 * is not what nccl-tests does by default. */
static char *header_for(const char *line) {
  return text_for(line, 0);
}

static void test_header_timer_and_flags(void) {
  static const struct {
    const char *line;
    int timer_line;
    const char *flags; /* the kernel-0 line, or NULL for none */
  } cases[] = {
      {"", 0, NULL},
      {"--timer events", 1, NULL},
      {"-G 5", 1, NULL},
      {"-G 5 --timer host", 0, NULL},
      {"-z 1", 1, NULL},
      {"-R 2", 0, "# Kernel 0 (nccl) as nccl-tests -R 2: symmetric windows\n"},
      {"-R 1 -x 1", 0,
       "# Kernel 0 (nccl) as nccl-tests -R 1 -x 1: ncclCommRegister, CTA policy "
       "efficiency\n"},
      {"-R 2 -x 2 -G 3", 1,
       "# Kernel 0 (nccl) as nccl-tests -R 2 -x 2: symmetric windows, CTA "
       "policy zero\n"},
      {"-x 0", 0, "# Kernel 0 (nccl) as nccl-tests -R 0 -x 0: plain buffers, CTA policy default\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *s = header_for(cases[i].line);
    CHECKF(count_of(s, "# Timer: CUDA events") == cases[i].timer_line, "'%s': timer line %s",
           cases[i].line, cases[i].timer_line ? "missing" : "unexpected");
    if (cases[i].flags)
      CHECKF(strstr(s, cases[i].flags) != NULL, "'%s': no line '%s' in:\n%s", cases[i].line,
             cases[i].flags, s);
    else
      CHECKF(strstr(s, "# Kernel 0") == NULL, "'%s': unexpected kernel-0 line in:\n%s",
             cases[i].line, s);
    free(s);
  }
}

/* --all_sizes_warmup: nothing by default, nccl-tests' own behaviour (its
 * "# nThread" line, which parsers read word for word, stays as it is);
 * a line of ours when it is off. */
static void test_header_all_sizes_warmup(void) {
  static const char want[] = "# Warm-up for all sizes off (--all_sizes_warmup 0): a size is warmed "
                             "up only by its own -w calls, just before it is timed\n";
  char *s = header_for("--all_sizes_warmup 0 -w 3");
  CHECK_EQ_INT(count_of(s, want), 1);
  CHECK_CONTAINS(s, " warmup iters: 3 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n");
  free(s);
  static const char *const on[] = {"", "--all_sizes_warmup 1", "-G 5 -w 0"};
  for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
    s = header_for(on[i]);
    CHECKF(strstr(s, "Warm-up for all sizes") == NULL, "'%s': unexpected warm-up line in:\n%s",
           on[i], s);
    free(s);
  }
}

/* --overlap: one header line naming the load, and one more saying the
 * times mean nothing where ranks share a GPU; nothing without a load. */
static void test_header_overlap(void) {
  char *s = header_for("");
  CHECK(strstr(s, "# Overlap") == NULL);
  free(s);
  s = header_for("--overlap mem --overlap_size 64M");
  CHECK_EQ_INT(count_of(s, "# Overlap: --overlap mem: copy kernel, 64 MiB copied within the "
                           "GPU's memory a unit, on a stream of its own beside every timed call; "),
               1);
  CHECK(strstr(s, "mean nothing") == NULL);
  free(s);
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  char *argv[8], err[256];
  int argc = opts_argv("prog", "--overlap fma", argv, 8);
  CHECK(cb_options_parse(argc, argv, &r.opts, err, sizeof err) == CB_OPTS_RUN);
  snprintf(r.times_void, sizeof r.times_void, "ranks share GPUs (CB_SHARE_GPUS=1)");
  cb_device_info dev = {.rank = 0, .pid = 7, .device = 0, .host = "h", .pci = "p", .name = "n"};
  r.devices = &dev;
  r.nranks = 1;
  FILE *f = check_tmpfile();
  cb_text_header(f, &r);
  s = check_slurp(f);
  fclose(f);
  CHECK_EQ_INT(count_of(s, "# Overlap: these times mean nothing: ranks share GPUs "
                           "(CB_SHARE_GPUS=1)\n"),
               1);
  free(s);
}

/* A row's resources and overlap lines, as cb_text_resources and
 * cb_text_overlap print them around it. */
static char *around_row(const cb_report *r, const cb_row *row, char *shown, size_t len) {
  FILE *f = check_tmpfile();
  cb_text_resources(f, row, shown, len);
  cb_text_row(f, r, row);
  cb_text_overlap(f, r, row);
  char *s = check_slurp(f);
  fclose(f);
  return s;
}

static cb_kernel_resources one_grid(unsigned blocks) {
  cb_kernel_resources res;
  memset(&res, 0, sizeof res);
  res.reported = 1;
  cb_res_grid(&res, "ring", NULL, blocks, 512, 0);
  cb_res_sms_at_once(&res, 132);
  return res;
}

/* Resources: printed above the kernel's first row, again only where they
 * change, with an in-place line where the placements differ; the row
 * itself stays nccl-tests' line. */
static void test_resources_lines(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  char shown[640] = "";
  cb_row row = ran_row(0, 1048576, 20.5, 102.3);
  for (int p = 0; p < 2; p++) {
    row.m[p].has_res = 1;
    row.m[p].res = one_grid(16);
  }
  char *s = around_row(&r, &row, shown, sizeof shown);
  CHECK_EQ_INT(count_of(s, "#   resources: 16 of 132 SMs at once: ring 16x512 (16 SMs)\n"), 1);
  CHECK_EQ_INT(count_of(s, "\n"), 2);
  CHECK(strstr(s, "in place") == NULL);
  free(s);
  /* The same again: the row alone. */
  s = around_row(&r, &row, shown, sizeof shown);
  CHECK_EQ_INT(count_of(s, "\n"), 1);
  CHECK(s[0] != '#');
  free(s);
  /* In place differs: both lines. */
  row.m[CB_INP].res = one_grid(8);
  s = around_row(&r, &row, shown, sizeof shown);
  CHECK_CONTAINS(s, "#   resources: 16 of 132 SMs at once: ring 16x512 (16 SMs)\n#   resources "
                    "in place: 8 of 132 SMs at once: ring 8x512 (8 SMs)\n");
  free(s);
  /* Not reported: the note. */
  shown[0] = '\0';
  for (int p = 0; p < 2; p++) {
    memset(&row.m[p].res, 0, sizeof row.m[p].res);
    cb_res_note(&row.m[p].res, "NCCL does not report the CTAs it launches");
  }
  s = around_row(&r, &row, shown, sizeof shown);
  CHECK_CONTAINS(s, "#   resources: not reported (NCCL does not report the CTAs it launches)\n");
  free(s);
  /* A row skipped whole has no resources line. */
  cb_row skipped = row;
  for (int p = 0; p < 2; p++) {
    skipped.m[p].ran = 0;
    snprintf(skipped.m[p].skip, sizeof skipped.m[p].skip, "too big");
  }
  shown[0] = '\0';
  s = around_row(&r, &skipped, shown, sizeof shown);
  CHECK(strstr(s, "resources") == NULL);
  free(s);
}

/* --overlap: a line under each row with both placements' time beside the
 * load, its slowdown, and the load's rates and slowdown, or why not. */
static void test_overlap_lines(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  char shown[640] = "";
  cb_row row = ran_row(0, 1048576, 20.0, 102.3);
  char *s = around_row(&r, &row, shown, sizeof shown);
  CHECK(strstr(s, "beside") == NULL); /* no --overlap: no line */
  free(s);
  r.opts.overlap = CB_LOAD_GEMM;
  r.opts.overlap_size = 8192;
  cb_overlap_result *o = &row.m[CB_OOP].overlap;
  o->ran = 1;
  o->time_us = 30.0;
  o->alone = 600.0;
  o->beside = 480.0;
  o->units_inside = 7;
  cb_overlap_result *i = &row.m[CB_INP].overlap;
  i->ran = 1;
  i->time_us = 25.0;
  i->alone = 600.0;
  snprintf(i->why, sizeof i->why, "no whole unit fit");
  s = around_row(&r, &row, shown, sizeof shown);
  CHECK_CONTAINS(s, "\n#   beside gemm: out-of-place time 30.00 us x1.50, load 600 TFLOP/s alone, "
                    "480 beside x1.25 (7 units inside); in-place time 25.00 us x1.25, load 600 "
                    "TFLOP/s alone, beside not measured: no whole unit fit\n");
  free(s);
  i->ran = 0;
  snprintf(i->why, sizeof i->why, "the load did not run over the whole timed window");
  row.m[CB_INP].ran = 0;
  snprintf(row.m[CB_INP].skip, sizeof row.m[CB_INP].skip, "in place not supported");
  s = around_row(&r, &row, shown, sizeof shown);
  CHECK_CONTAINS(s, "; in-place skipped\n");
  row.m[CB_INP].ran = 1;
  free(s);
  s = around_row(&r, &row, shown, sizeof shown);
  CHECK_CONTAINS(s, "; in-place not measured: the load did not run over the whole timed window\n");
  free(s);
}

/* The header of a one-rank report whose CB_PEER_MAPPING was asked, and
 * auto (when asked) resolved as pick says. */
static char *peer_header(int asked, const cb_peer_mapping_auto *pick) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  cb_options_defaults(&r.opts);
  r.opts.peer_mapping = asked;
  if (pick) r.peer_auto = *pick;
  cb_device_info dev = {.rank = 0, .pid = 7, .device = 0, .host = "h", .pci = "p", .name = "n"};
  r.devices = &dev;
  r.nranks = 1;
  FILE *f = check_tmpfile();
  cb_text_header(f, &r);
  char *s = check_slurp(f);
  fclose(f);
  return s;
}

/* CB_PEER_MAPPING: a line of ours for the mapping used, except under an
 * explicit ipc (the header as it was before cuMem) and an auto that was
 * not resolved (nothing of ours mapped peer memory). auto's pick is said,
 * with the reason when cumem could not serve. */
static void test_header_peer_mapping(void) {
  static const char *const want[3] = {
      NULL,
      "# Peer memory of our kernels: CB_PEER_MAPPING=cumem (cuMem allocations, POSIX file "
      "descriptors between processes)\n",
      "# Peer memory of our kernels: CB_PEER_MAPPING=fabric (cuMem allocations, fabric handles "
      "between processes)\n"};
  for (int m = 0; m < 3; m++) {
    char *s = peer_header(m, NULL);
    if (want[m])
      CHECKF(s && count_of(s, want[m]) == 1, "mapping %d: no line '%s' in:\n%s", m, want[m], s);
    else
      CHECKF(s && strstr(s, "Peer memory") == NULL, "ipc: unexpected line in:\n%s", s);
    free(s);
  }
  /* auto, the default: nothing until resolved. */
  cb_options o;
  cb_options_defaults(&o);
  CHECK_EQ_INT(o.peer_mapping, CB_PEER_AUTO);
  cb_peer_mapping_auto pick = {0};
  char *s = peer_header(CB_PEER_AUTO, &pick);
  CHECKF(s && strstr(s, "Peer memory") == NULL, "unresolved auto: unexpected line in:\n%s", s);
  free(s);
  pick = (cb_peer_mapping_auto){.resolved = 1, .mapping = CB_PEER_CUMEM};
  s = peer_header(CB_PEER_AUTO, &pick);
  CHECK(s && count_of(s, "# Peer memory of our kernels: CB_PEER_MAPPING=auto: cumem (cuMem "
                         "allocations, POSIX file descriptors between processes)\n") == 1);
  free(s);
  pick.mapping = CB_PEER_IPC;
  snprintf(pick.why, sizeof pick.why,
           "device 1 does not support POSIX file descriptor handles (rank 1)");
  s = peer_header(CB_PEER_AUTO, &pick);
  CHECKF(s &&
             count_of(s, "# Peer memory of our kernels: CB_PEER_MAPPING=auto: ipc (cudaMalloc, "
                         "CUDA IPC handles between processes), since cumem is unavailable: "
                         "device 1 does not support POSIX file descriptor handles (rank 1)\n") == 1,
         "auto to ipc: no line in:\n%s", s);
  /* Not what tests/gpu/check.sh takes for kernels skipped for want of a mapping. */
  CHECK(strstr(s, "CB_PEER_MAPPING=auto is unavailable") == NULL);
  free(s);
  /* A pick under a mapping that was named is not the run's: ignored. */
  s = peer_header(CB_PEER_IPC, &pick);
  CHECK(s && strstr(s, "Peer memory") == NULL);
  free(s);
}

/* -J's options: peer_mapping the mapping used (null: auto not resolved),
 * peer_mapping_requested CB_PEER_MAPPING's value, peer_mapping_why why auto
 * did not take cumem. */
static void test_json_peer_mapping(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  static const struct {
    int asked, resolved, used;
    const char *why, *json;
  } cases[] = {
      {CB_PEER_IPC, 0, 0, "",
       "\"peer_mapping\":\"ipc\",\"peer_mapping_requested\":\"ipc\",\"peer_mapping_why\":null"},
      {CB_PEER_CUMEM, 0, 0, "",
       "\"peer_mapping\":\"cumem\",\"peer_mapping_requested\":\"cumem\",\"peer_mapping_why\":"
       "null"},
      {CB_PEER_AUTO, 0, 0, "",
       "\"peer_mapping\":null,\"peer_mapping_requested\":\"auto\",\"peer_mapping_why\":null"},
      {CB_PEER_AUTO, 1, CB_PEER_CUMEM, "",
       "\"peer_mapping\":\"cumem\",\"peer_mapping_requested\":\"auto\",\"peer_mapping_why\":"
       "null"},
      {CB_PEER_AUTO, 1, CB_PEER_IPC, "no cuMem (rank 3)",
       "\"peer_mapping\":\"ipc\",\"peer_mapping_requested\":\"auto\",\"peer_mapping_why\":"
       "\"no cuMem (rank 3)\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cb_report r = basic_report(&coll, run);
    r.opts.peer_mapping = cases[i].asked;
    r.peer_auto.resolved = cases[i].resolved;
    r.peer_auto.mapping = (cb_peer_mapping)cases[i].used;
    snprintf(r.peer_auto.why, sizeof r.peer_auto.why, "%s", cases[i].why);
    FILE *f = check_tmpfile();
    CHECK_EQ_INT(cb_json_sink_write(f, &cb_report_json, &r), 0);
    char *json = check_slurp(f);
    fclose(f);
    CHECKF(json && strstr(json, cases[i].json) != NULL, "case %zu: no '%s' in:\n%s", i,
           cases[i].json, json);
    free(json);
    cb_report_free(&r);
  }
}

/* ---- nccl-tests 2.19.6's optional columns and lines ---------------------- */

/* Line i (0-based) of s, into buf; 0 when s has fewer lines. */
static int line_of(const char *s, int i, char *buf, size_t len) {
  for (; i > 0 && s; i--) {
    s = strchr(s, '\n');
    if (s) s++;
  }
  if (!s || !*s) return 0;
  size_t n = strcspn(s, "\n");
  snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s);
  return 1;
}

static char *kernel_header_for(const char *line) {
  return text_for(line, 1);
}

/* The column header of -I, -S and -C: nccl-tests' writeResultHeader. */
static void test_column_headers(void) {
  static const struct {
    const char *line;
    const char *want[3]; /* the three lines after "# kernel ..." */
  } cases[] = {
      {"-I 1",
       {"#                                                                 out-of-place (+ "
        "per-iteration)                                in-place (+ per-iteration)",
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong    "
        "i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    "
        "i_p99    i_cv% ",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             "
        "(us)     (us)     (us)      (%)     (us)  (GB/s)  (GB/s)             (us)     (us)     "
        "(us)      (%) "}},
      {"-I 1 -S 1",
       {"#                                                                 out-of-place (+ "
        "per-iteration)                                in-place (+ per-iteration)",
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong    "
        "i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    "
        "i_p99    i_cv%           timestamp",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             "
        "(us)     (us)     (us)      (%)     (us)  (GB/s)  (GB/s)             (us)     (us)     "
        "(us)      (%)   %Y-%m-%d %H:%M:%S"}},
      {"-C 1 -S 1",
       {"#                                                              out-of-place              "
        "         in-place          ",
        "#       size         count      type   redop    root  cputime   algbw   busbw  #wrong  "
        "cputime   algbw   busbw  #wrong           timestamp",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             "
        "(us)  (GB/s)  (GB/s)           %Y-%m-%d %H:%M:%S"}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char *s = kernel_header_for(cases[c].line);
    for (int i = 0; i < 3; i++) {
      char got[512] = "";
      line_of(s, 2 + i, got, sizeof got);
      CHECKF(strcmp(got, cases[c].want[i]) == 0,
             "'%s': column header line %d\n  got:      [%s]\n  expected: [%s]", cases[c].line,
             i + 1, got, cases[c].want[i]);
    }
    free(s);
  }
}

/* A row with -I and -S: nccl-tests' per-iteration columns after each
 * placement, the local time at the end; -C puts the CPU time in the time
 * column. */
static void test_optional_row_columns(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  char err[256], *argv[8];
  int argc = opts_argv("prog", "-I 1 -S 1", argv, 8);
  CHECK(cb_options_parse(argc, argv, &r.opts, err, sizeof err) == CB_OPTS_RUN);
  cb_row row = ran_row(0, 1048576, 12.5, 83.89);
  snprintf(row.stamp, sizeof row.stamp, "2026-01-02 03:04:05");
  row.m[CB_INP].time_us = 13.25;
  row.m[CB_INP].algbw = row.m[CB_INP].busbw = 79.14;
  row.m[CB_OOP].has_stats = row.m[CB_INP].has_stats = 1;
  row.m[CB_OOP].stats =
      (cb_iter_stats){.min_us = 11.0, .max_us = 20.25, .p99_us = 20.25, .cv_pct = 5.5};
  row.m[CB_INP].stats =
      (cb_iter_stats){.min_us = 12.0, .max_us = 1234.5, .p99_us = 1234.5, .cv_pct = 150.25};
  char *s = row_text(&r, &row);
  CHECK_STR(s,
            "     1048576        262144     float     sum      -1    12.50   83.89   83.89       "
            "0    11.00    20.25    20.25     5.50    13.25   79.14   79.14       0    12.00  "
            "1234.50  1234.50   150.25  2026-01-02 03:04:05\n");
  free(s);
  /* A placement skipped: N/A in its per-iteration columns too, the widths kept. */
  cb_row half = row;
  half.m[CB_INP].ran = 0;
  snprintf(half.m[CB_INP].skip, sizeof half.m[CB_INP].skip, "in place not served");
  s = row_text(&r, &half);
  CHECK_EQ_INT(count_of(s, "N/A"), 8);
  CHECK_CONTAINS(s, "2026-01-02 03:04:05  # in-place: in place not served\n");
  CHECK_EQ_INT((int)(strstr(s, "2026") - s),
               12 + 2 + 12 + 2 + 8 + 2 + 6 + 2 + 6 + 2 * (33 + 36) + 2);
  free(s);
  /* -C: the host's time to launch, not the latency. */
  argc = opts_argv("prog", "-C 1", argv, 8);
  CHECK(cb_options_parse(argc, argv, &r.opts, err, sizeof err) == CB_OPTS_RUN);
  row.m[CB_OOP].cpu_us = 3.75;
  row.m[CB_INP].cpu_us = 4.5;
  s = row_text(&r, &row);
  CHECK_STR(s,
            "     1048576        262144     float     sum      -1     3.75   83.89   83.89       "
            "0     4.50   79.14   79.14       0\n");
  free(s);
}

/* nccl-tests' lines for -z, -I and -p, between its "# nThread" line and
 * "# Using devices"; none by default. */
static void test_header_nccl_tests_modes(void) {
  static const struct {
    const char *line, *want;
  } cases[] = {
      {"", "# nThread"},
      {"-z 1", "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n"},
      {"-z 2", "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n"},
      {"-z 3", "# Blocking Enabled: wait and barrier after each outer iteration (-n); time "
               "excludes barrier \n"},
      {"-I 1", "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows \n"},
      {"-I 1 -K 3", "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows; "
                    "summary skips first 3 iterations \n"},
      {"-p 1", "# Parallel Init Enabled: threads call into NcclInitRank concurrently \n"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char *s = header_for(cases[c].line);
    const char *at = strstr(s, cases[c].want), *devices = strstr(s, "#\n# Using devices\n");
    CHECKF(at && devices && at < devices, "'%s': no [%s] before the devices in:\n%s", cases[c].line,
           cases[c].want, s);
    /* Only the lines asked for. */
    CHECKF(count_of(s, "Blocking Enabled") == (strstr(cases[c].line, "-z") != NULL),
           "'%s': blocking lines in:\n%s", cases[c].line, s);
    CHECKF(count_of(s, "Per-Iteration Report") == (strstr(cases[c].line, "-I") != NULL),
           "'%s': per-iteration lines in:\n%s", cases[c].line, s);
    CHECKF(count_of(s, "Parallel Init") == (strstr(cases[c].line, "-p") != NULL),
           "'%s': parallel init lines in:\n%s", cases[c].line, s);
    free(s);
  }
  /* -m in the nThread line. */
  char *s = header_for("-m 4");
  CHECK_CONTAINS(s, " agg iters: 4 validation: 1 ");
  free(s);
}

/* NCCL_TESTS_SPLIT: the Group column holds each rank's group, and our line
 * says bandwidths are per group. */
static void test_header_groups(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  r.nranks = 1;
  r.ngroups = 2;
  cb_device_info dev[2] = {
      {.rank = 0, .group = 0, .pid = 7, .device = 0, .host = "h", .pci = "p", .name = "n"},
      {.rank = 1, .group = 1, .pid = 8, .device = 1, .host = "h", .pci = "p", .name = "n"}};
  r.devices = dev;
  FILE *f = check_tmpfile();
  cb_text_header(f, &r);
  char *s = check_slurp(f);
  fclose(f);
  CHECK_CONTAINS(s, "#  Rank  0 Group  0 Pid      7 on          h device  0 [p] n\n"
                    "#  Rank  1 Group  1 Pid      8 on          h device  1 [p] n\n");
  CHECK_CONTAINS(s, "# Groups: 2 (NCCL_TESTS_SPLIT) run the test at once; bandwidths are per "
                    "group");
  free(s);
}

/* NCCL_TESTS_MIN_BW's verdict on the first average line, and -M's line. */
static void test_footer_min_bw_and_memory(void) {
  static const cb_collective coll = {&cb_shape_all_reduce, fixture_rows, 1};
  static const int run[] = {1};
  cb_report r = basic_report(&coll, run);
  cb_row a = ran_row(0, 1024, 10.0, 100.0);
  cb_report_add(&r, &a);
  static const struct {
    double min_bw;
    const char *line;
  } cases[] = {
      {100.0, "# Avg bus bandwidth    : 100 OK\n"},
      {111.0, "# Avg bus bandwidth    : 100 OK\n"}, /* 90% of 111 is below 100 */
      {112.0, "# Avg bus bandwidth    : 100 FAILED\n"},
      {0.0, "# Avg bus bandwidth    : 100 OK\n"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    r.check_min_bw = 1;
    r.min_bw = cases[c].min_bw;
    char *s = footer_text(&r);
    CHECKF(strstr(s, cases[c].line) != NULL, "NCCL_TESTS_MIN_BW=%g: no [%s] in:\n%s",
           cases[c].min_bw, cases[c].line, s);
    free(s);
  }
  r.check_min_bw = 0;
  r.has_mem = 1;
  r.mem = (cb_mem_use){.init = 3ll << 29, .user = 64ll << 20, .coll = 512};
  char *s = footer_text(&r);
  CHECK_CONTAINS(s, "# Avg bus bandwidth    : 100 \n");
  CHECK_CONTAINS(s, "# Collective test concluded: all_reduce_perf\n# GPU memory usage     : "
                    "Initialization 1.50 GB | User-Allocated 64.0 MB | Collective 512 B | Total  "
                    "1.56 GB\n#\n");
  free(s);
  cb_report_free(&r);
}

/* ---- one reference file ------------------------------------------------ */

typedef struct {
  fx_file *fx;
  cb_collective coll;
  cb_report report;
  cb_device_info devices[16];
  int run[1];
} fixture_ctx;

static cb_measure measure_of(const fx_row *r, int p) {
  cb_measure m;
  memset(&m, 0, sizeof m);
  m.ran = 1;
  m.time_us = atof(r->f[p ? FX_IP_TIME : FX_OOP_TIME]);
  m.algbw = atof(r->f[p ? FX_IP_ALGBW : FX_OOP_ALGBW]);
  m.busbw = atof(r->f[p ? FX_IP_BUSBW : FX_OOP_BUSBW]);
  const char *w = r->f[p ? FX_IP_WRONG : FX_OOP_WRONG];
  m.wrong = strcmp(w, "N/A") == 0 ? -1 : atoll(w);
  return m;
}

static int row_of(const fx_file *fx, const fx_row *r, cb_row *row) {
  memset(row, 0, sizeof *row);
  int t = cb_dtype_parse(r->type);
  int op = strcmp(r->redop, "none") == 0 ? (int)CB_SUM : cb_redop_parse(r->redop);
  CHECKF(t >= 0, "%s:%d: unknown type '%s'", fx_base(fx->path), r->line_no, r->type);
  CHECKF(op >= 0, "%s:%d: unknown op '%s'", fx_base(fx->path), r->line_no, r->redop);
  if (t < 0 || op < 0) return -1;
  row->kernel = 0;
  row->dtype = (cb_dtype)t;
  row->op = (cb_redop)op;
  row->root = r->root;
  row->bytes = r->size;
  row->count = r->count;
  row->m[CB_OOP] = measure_of(r, 0);
  row->m[CB_INP] = measure_of(r, 1);
  return 0;
}

/* The report as collbench would have filled it for the reference run. */
static int setup_fixture(fixture_ctx *c, const char *path) {
  memset(c, 0, sizeof *c);
  c->fx = malloc(sizeof *c->fx);
  if (!c->fx || fx_load(path, c->fx) != 0) return -1;
  fx_file *fx = c->fx;
  const cb_coll_shape *shape = fx_shape(fx->collective);
  CHECKF(shape != NULL, "%s: no shape '%s'", fx_base(path), fx->collective);
  if (!shape) return -1;
  c->coll = (cb_collective){shape, fixture_rows, 1};
  c->run[0] = 1;
  cb_report *r = &c->report;
  r->program = fx->program;
  r->coll = &c->coll;
  r->kernels_run = c->run;
  r->nranks = fx->nranks;
  r->nccl_header = r->nccl_library = 22803;
  /* The options the reference run was started with. */
  char a[12][32], err[256];
  char *argv[32];
  int argc = 0, na = 0;
  argv[argc++] = "prog";
#define ARG(flag, fmt, val)                                                                        \
  do {                                                                                             \
    snprintf(a[na], sizeof a[na], fmt, val);                                                       \
    argv[argc++] = flag;                                                                           \
    argv[argc++] = a[na++];                                                                        \
  } while (0)
  ARG("-b", "%llu", fx->min_bytes);
  ARG("-e", "%llu", fx->max_bytes);
  ARG(strcmp(fx->step_kind, "factor") == 0 ? "-f" : "-i", "%llu", fx->step);
  ARG("-t", "%d", fx->nthread);
  ARG("-g", "%d", fx->ngpus);
  ARG("-w", "%d", fx->warmup);
  ARG("-n", "%d", fx->iters);
  ARG("-c", "%d", fx->validation);
  ARG("-G", "%d", fx->graph);
  ARG("--timer", "%s", "host"); /* nccl-tests' clock, in graph mode too */
#undef ARG
  argv[argc] = NULL;
  CHECKF(cb_options_parse(argc, argv, &r->opts, err, sizeof err) == CB_OPTS_RUN, "%s: %s",
         fx_base(path), err);
  /* The devices of its "#  Rank" lines. */
  int nd = 0;
  for (int i = 0; i < fx->nlines && nd < 16; i++) {
    cb_device_info *d = &c->devices[nd];
    int group;
    if (sscanf(fx->lines[i], "#  Rank %d Group %d Pid %d on %63s device %d [%31[^]]] %255[^\n]",
               &d->rank, &group, &d->pid, d->host, &d->device, d->pci, d->name) == 7)
      nd++;
  }
  CHECKF(nd == fx->nranks, "%s: read %d of %d device lines", fx_base(path), nd, fx->nranks);
  r->devices = c->devices;
  return 0;
}

static int fixture_line_index(const fx_file *fx, const char *prefix) {
  for (int i = 0; i < fx->nlines; i++)
    if (strncmp(fx->lines[i], prefix, strlen(prefix)) == 0) return i;
  return -1;
}

static void test_fixture_rows(fixture_ctx *c) {
  fx_file *fx = c->fx;
  int same = 0;
  for (int i = 0; i < fx->nrows; i++) {
    cb_row row;
    if (row_of(fx, &fx->rows[i], &row)) continue;
    char *s = row_text(&c->report, &row);
    s[strcspn(s, "\n")] = '\0';
    if (CHECKF(strcmp(s, fx->rows[i].line) == 0,
               "%s:%d: row differs\n  got:      [%s]\n  expected: [%s]", fx_base(fx->path),
               fx->rows[i].line_no, s, fx->rows[i].line))
      same++;
    free(s);
  }
  printf("%s: %d of %d rows identical\n", fx_base(fx->path), same, fx->nrows);
}

static void test_fixture_kernel_header(fixture_ctx *c) {
  fx_file *fx = c->fx;
  FILE *f = check_tmpfile();
  cb_text_kernel_header(f, &c->report, 0);
  char *s = check_slurp(f);
  fclose(f);
  char *lines[16];
  int n = split_lines(s, lines, 16);
  CHECK_EQ_INT(n, 5);
  /* The reference's column header: the three lines before the first row. */
  int first = fx->rows[0].line_no - 1 - 3;
  CHECKF(first == 8, "%s: the column header is expected on lines 9-11, found at %d",
         fx_base(fx->path), first + 1);
  if (n == 5 && first >= 0) {
    CHECK_STR(lines[0], "#");
    CHECK_CONTAINS(lines[1], "# kernel 0 (nccl): NCCL (reference)");
    for (int i = 0; i < 3; i++) {
      CHECKF(strcmp(lines[2 + i], fx->lines[first + i]) == 0,
             "%s: column header line %d differs\n  got:      [%s]\n  expected: [%s]",
             fx_base(fx->path), first + i + 1, lines[2 + i], fx->lines[first + i]);
    }
    CHECK(fx->lines[first - 1][0] == '#' && fx->lines[first - 1][1] == '\0');
  }
  free(s);
}

static void test_fixture_header(fixture_ctx *c) {
  fx_file *fx = c->fx;
  /* The nThread line from the command line of the reference run, as typed. */
  const char *line = fx->graph ? "-b 8 -e 128M -f 2 -g 2 -w 10 -n 100 -G 100 --timer host"
                               : "-b 8 -e 1G -f 4 -g 2 -w 5 -n 20";
  char buf[128], err[256];
  char *argv[24];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = "prog";
  for (char *w = strtok(buf, " "); w; w = strtok(NULL, " ")) argv[argc++] = w;
  argv[argc] = NULL;
  cb_report r = c->report;
  CHECKF(cb_options_parse(argc, argv, &r.opts, err, sizeof err) == CB_OPTS_RUN, "%s", err);
  FILE *f = check_tmpfile();
  cb_text_header(f, &r);
  char *s = check_slurp(f);
  fclose(f);
  char *lines[32];
  int n = split_lines(s, lines, 32);
  int nthread = fixture_line_index(fx, "# nThread");
  CHECKF(nthread == 2, "%s: '# nThread' expected on line 3", fx_base(fx->path));
  CHECKF(n >= 3 && nthread >= 0 && strcmp(lines[2], fx->lines[nthread]) == 0,
         "%s (options %s): nThread line differs\n  got:      [%s]\n  expected: [%s]",
         fx_base(fx->path), line, n >= 3 ? lines[2] : "", nthread >= 0 ? fx->lines[nthread] : "");
  /* nccl-tests' header, its first line and devices included, word for word;
   * then ours, after it: the collbench line (and none other for this run). */
  int dev_end = fixture_line_index(fx, "#  Rank") + fx->nranks;
  CHECKF(n == dev_end + 1, "%s: header has %d lines, the reference %d and ours 1",
         fx_base(fx->path), n, dev_end);
  CHECKF(n > dev_end && strncmp(lines[dev_end], "# collbench version ", 20) == 0,
         "%s: our line after nccl-tests' header: [%s]", fx_base(fx->path),
         n > dev_end ? lines[dev_end] : "");
  for (int i = 0; i < n && i < dev_end; i++)
    CHECKF(strcmp(lines[i], fx->lines[i]) == 0,
           "%s: header line %d differs\n  got:      [%s]\n  expected: [%s]", fx_base(fx->path),
           i + 1, lines[i], fx->lines[i]);
  free(s);
}

static void add_fixture_rows(fixture_ctx *c, cb_report *r) {
  for (int i = 0; i < c->fx->nrows; i++) {
    cb_row row;
    if (row_of(c->fx, &c->fx->rows[i], &row) == 0) cb_report_add(r, &row);
  }
}

static void test_fixture_footer(fixture_ctx *c) {
  fx_file *fx = c->fx;
  cb_report r = c->report;
  r.rows = NULL;
  r.nrows = r.cap = 0;
  add_fixture_rows(c, &r);
  FILE *f = check_tmpfile();
  cb_text_footer(f, &r);
  char *s = check_slurp(f);
  fclose(f);
  char *lines[16];
  int n = split_lines(s, lines, 16);
  int oob = fixture_line_index(fx, "# Out of bounds values");
  CHECKF(oob > 0 && oob + 4 < fx->nlines, "%s: no footer", fx_base(fx->path));
  CHECK_EQ_INT(n, 5);
  if (oob > 0 && oob + 4 < fx->nlines && n == 5) {
    CHECK_STR(lines[0], fx->lines[oob]);
    /* "# Avg bus bandwidth    : %g " with the mean of the printed busbw. */
    const char *prefix = "# Avg bus bandwidth    : ";
    size_t pl = strlen(prefix);
    CHECK(strncmp(lines[1], prefix, pl) == 0);
    CHECK(strncmp(fx->lines[oob + 1], prefix, pl) == 0);
    size_t len = strlen(lines[1]);
    CHECK(len > pl + 1 && lines[1][len - 1] == ' ' && lines[1][len - 2] != ' ');
    double got = atof(lines[1] + pl), want = atof(fx->lines[oob + 1] + pl);
    CHECKF(fabs(got - want) <= 0.006, "%s: avg busbw %s, the reference %s", fx_base(fx->path),
           lines[1] + pl, fx->lines[oob + 1] + pl);
    for (int i = 2; i < 5; i++) CHECK_STR(lines[i], fx->lines[oob + i]);
  }
  free(s);
  r.devices = NULL; /* not malloc'd: cb_report_free would free it */
  cb_report_free(&r);
}

/* The whole output against the whole reference: only our lines (the
 * collbench and kernel lines) and the average's last digits may differ. */
static void test_fixture_document(fixture_ctx *c) {
  fx_file *fx = c->fx;
  cb_report r = c->report;
  r.rows = NULL;
  r.nrows = r.cap = 0;
  FILE *f = check_tmpfile();
  cb_text_header(f, &r);
  cb_text_kernel_header(f, &r, 0);
  for (int i = 0; i < fx->nrows; i++) {
    cb_row row;
    if (row_of(fx, &fx->rows[i], &row) == 0) cb_text_row(f, &r, cb_report_add(&r, &row));
  }
  cb_text_footer(f, &r);
  char *s = check_slurp(f);
  fclose(f);
  static char *lines[MAX_OUT_LINES];
  int n = split_lines(s, lines, MAX_OUT_LINES);
  int ref_n = fx->nlines;
  while (ref_n > 0 && fx->lines[ref_n - 1][0] == '\0') ref_n--; /* trailing blank lines */
  int j = 0, first_diff = -1, kernel_lines = 0;
  for (int i = 0; i < n; i++) {
    if (strncmp(lines[i], "# kernel ", 9) == 0) {
      kernel_lines++;
      continue;
    }
    if (strncmp(lines[i], "# collbench ", 12) == 0) continue; /* ours, after the devices */
    if (j >= ref_n) {
      first_diff = i;
      break;
    }
    int same = strcmp(lines[i], fx->lines[j]) == 0;
    if (!same && strncmp(lines[i], "# Avg bus bandwidth", 19) == 0 &&
        strncmp(fx->lines[j], "# Avg bus bandwidth", 19) == 0)
      same = 1; /* its number is checked with a tolerance above */
    if (!same) {
      first_diff = i;
      break;
    }
    j++;
  }
  CHECK_EQ_INT(kernel_lines, 1);
  CHECKF(first_diff < 0 && j == ref_n,
         "%s: output differs from the reference first at output line %d\n  got:      [%s]\n"
         "  expected: [%s]",
         fx_base(fx->path), first_diff + 1, first_diff >= 0 ? lines[first_diff] : "(end)",
         j < ref_n ? fx->lines[j] : "(end)");
  free(s);
  r.devices = NULL; /* not malloc'd: cb_report_free would free it */
  cb_report_free(&r);
}

int main(int argc, char **argv) {
  if (argc == 1) {
    test_format_fixed();
    test_skipped_rows();
    test_footer();
    test_avg_bus_bandwidth_lines();
    test_header_variants();
    test_header_op_ignored();
    test_summary_reference();
    test_summary_long_name();
    test_summary_per_root();
    test_json_rows_as_printed();
    test_header_timer_and_flags();
    test_header_peer_mapping();
    test_json_peer_mapping();
    test_header_all_sizes_warmup();
    test_header_overlap();
    test_resources_lines();
    test_overlap_lines();
    test_column_headers();
    test_optional_row_columns();
    test_header_nccl_tests_modes();
    test_header_groups();
    test_footer_min_bw_and_memory();
    return check_summary();
  }
  for (int i = 1; i < argc; i++) {
    fixture_ctx c;
    if (setup_fixture(&c, argv[i]) != 0) {
      CHECKF(0, "cannot use fixture %s", argv[i]);
      free(c.fx);
      continue;
    }
    test_fixture_rows(&c);
    test_fixture_kernel_header(&c);
    test_fixture_header(&c);
    test_fixture_footer(&c);
    test_fixture_document(&c);
    free(c.fx);
  }
  return check_summary();
}
