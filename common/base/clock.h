/* The host's monotonic clock, in seconds. */
#ifndef CB_CLOCK_H
#define CB_CLOCK_H

#include <time.h>

static inline double cb_monotonic_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
