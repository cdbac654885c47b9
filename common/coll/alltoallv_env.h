/* alltoallv_perf's own environment, nccl-tests 2.19.6's names:
 *   NCCL_TESTS_ALLTOALLV_SPREAD         the pattern's spread, 0..1 (1: fully
 *                                       distance-weighted, 0: uniform)
 *   NCCL_TESTS_ALLTOALLV_MATRIX_FILE    a traffic matrix instead of the pattern
 *   NCCL_TESTS_ALLTOALLV_MATRIX_SCALE   its scale
 *   NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY  per-rank bandwidth lines
 * Read once, before any rank starts. A spread that is not a number in 0..1
 * is refused (nccl-tests clamps it, or ignores it, silently); the matrix
 * mode and the per-rank summary are refused with the reason (not built yet),
 * so a script that sets them never gets numbers of another pattern. */
#ifndef CB_ALLTOALLV_ENV_H
#define CB_ALLTOALLV_ENV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NULL when the environment is usable (the spread is then read), else why
 * not, in err (len bytes). */
const char *cb_alltoallv_environment(char *err, size_t len);

/* The spread the environment set (1 until cb_alltoallv_environment read it). */
double cb_alltoallv_spread(void);

#ifdef __cplusplus
}
#endif

#endif
