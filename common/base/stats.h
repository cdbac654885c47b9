/* Per-iteration timing statistics (-I). */
#ifndef CB_STATS_H
#define CB_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int samples;
  double min_us, p50_us, p99_us, max_us;
  double cv_pct;         /* standard deviation / mean, in percent */
  double avg_us, p95_us; /* the mean, and the nearest-rank 95th percentile */
  double stdev_us;       /* population standard deviation (divided by n), as nccl-tests */
} cb_iter_stats;

/* Computes the statistics of n samples (microseconds); sorts samples in
 * place. Percentiles are nearest-rank, so p99 of fewer than 100 samples
 * may equal the maximum (nccl-tests' p95 and p99 are the same; its p50 of
 * an even count is the upper of the two middle samples, ours the lower). */
void cb_stats_compute(double *samples, size_t n, cb_iter_stats *out);

#ifdef __cplusplus
}
#endif

#endif
