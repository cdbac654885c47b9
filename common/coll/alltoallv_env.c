#include "alltoallv_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* nccl-tests' default: fully distance-weighted. Written once, by the
 * process's main thread, before any rank thread starts. */
static double spread = 1.0;

double cb_alltoallv_spread(void) {
  return spread;
}

/* Set to anything but a whole number 0: nccl-tests reads atoi(value) != 0. */
static int switched_on(const char *v) {
  return v && atoi(v) != 0;
}

const char *cb_alltoallv_environment(char *err, size_t len) {
  const char *matrix = getenv("NCCL_TESTS_ALLTOALLV_MATRIX_FILE");
  if (matrix) {
    snprintf(err, len,
             "NCCL_TESTS_ALLTOALLV_MATRIX_FILE=%s: collbench does not read traffic matrices yet; "
             "unset it for nccl-tests' generated pattern (NCCL_TESTS_ALLTOALLV_SPREAD)",
             matrix);
    return err;
  }
  if (switched_on(getenv("NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY"))) {
    snprintf(err, len,
             "NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: collbench does not print per-rank alltoallv "
             "summaries yet; every rank sends and receives the same bytes in the generated "
             "pattern, so the table's row is each rank's");
    return err;
  }
  const char *s = getenv("NCCL_TESTS_ALLTOALLV_SPREAD");
  if (!s) return NULL;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end != '\0' || !(v >= 0.0 && v <= 1.0)) {
    snprintf(err, len,
             "NCCL_TESTS_ALLTOALLV_SPREAD='%s': the spread is a number from 0 (uniform) to 1 "
             "(fully distance-weighted)",
             s);
    return err;
  }
  spread = v;
  return NULL;
}
