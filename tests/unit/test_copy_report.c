/* copy_perf's report sinks on a known report: the text table's columns line
 * up under their headers, skips and notes read as such, the summary names
 * the fastest kernel per size with its ratio to ce and its distance to the
 * floor, the protocol a kernel used reaches every sink, --osu rows are
 * OSU's, and the wrong total drives the footer.
 *
 *   test_copy_report                      the checks
 *   test_copy_report --emit JSON CSV      also writes the JSON and CSV files,
 *                                         for tests/py/test_copy_program.py */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "copy_report.h"
#include "report_osu.h"

static void fake_post(cb_copy_ctx *c, const cb_copy_call *call, int n, cudaStream_t s) {
  (void)c, (void)call, (void)n, (void)s;
}

static const cb_copy_kernel kernels[] = {
    {.id = 0, .name = "ce", .summary = "copy engine", .dirs = CB_ALL_DIRS, .post = fake_post},
    {.id = 2, .name = "sm", .summary = "SM copy", .dirs = CB_ALL_DIRS, .post = fake_post},
    {.id = 3, .name = "gdrcopy", .summary = "mapping", .dirs = 3, .post = fake_post},
    {.id = 4, .name = "llhost", .summary = "LL packets", .dirs = 3, .post = fake_post},
};
static const cb_copy_program prog = {kernels, 4};
static const int run_flags[4] = {1, 1, 0, 1};

static cb_copy_row row(int k, cb_copy_dir d, size_t bytes, double lat_us, double p99, double bw_us,
                       long long wrong) {
  cb_copy_row r;
  memset(&r, 0, sizeof r);
  r.kernel = k;
  r.dir = d;
  r.bytes = bytes;
  r.wrong = wrong;
  r.m[CB_COPY_LAT] = (cb_copy_measure){.ran = 1,
                                       .time_us = lat_us,
                                       .p99_us = p99,
                                       .algbw = cb_copy_gbps(bytes, lat_us),
                                       .copies = 1,
                                       .samples = 10,
                                       .has_stats = 1,
                                       .stats = {10, lat_us * 0.9, lat_us, p99, p99 * 1.5, 3.25}};
  r.m[CB_COPY_BW] = (cb_copy_measure){
      .ran = 1, .time_us = bw_us, .algbw = cb_copy_gbps(bytes, bw_us), .copies = 64, .samples = 10};
  return r;
}

static void build(cb_copy_report *r) {
  cb_copy_report_init(r, &prog);
  r->program = "copy_perf";
  char err[256];
  char *argv[] = {"copy_perf", "-b", "8",  "-e", "4096",         "-f",
                  "512",       "-n", "10", "-k", "ce,sm,llhost", NULL};
  if (cb_copy_options_parse(11, argv, &r->opts, err, sizeof err) != CB_OPTS_RUN) {
    fprintf(stderr, "options: %s\n", err);
    exit(2);
  }
  r->nranks = 1;
  r->devices = calloc(1, sizeof *r->devices);
  snprintf(r->devices[0].host, sizeof r->devices[0].host, "node\"1");
  snprintf(r->devices[0].pci, sizeof r->devices[0].pci, "0000:00:06");
  snprintf(r->devices[0].name, sizeof r->devices[0].name, "NVIDIA H200");
  r->cuda_runtime = 13000;
  r->cuda_driver = 13000;
  snprintf(r->mpi, sizeof r->mpi, "none");
  snprintf(r->date, sizeof r->date, "2026-11-30T00:00:00Z");
  r->kernels_run = run_flags;
  r->kernel_skips[2] = strdup("GDRCopy library not found, \"really\"");
  cb_copy_report_kd_skip(r, 3, CB_D2D, "a path between host memory and this GPU");
  cb_copy_report_dir_note(r, CB_D2D, "needs two GPUs");
  cb_copy_row rows[] = {
      row(0, CB_H2D, 8, 7.0, 9.0, 0.5, 0),  row(0, CB_H2D, 4096, 8.0, 10.0, 1.0, 0),
      row(1, CB_H2D, 8, 5.0, 6.0, 0.25, 0), row(1, CB_H2D, 4096, 6.0, 7.0, 2.0, 0),
      row(3, CB_H2D, 8, 2.5, 3.0, 0.4, 0),  row(3, CB_H2D, 4096, 3.2, 4.0, 0.8, 0),
      row(0, CB_D2H, 8, 6.0, 7.0, 0.5, 0),  row(3, CB_D2H, 8, 2.0, 2.5, 0.3, 0),
  };
  /* llhost's rows say which of its protocols moved them, each measurement
   * its own (a single copy and a window may take different ones). */
  static const struct {
    int row;
    const char *latency, *bandwidth;
  } protocols[] = {{4, "ll16", "ll16"}, {5, "ll16", "flag-direct"}, {7, "ll16", "ll16"}};
  for (size_t i = 0; i < sizeof protocols / sizeof protocols[0]; i++) {
    cb_copy_measure *m = rows[protocols[i].row].m;
    snprintf(m[CB_COPY_LAT].protocol, sizeof m[CB_COPY_LAT].protocol, "%s", protocols[i].latency);
    snprintf(m[CB_COPY_BW].protocol, sizeof m[CB_COPY_BW].protocol, "%s", protocols[i].bandwidth);
  }
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) cb_copy_report_add(r, &rows[i]);
  r->floor = (cb_copy_floor){.ran = 1, .trips = 10, .p50_us = 2.25, .p99_us = 2.75};
  cb_copy_row skip;
  memset(&skip, 0, sizeof skip);
  skip.kernel = 3;
  skip.dir = CB_D2H;
  skip.bytes = 4096;
  snprintf(skip.skip, sizeof skip.skip, "above a made-up limit");
  cb_copy_report_add(r, &skip);
}

