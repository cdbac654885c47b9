/* The arithmetic of a load beside a timed call (load_window.h) and the
 * loads' option checks (load.h): which units count as beside the call, the
 * rate they give, when the load did not cover the window, how many units
 * are started, the slowdowns, and the sizes and kinds refused. */
#include <stdint.h>
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
  CHECK_EQ_U64(size, 128u << 10);
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
    CHECK_CONTAINS(err, "--overlap gemm is unavailable: this build has no cuBLAS");
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

int main(void) {
  test_window_inside();
  test_window_slower_units();
  test_window_not_covered();
  test_units_for();
  test_units_retry();
  test_why();
  test_slowdowns();
  test_options();
  test_names();
  return check_summary();
}
