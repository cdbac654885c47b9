/* The harness: everything a test program does, given its collective's shape. */
#ifndef CB_RUNNER_H
#define CB_RUNNER_H

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collects the kernels registered for shape (registry.h), parses options,
 * sets up the world and GPUs, runs the sweep for every selected kernel,
 * writes the report sinks. Returns the process exit code: 0, or 1 on bad
 * input, a failure or any wrong value. */
int cb_main(const cb_coll_shape *shape, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