typedef void (*render_fn)(FILE *, const cb_copy_report *);
static char *render(render_fn fn, const cb_copy_report *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  fn(f, r);
  fclose(f);
  return buf;
}

static void kernel_header(FILE *f, const cb_copy_report *r) {
  cb_copy_text_kernel_header(f, r, 0, NULL);
}
static void llhost_header(FILE *f, const cb_copy_report *r) {
  cb_copy_text_kernel_header(f, r, 3, "protocol: LL16 up to 1024 B, then flag-direct");
}

/* The right edges of the blank-separated words of a line. */
static int right_edges(const char *line, int *edges, int max) {
  int n = 0;
  for (int i = 0; line[i] && line[i] != '\n'; i++)
    if (line[i] != ' ' && (line[i + 1] == ' ' || line[i + 1] == '\n' || !line[i + 1]) && n < max)
      edges[n++] = i;
  return n;
}

static void test_columns(const cb_copy_report *r) {
  char *hdr = render(kernel_header, r);
  CHECK_CONTAINS(hdr, "# kernel 0 (ce): copy engine\n#            ");
  CHECK_CONTAINS(hdr, " latency ");
  CHECK_CONTAINS(hdr, " bandwidth ");
  const char *names = strstr(hdr, "#       size");
  const char *units = strstr(hdr, "#        (B)");
  CHECK(names && units);
  char *line = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&line, &len);
  cb_copy_text_row(f, &r->rows[1]);
  fclose(f);
  CHECK_STR(line, "        4096    h2d      8.00     10.00    0.51      1.00    4.10       0\n");
  int want[16], got[16];
  int nw = right_edges(names, want, 16), ng = right_edges(line, got, 16);
  CHECK_EQ_INT(nw, 8 + 1); /* '#' counts as a word of the header */
  CHECK_EQ_INT(ng, 8);
  for (int i = 0; i < 8 && i + 1 < nw && i < ng; i++)
    CHECKF(want[i + 1] == got[i], "column %d ends at %d in the header, %d in the row", i,
           want[i + 1], got[i]);
  /* Unit line under the same edges, where it has a unit. */
  int nu = right_edges(units, want, 16);
  CHECK_EQ_INT(nu, 1 + 6); /* '#', (B), (us), (us), (GB/s), (us), (GB/s) */
  CHECK_EQ_INT(want[1], got[0]);
  CHECK_EQ_INT(want[2], got[2]);
  free(line);
  free(hdr);
  /* A kernel with protocols says which, under its name. */
  hdr = render(llhost_header, r);
  CHECK_CONTAINS(hdr, "# kernel 4 (llhost): LL packets\n# protocol: LL16 up to 1024 B, then "
                      "flag-direct\n#            ");
  free(hdr);

  /* A skipped size is a note, not a row of numbers; an unchecked row says N/A. */
  f = open_memstream(&line, &len);
  cb_copy_text_row(f, &r->rows[r->nrows - 1]);
  cb_copy_row unchecked = r->rows[0];
  unchecked.wrong = -1;
  cb_copy_text_row(f, &unchecked);
  fclose(f);
  CHECK_CONTAINS(line, "#       4096    d2h  skipped: above a made-up limit\n");
  CHECK_CONTAINS(line, "     N/A\n");
  free(line);
}

