#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted samples: the smallest value with at
 * least pct percent of the samples at or below it. */
static double nearest_rank(const double *sorted, size_t n, double pct) {
  size_t rank = (size_t)ceil(pct / 100.0 * (double)n);
  if (rank < 1) rank = 1;
  return sorted[rank - 1];
}

void cb_stats_compute(double *samples, size_t n, cb_iter_stats *out) {
  memset(out, 0, sizeof *out);
  if (n == 0) return;
  qsort(samples, n, sizeof *samples, cmp_double);
  double sum = 0, sq = 0;
  for (size_t i = 0; i < n; i++) sum += samples[i];
  double mean = sum / (double)n;
  for (size_t i = 0; i < n; i++) sq += (samples[i] - mean) * (samples[i] - mean);
  out->samples = (int)n;
  out->min_us = samples[0];
  out->max_us = samples[n - 1];
  out->p50_us = nearest_rank(samples, n, 50.0);
  out->p95_us = nearest_rank(samples, n, 95.0);
  out->p99_us = nearest_rank(samples, n, 99.0);
  out->avg_us = mean;
  out->stdev_us = sqrt(sq / (double)n);
  out->cv_pct = mean > 0 ? 100.0 * out->stdev_us / mean : 0.0;
}
