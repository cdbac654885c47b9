/* cb_stats_compute: min, nearest-rank p50 and p99, max, cv%. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "stats.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void check_stats(double *samples, size_t n, double min, double p50, double p99, double max,
                        double cv, const char *what) {
  cb_iter_stats s;
  memset(&s, 0x55, sizeof s);
  cb_stats_compute(samples, n, &s);
  CHECKF(s.samples == (int)n, "%s: samples %d, expected %zu", what, s.samples, n);
  CHECKF(s.min_us == min, "%s: min %g, expected %g", what, s.min_us, min);
  CHECKF(s.p50_us == p50, "%s: p50 %g, expected %g", what, s.p50_us, p50);
  CHECKF(s.p99_us == p99, "%s: p99 %g, expected %g", what, s.p99_us, p99);
  CHECKF(s.max_us == max, "%s: max %g, expected %g", what, s.max_us, max);
  CHECKF(fabs(s.cv_pct - cv) < 1e-9, "%s: cv %.12g%%, expected %.12g%%", what, s.cv_pct, cv);
}

int main(void) {
  /* Population standard deviation 2, mean 5: cv 40%. Unsorted input. */
  double a[] = {9, 4, 2, 4, 5, 7, 4, 5};
  check_stats(a, N_OF(a), 2, 4, 9, 9, 40.0, "eight samples");
  /* It sorts in place, as documented. */
  for (size_t i = 1; i < N_OF(a); i++) CHECKF(a[i - 1] <= a[i], "not sorted at %zu", i);

  /* One sample: everything is that sample, no spread. */
  double one[] = {3.5};
  check_stats(one, 1, 3.5, 3.5, 3.5, 3.5, 0.0, "one sample");

  /* Two: nearest-rank p50 is the lower one (ceil(0.5 * 2) = 1st). */
  double two[] = {20, 10};
  check_stats(two, 2, 10, 10, 20, 20, 100.0 * 5 / 15, "two samples");

  /* 1..10 descending: p50 = 5th = 5, p99 = 10th = 10. mean 5.5, var 8.25. */
  double ten[10];
  for (int i = 0; i < 10; i++) ten[i] = 10 - i;
  check_stats(ten, 10, 1, 5, 10, 10, 100.0 * sqrt(8.25) / 5.5, "1..10");

  /* 1..100: p50 = 50, p99 = 99 (not the maximum). */
  static double hundred[100];
  double var = 0;
  for (int i = 0; i < 100; i++) hundred[i] = 100 - i;
  for (int i = 1; i <= 100; i++) var += (i - 50.5) * (i - 50.5);
  check_stats(hundred, 100, 1, 50, 99, 100, 100.0 * sqrt(var / 100) / 50.5, "1..100");

  /* 1..101: p50 = ceil(50.5) = 51st, p99 = ceil(99.99) = 100th. */
  static double h101[101];
  for (int i = 0; i < 101; i++) h101[i] = (i * 37) % 101 + 1; /* a permutation of 1..101 */
  var = 0;
  for (int i = 1; i <= 101; i++) var += (i - 51.0) * (i - 51.0);
  check_stats(h101, 101, 1, 51, 100, 101, 100.0 * sqrt(var / 101) / 51.0, "1..101");

  /* 1..1000: p99 = 990th. */
  static double thousand[1000];
  var = 0;
  for (int i = 0; i < 1000; i++) thousand[i] = (i * 7) % 1000 + 1;
  for (int i = 1; i <= 1000; i++) var += (i - 500.5) * (i - 500.5);
  check_stats(thousand, 1000, 1, 500, 990, 1000, 100.0 * sqrt(var / 1000) / 500.5, "1..1000");

  /* All equal: cv 0. */
  double same[] = {7.25, 7.25, 7.25, 7.25};
  check_stats(same, 4, 7.25, 7.25, 7.25, 7.25, 0.0, "all equal");

  /* An outlier: p99 of 20 samples is the maximum. */
  double spike[20];
  for (int i = 0; i < 20; i++) spike[i] = 10.0;
  spike[7] = 1000.0;
  double mean = (19 * 10.0 + 1000.0) / 20,
         sq = 19 * (10 - mean) * (10 - mean) + (1000 - mean) * (1000 - mean);
  check_stats(spike, 20, 10, 10, 1000, 1000, 100.0 * sqrt(sq / 20) / mean, "spike");

  /* The mean, p95 and standard deviation nccl-tests' JSON carries. */
  double b[] = {9, 4, 2, 4, 5, 7, 4, 5};
  cb_iter_stats t;
  cb_stats_compute(b, N_OF(b), &t);
  CHECK(t.avg_us == 5.0 && t.stdev_us == 2.0 && t.p95_us == 9.0);
  cb_stats_compute(hundred, 100, &t);
  CHECK(t.p95_us == 95.0 && t.avg_us == 50.5);

  /* No samples: all zero. */
  cb_iter_stats s;
  memset(&s, 0x55, sizeof s);
  cb_stats_compute(NULL, 0, &s);
  CHECK_EQ_INT(s.samples, 0);
  CHECK(s.min_us == 0 && s.p50_us == 0 && s.p99_us == 0 && s.max_us == 0 && s.cv_pct == 0);

  /* Nearest rank for every n up to 1000, against integer arithmetic:
   * p-th percentile of 1..n is ceil(p * n / 100). */
  static double v[1000];
  int bad = 0;
  for (int n = 1; n <= 1000; n++) {
    for (int i = 0; i < n; i++) v[i] = n - i;
    cb_stats_compute(v, (size_t)n, &s);
    int p50 = (50 * n + 99) / 100, p95 = (95 * n + 99) / 100, p99 = (99 * n + 99) / 100;
    if ((s.p50_us != p50 || s.p95_us != p95 || s.p99_us != p99) && bad++ < 10)
      CHECKF(0, "n=%d: p50 %g p99 %g, expected %d %d", n, s.p50_us, s.p99_us, p50, p99);
  }
  CHECKF(bad == 0, "%d sample counts with a wrong percentile", bad);
  return check_summary();
}