static void test_header_and_notes(const cb_copy_report *r) {
  char *t = render(cb_copy_text_header, r);
  CHECK_CONTAINS(t, "# collbench version ");
  CHECK_CONTAINS(t, "# Copy test starting: copy_perf\n");
  CHECK_CONTAINS(t, "minBytes 8 maxBytes 4096 step: 512(factor) warmup iters: 5 iters: 10 "
                    "window: 64 validation: 1");
  CHECK_CONTAINS(t, "# host memory: pinned");
  CHECK_CONTAINS(t, "NVIDIA H200");
  CHECK_CONTAINS(t, "# kernel 3 (gdrcopy) skipped: GDRCopy library not found");
  CHECK_CONTAINS(t, "\n# floor: CPU -> resident GPU kernel -> CPU flag round trip: p50 2.25 us, "
                    "p99 2.75 us (10 trips)\n");
  free(t);
  /* No floor measured (a d2d run): no line. */
  cb_copy_report bare = *r;
  bare.floor.ran = 0;
  t = render(cb_copy_text_header, &bare);
  CHECK(strstr(t, "# floor:") == NULL);
  free(t);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cb_copy_text_dir_note(f, CB_D2D, "needs two GPUs");
  cb_copy_text_kernel_skip(f, r, 3, CB_D2D, "host paths only");
  cb_copy_text_dir_header(f, r, CB_H2D, "host memory (pinned) -> device 0");
  fclose(f);
  CHECK_CONTAINS(buf, "#\n# d2d skipped: needs two GPUs\n");
  CHECK_CONTAINS(buf, "#\n# kernel 4 (llhost) skipped for d2d: host paths only\n");
  CHECK_CONTAINS(buf, "#\n# h2d: host memory (pinned) -> device 0\n");
  free(buf);
}

static void test_summary(cb_copy_report *r) {
  char *t = render(cb_copy_text_footer, r);
  CHECK_CONTAINS(t, "# Fastest kernel per size (vs ce = ce's time / the fastest time; over floor "
                    "= the fastest latency less the floor's p50, us)\n");
  CHECK_CONTAINS(t, "#       size    dir   fastest  time(us)    vs ce  over floor   fastest      "
                    "GB/s    vs ce\n");
  /* 8 B h2d: llhost 2.50 us (7.00 / 2.50 = 2.80x; 2.50 - 2.25 over the floor);
   * bandwidth sm 0.25 us per copy (0.032 GB/s, 0.5 / 0.25 = 2.00x). d2h: 2.00 us,
   * below the floor. */
  CHECK_CONTAINS(t, "#          8    h2d    llhost      2.50    2.80x       +0.25        sm      "
                    "0.03    2.00x\n");
  CHECK_CONTAINS(t, "#       4096    h2d    llhost      3.20    2.50x       +0.95    llhost      "
                    "5.12    1.25x\n");
  CHECK_CONTAINS(t, "#          8    d2h    llhost      2.00    3.00x       -0.25    llhost      "
                    "0.03    1.67x\n");
  CHECK_CONTAINS(t, "#       4096    d2h         -         -        -           -         -      "
                    "   -        -\n");
  /* The summary's group line spans its columns. */
  CHECK_CONTAINS(t, "#                    ------------- latency p50 -------------  -------- "
                    "bandwidth --------\n");
  CHECK_CONTAINS(t, "# Out of bounds values : 0 OK\n");
  CHECK_CONTAINS(t, "# Copy test concluded: copy_perf\n");
  free(t);
  CHECK_EQ_INT(cb_copy_report_kernels_measured(r), 3);
  CHECK_EQ_INT(cb_copy_report_wrong(r), 0);
  r->rows[2].wrong = 3;
  r->rows[r->nrows - 1].wrong = 100; /* a skipped row never counts */
  CHECK_EQ_INT(cb_copy_report_wrong(r), 3);
  t = render(cb_copy_text_footer, r);
  CHECK_CONTAINS(t, "# Out of bounds values : 3 FAILED\n");
  free(t);
  r->rows[2].wrong = 0;
  r->rows[r->nrows - 1].wrong = 0;
}

static void test_osu(const cb_copy_report *r) {
  char *t = render(cb_copy_osu_write, r);
  CHECK_CONTAINS(t, "# copy_perf Bandwidth Test (collbench ");
  CHECK(strncmp(t, "# floor: CPU -> resident GPU kernel -> CPU flag round trip: p50 2.25 us", 71) ==
        0);
  CHECK_CONTAINS(
      t, "h2d, kernel 0 (ce), window 64, pinned host memory\n# Size      Bandwidth (MB/s)\n");
  CHECK_CONTAINS(t, "# Size          Latency (us)\n");
  CHECK_CONTAINS(t, "# d2d skipped: needs two GPUs\n");
  CHECK_CONTAINS(t, "# h2d kernel 3 (gdrcopy) skipped: GDRCopy library not found");
  CHECK_CONTAINS(t, "# 4096 skipped: above a made-up limit\n");
  /* 4096 B at 1.00 us per copy: 4096 MB/s (MB = 10^6 B, as osu_bw). */
  CHECK_CONTAINS(t, "4096                 4096.00\n");
  CHECK_CONTAINS(t, "8                       7.00\n"); /* ce latency at 8 B */
  /* Nothing but comments and OSU rows. */
  for (char *l = t; *l; l = strchr(l, '\n') + 1) {
    CHECKF(l[0] == '#' || (l[0] >= '0' && l[0] <= '9'), "not an OSU line: %.40s", l);
    if (!strchr(l, '\n')) break;
  }
  free(t);
}

