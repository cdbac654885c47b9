/* The host's clocks: the monotonic one in seconds, and the local time as
 * nccl-tests prints it (its -S column, its JSON's start and end times). */
#ifndef CB_CLOCK_H
#define CB_CLOCK_H

#include <time.h>

static inline double cb_monotonic_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* nccl-tests' TIME_STRING_FORMAT. */
#define CB_LOCAL_TIME_FORMAT "%Y-%m-%d %H:%M:%S"

/* The local time now, "2026-01-02 03:04:05" (len >= 20). localtime_r is
 * POSIX: the includer defines _POSIX_C_SOURCE (or _GNU_SOURCE) first. */
static inline void cb_local_time(char *buf, size_t len) {
  time_t now = time(NULL);
  struct tm tm;
  strftime(buf, len, CB_LOCAL_TIME_FORMAT, localtime_r(&now, &tm));
}

#endif
