/* The arithmetic of a load beside a timed call (load_window.h) and the
 * loads' option checks (load.h): which units count as beside the call, the
 * rate they give, when the load did not cover the window, how many units
 * are started, the slowdowns, and the sizes and kinds refused. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv, strtok */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "load_options.h"
#include "load_window.h"

/* Units of 100 us back to back from 0: marks at 0, 100, ..., 100 n. */
static void even_marks(double *marks, int n) {
  for (int i = 0; i <= n; i++) marks[i] = 100.0 * i;
}

static void test_window_inside(void) {
  double marks[11];
  even_marks(marks, 10);
  cb_load_window w;
  /* Window [150, 720]: units 3..7 (200-300 ... 600-700) lie wholly inside;
   * units 2 (100-200) and 8 (700-800) straddle its ends. */
  cb_load_window_of(marks, 10, 150, 720, 1e9, 1e9, &w);
  CHECK(w.covered);
  CHECK_EQ_INT(w.units_inside, 5);
  CHECK_NEAR(w.window_us, 570.0, 1e-9);
  /* 5 units of 1e9 over 500 us: 1e13 work a second, 1e4 in units of 1e9. */
  CHECK_NEAR(w.rate, 1e4, 1e-6);
  /* A window on unit boundaries takes the units on them. */
  cb_load_window_of(marks, 10, 200, 400, 2.0, 1.0, &w);
  CHECK_EQ_INT(w.units_inside, 2);
  CHECK_NEAR(w.rate, 4.0 / 200e-6, 1e-3);
}

static void test_window_slower_units(void) {
  /* Units slowed beside the call: 100 us alone before it, 300 us within. */
  double marks[] = {0, 100, 200, 500, 800, 1100, 1200};
  cb_load_window w;
  cb_load_window_of(marks, 6, 150, 1150, 1e12, 1e12, &w);
  CHECK(w.covered);
  CHECK_EQ_INT(w.units_inside, 3); /* 200-500, 500-800, 800-1100 */
  CHECK_NEAR(w.rate, 3.0 / 900e-6, 1e-6);
}

/* Units that would outlast half of -T are refused with the reason. */
static void test_span_problem(void) {
  char buf[256];
  CHECK(cb_load_span_problem(CB_LOAD_GEMM, 256, 1500, 300, buf, sizeof buf) == NULL);
  CHECK(cb_load_span_problem(CB_LOAD_GEMM, 100, 1.5e6, 300, buf, sizeof buf) == NULL); /* 150 s */
  CHECK(cb_load_span_problem(CB_LOAD_FMA, 101, 1.5e6, 300, buf, sizeof buf) != NULL);
  CHECK_STR(buf, "--overlap fma: 101 units of 1500000 us each (a unit's time alone) would take "
                 "more than half of -T 300 s: give a smaller --overlap_size or a larger -T");
  CHECK(cb_load_span_problem(CB_LOAD_MEM, 3, 0, 300, buf, sizeof buf) == NULL); /* not timed yet */
}

/* The units wholly after the window: the load alone, as warm as beside the
 * call; their rate stands for the load alone where there are enough. */
static void test_units_after(void) {
  /* 100 us a unit before, 300 us within [150, 1150], 110 us after. */
  double marks[] = {0, 100, 200, 500, 800, 1100, 1210, 1320, 1430, 1540};
  cb_load_window w;
  cb_load_window_of(marks, 9, 150, 1150, 1.0, 1.0, &w);
  CHECK_EQ_INT(w.units_after, 3); /* 1210-1320, 1320-1430, 1430-1540; 1100-1210 straddles */
  CHECK_NEAR(w.rate_after, 3.0 / 330e-6, 1e-6);
  CHECK_NEAR(cb_load_alone_of(&w, 1e4, 3), 3.0 / 330e-6, 1e-6);
  CHECK_NEAR(cb_load_alone_of(&w, 1e4, 4), 1e4, 1e-9); /* too few: the rate timed before */
  /* A unit starting on the window's end counts as after. */
  cb_load_window_of(marks, 9, 150, 1210, 1.0, 1.0, &w);
  CHECK_EQ_INT(w.units_after, 3);
  /* None after: the load ended with the window. */
  cb_load_window_of(marks, 9, 150, 1540, 1.0, 1.0, &w);
  CHECK_EQ_INT(w.units_after, 0);
  CHECK(w.rate_after == 0);
  CHECK_NEAR(cb_load_alone_of(&w, 7.0, 1), 7.0, 1e-12);
}