static void json_sink(FILE *f, const cb_copy_report *r) {
  CHECK_EQ_INT(cb_json_sink_write(f, &cb_copy_report_json, r), 0);
}
static void csv_sink(FILE *f, const cb_copy_report *r) {
  CHECK_EQ_INT(cb_csv_sink_write(f, &cb_copy_report_csv, r), 0);
}

static void test_files(const cb_copy_report *r, const char *json, const char *csv) {
  char *j = render(json_sink, r);
  CHECK_CONTAINS(j, "\"program\":\"copy_perf\",\"collective\":\"copy\"");
  CHECK_CONTAINS(j, "\"measurement\":\"latency\"");
  CHECK_CONTAINS(j, "\"wrong_total\":0}");
  CHECK_CONTAINS(j, "\"floor\":{\"what\":\"CPU -> resident GPU kernel -> CPU flag round "
                    "trip\",\"trips\":10,\"p50_us\":2.25,\"p99_us\":2.75}");
  CHECK_CONTAINS(j, "\"protocol\":\"flag-direct\"");
  free(j);
  cb_copy_report bare = *r;
  bare.floor.ran = 0;
  j = render(json_sink, &bare);
  CHECK_CONTAINS(j, "\"floor\":null");
  CHECK(strstr(j, "over_floor_us") == NULL);
  free(j);
  char *c = render(csv_sink, r);
  CHECK(strncmp(c, cb_copy_report_csv.header, strlen(cb_copy_report_csv.header)) == 0);
  /* llhost's 8 B h2d latency: its protocol, and 2.50 - 2.25 over the floor;
   * its bandwidth row has no distance to the floor; no --overlap: the eight
   * overlap columns empty. */
  CHECK_CONTAINS(c, "\ncopy_perf,4,llhost,h2d,latency,pinned,8,1,10,2.5,2.5,3,0.0032,0,,ll16,0.25"
                    ",,,,,,,,\n");
  CHECK_CONTAINS(c, "\ncopy_perf,4,llhost,h2d,bandwidth,pinned,8,64,10,0.4,,,0.02,0,,ll16,"
                    ",,,,,,,,\n");
  CHECK_CONTAINS(c, "\ncopy_perf,0,ce,h2d,latency,pinned,8,1,10,7,7,9,0.001142857143,0,,,4.75"
                    ",,,,,,,,\n");
  /* llhost's 4 KiB h2d: LL16 for the single copy, flag-direct for the window. */
  CHECK_CONTAINS(c, "\ncopy_perf,4,llhost,h2d,latency,pinned,4096,1,10,3.2,3.2,4,1.28,0,,ll16,0.95"
                    ",,,,,,,,\n");
  CHECK_CONTAINS(c, "\ncopy_perf,4,llhost,h2d,bandwidth,pinned,4096,64,10,0.8,,,5.12,0,,"
                    "flag-direct,,,,,,,,,\n");
  free(c);
  if (json) {
    FILE *f = fopen(json, "w");
    CHECK(f && cb_json_sink_write(f, &cb_copy_report_json, r) == 0 && fclose(f) == 0);
  }
  if (csv) {
    FILE *f = fopen(csv, "w");
    CHECK(f && cb_csv_sink_write(f, &cb_copy_report_csv, r) == 0 && fclose(f) == 0);
  }
}

int main(int argc, char **argv) {
  const char *json = NULL, *csv = NULL;
  if (argc == 4 && strcmp(argv[1], "--emit") == 0) {
    json = argv[2];
    csv = argv[3];
  } else if (argc != 1) {
    fprintf(stderr, "usage: %s [--emit JSON CSV]\n", argv[0]);
    return 2;
  }
  cb_copy_report r;
  build(&r);
  test_columns(&r);
  test_header_and_notes(&r);
  test_summary(&r);
  test_osu(&r);
  test_files(&r, json, csv);
  cb_copy_report_free(&r);
  return check_summary();
}
