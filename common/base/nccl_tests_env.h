/* nccl-tests' environment variables, read as nccl-tests 2.19.6 reads them
 * (its README, "Running multiple operations in parallel", and
 * src/common.cu), but strictly: a value nccl-tests would quietly read as
 * something else (an unknown operation, "7abc", a device "x") or fail on
 * (MOD 0) is refused with one line. Each parser takes the variable's value
 * (NULL when unset), so it is tested without an environment.
 *
 *   NCCL_TESTS_SPLIT_MASK  "0x7": color = process & value (hexadecimal)
 *   NCCL_TESTS_SPLIT       "<op><value>": op AND OR MOD DIV (or & | % /,
 *                          any case), value decimal, 0x hexadecimal, 0b
 *                          binary or 0-prefixed octal; the mask wins
 *   NCCL_TESTS_DEVICE      the first CUDA device of every process's ranks
 *   NCCL_TESTS_MIN_BW      GB/s: the run fails when its average bus
 *                          bandwidth is below 90% of it */
#ifndef CB_NCCL_TESTS_ENV_H
#define CB_NCCL_TESTS_ENV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The color of MPI process proc under NCCL_TESTS_SPLIT_MASK (mask) and
 * NCCL_TESTS_SPLIT (split): processes of one color run the test together,
 * as one group. Both unset: color 0 for all. Returns NULL with *color set,
 * or why the value is refused (in buf, len bytes). */
const char *cb_env_split_color(const char *split, const char *mask, int proc, int *color, char *buf,
                               size_t len);

/* NCCL_TESTS_DEVICE: *device = -1 when unset (or -1, nccl-tests' "unset"),
 * else the first device. Returns NULL, or why the value is refused. */
const char *cb_env_first_device(const char *value, int *device, char *buf, size_t len);

/* NCCL_TESTS_MIN_BW: *gbps = -1 when unset (or -1, nccl-tests' "unchecked"),
 * else the threshold in GB/s. Returns NULL, or why the value is refused. */
const char *cb_env_min_bw(const char *value, double *gbps, char *buf, size_t len);

/* nccl-tests' gate: whether avg (GB/s; NAN when nothing was measured) fails
 * the threshold min_bw (-1: unchecked): below 90% of it, as nccl-tests
 * allows 10%. Nothing measured fails any threshold. */
int cb_min_bw_failed(double avg, double min_bw);

#ifdef __cplusplus
}
#endif

#endif