static void test_window_not_covered(void) {
  double marks[6];
  even_marks(marks, 5);
  cb_load_window w;
  /* The load ended (500) before the call's window did. */
  cb_load_window_of(marks, 5, 150, 650, 1.0, 1.0, &w);
  CHECK(!w.covered);
  CHECK_EQ_INT(w.units_inside, 3); /* still counted: the caller decides */
  /* The load's first mark after the window opened: it started late. */
  cb_load_window_of(marks, 5, -10, 300, 1.0, 1.0, &w);
  CHECK(!w.covered);
  /* A window inside one unit: covered, but no whole unit inside, no rate. */
  cb_load_window_of(marks, 5, 210, 290, 1.0, 1.0, &w);
  CHECK(w.covered);
  CHECK_EQ_INT(w.units_inside, 0);
  CHECK(w.rate == 0);
  /* No units at all. */
  cb_load_window_of(marks, 0, 10, 20, 1.0, 1.0, &w);
  CHECK(!w.covered);
  CHECK_EQ_INT(w.units_inside, 0);
}

static void test_units_for(void) {
  /* Twice the window in units, and two more. */
  CHECK_EQ_INT(cb_load_units_for(1000, 100, 1024), 22);
  CHECK_EQ_INT(cb_load_units_for(1050, 100, 1024), 23);
  /* At least 3, at most the cap; a unit time of 0 takes the cap. */
  CHECK_EQ_INT(cb_load_units_for(1, 1000, 1024), 3);
  CHECK_EQ_INT(cb_load_units_for(1e9, 1, 1024), 1024);
  CHECK_EQ_INT(cb_load_units_for(100, 0, 64), 64);
}

/* Four times the units, up to the bound. */
static void test_units_retry(void) {
  CHECK_EQ_INT(cb_load_units_retry(3, 512), 12);
  CHECK_EQ_INT(cb_load_units_retry(127, 512), 508);
  CHECK_EQ_INT(cb_load_units_retry(128, 512), 512);
  CHECK_EQ_INT(cb_load_units_retry(200, 512), 512);
}

/* The same words in every program, with where the rank is named. */
static void test_why(void) {
  cb_overlap_result o = {0};
  cb_overlap_why_uncovered(&o, " on rank 2", 48, 1500.4, 90000);
  CHECK_STR(o.why, "the load did not run over the whole timed window on rank 2 with 48 units "
                   "(1500 us a unit alone, a window of 90000 us): a larger --overlap_size");
  cb_overlap_why_uncovered(&o, "", 3, 10, 20);
  CHECK_STR(o.why, "the load did not run over the whole timed window with 3 units (10 us a unit "
                   "alone, a window of 20 us): a larger --overlap_size");
  cb_overlap_why_no_unit(&o, " on rank 0", 700, 350);
  CHECK_STR(o.why, "no whole unit of the load fit in the timed window on rank 0 (350 us; a unit "
                   "takes 700 us alone): a smaller --overlap_size or a larger -n");
  cb_overlap_why_no_unit(&o, "", 700, 350);
  CHECK_STR(o.why, "no whole unit of the load fit in the timed window (350 us; a unit takes 700 "
                   "us alone): a smaller --overlap_size or a larger -n");
}

static void test_slowdowns(void) {
  cb_overlap_result o;
  memset(&o, 0, sizeof o);
  o.ran = 1;
  o.time_us = 30;
  o.alone = 600;
  o.beside = 400;
  CHECK_NEAR(cb_overlap_call_slowdown(&o, 20), 1.5, 1e-12);
  CHECK_NEAR(cb_overlap_load_slowdown(&o), 1.5, 1e-12);
  /* A rate beside that was not measured, a time alone of 0, a result that
   * did not run: no slowdown. */
  o.beside = 0;
  CHECK(cb_overlap_load_slowdown(&o) == 0);
  CHECK(cb_overlap_call_slowdown(&o, 0) == 0);
  o.ran = 0;
  CHECK(cb_overlap_call_slowdown(&o, 20) == 0);
}

static void test_options(void) {
  char err[256];
  int kind = -1;
  CHECK_EQ_INT(cb_load_option_kind("fma", &kind, err, sizeof err), 0);
  CHECK_EQ_INT(kind, CB_LOAD_FMA);
  CHECK_EQ_INT(cb_load_option_kind("heavy", &kind, err, sizeof err), -1);
  CHECK_STR(err, "unknown --overlap 'heavy' (it takes gemm, fma, mem or none)");
  /* The defaults, when no size is given. */
  uint64_t size = 0;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_FMA, &size, err, sizeof err), 0);
  CHECK_EQ_U64(size, 16u << 10);
  size = 0;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_MEM, &size, err, sizeof err), 0);
  CHECK_EQ_U64(size, 512ull << 20);
  size = 0;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_NONE, &size, err, sizeof err), 0);
  CHECK_EQ_U64(size, 0);
  /* A size without a load. */
  size = 1024;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_NONE, &size, err, sizeof err), -1);
  CHECK_STR(err, "--overlap_size 1024 sizes a load, and --overlap gives none");
  /* Sizes each kind refuses, and the edges it takes. */
  size = 12;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_FMA, &size, err, sizeof err), -1);
  CHECK_CONTAINS(err, "multiple of 8");
  size = 8;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_FMA, &size, err, sizeof err), 0);
  size = 16u << 20;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_FMA, &size, err, sizeof err), 0);
  size = (16u << 20) + 8;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_FMA, &size, err, sizeof err), -1);
  CHECK_CONTAINS(err, "from 8 to 16M");
  size = (1u << 20) - 16;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_MEM, &size, err, sizeof err), -1);
  CHECK_CONTAINS(err, "from 1M to 64G");
  size = (1u << 20) + 8;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_MEM, &size, err, sizeof err), -1);
  size = 1u << 20;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_MEM, &size, err, sizeof err), 0);
  /* gemm: refused as unavailable in a build without cuBLAS, else by size. */
  size = 100;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_GEMM, &size, err, sizeof err), -1);
  if (cb_load_unavailable(CB_LOAD_GEMM)) {
    CHECK_CONTAINS(err, "--overlap gemm is unavailable: ");
    CHECK_CONTAINS(err, cb_load_unavailable(CB_LOAD_GEMM));
  } else {
    CHECK_CONTAINS(err, "M = N = K must be a multiple of 8 from 128 to 32768");
    size = 0;
    CHECK_EQ_INT(cb_load_options_check(CB_LOAD_GEMM, &size, err, sizeof err), 0);
    CHECK_EQ_U64(size, 8192);
  }
}

static void test_names(void) {
  for (int k = 0; k < CB_NUM_LOADS; k++) CHECK_EQ_INT(cb_load_parse(cb_load_name(k)), k);
  CHECK_STR(cb_load_rate_unit(CB_LOAD_GEMM), "TFLOP/s");
  CHECK_STR(cb_load_rate_unit(CB_LOAD_MEM), "GB/s");
  char buf[160];
  cb_load_describe(CB_LOAD_GEMM, 8192, buf, sizeof buf);
  CHECK_STR(buf, "cuBLAS bf16 GEMM, M=N=K=8192 (1.1 TFLOP a unit)");
  cb_load_describe(CB_LOAD_MEM, 512u << 20, buf, sizeof buf);
  CHECK_STR(buf, "copy kernel, 512 MiB copied within the GPU's memory a unit");
}

/* --overlap read before CUDA starts: the last one wins, none names no
 * load, its = form and a program's other options are read as getopt does;
 * with a load, CUDA_DEVICE_MAX_CONNECTIONS 32 unless the user set it. */
static int named(const char *words) {
  char buf[256], *argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "prog %s", words);
  for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  return cb_load_named_in_args(argc, argv);
}

static void test_named_in_args(void) {
  CHECK_EQ_INT(named("--overlap gemm"), 1);
  CHECK_EQ_INT(named("-b 8 -e 1G --overlap=fma -J out.json"), 1);
  CHECK_EQ_INT(named("--overlap mem --overlap none"), 0);
  CHECK_EQ_INT(named("--overlap none --overlap mem"), 1);
  CHECK_EQ_INT(named("-b 8 --overlap_size 64"), 0);
  CHECK_EQ_INT(named("--overlap nonsense"), 0);
  CHECK_EQ_INT(named(""), 0);
  char *argv[] = {"prog", "--overlap", "mem", NULL};
  unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
  cb_load_env_defaults(1, argv);
  CHECK(getenv("CUDA_DEVICE_MAX_CONNECTIONS") == NULL);
  cb_load_env_defaults(3, argv);
  CHECK_STR(getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "32");
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
  cb_load_env_defaults(3, argv);
  CHECK_STR(getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "4");
  unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
}

/* cuBLAS opened at run time (load_gemm.c), run with CB_CUBLAS_LIB set: a
 * path that does not load, or a library without cuBLAS's functions, makes
 * gemm unavailable with the reason, before any GPU work. */
static int test_cublas_forced(const char *want) {
  const char *why = cb_load_unavailable(CB_LOAD_GEMM);
  CHECKF(why != NULL, "CB_CUBLAS_LIB=%s: gemm should be unavailable", getenv("CB_CUBLAS_LIB"));
  if (why && !strstr(why, "this build has no cuBLAS")) CHECK_CONTAINS(why, want);
  char err[512];
  uint64_t size = 0;
  CHECK_EQ_INT(cb_load_options_check(CB_LOAD_GEMM, &size, err, sizeof err), -1);
  CHECK_CONTAINS(err, "--overlap gemm is unavailable: ");
  CHECK_EQ_INT(cb_load_unavailable(CB_LOAD_FMA) == NULL, 1);
  return check_summary();
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--cublas-forced") == 0) return test_cublas_forced(argv[2]);
  test_window_inside();
  test_window_slower_units();
  test_window_not_covered();
  test_units_after();
  test_span_problem();
  test_units_for();
  test_units_retry();
  test_why();
  test_slowdowns();
  test_options();
  test_names();
  test_named_in_args();
  return check_summary();
}
