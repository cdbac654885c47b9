/* A CPU loop that polls host memory written by a resident kernel, bounded:
 * llhost's CPU side and copy_perf's floor wait this way. Call
 * cb_host_poll_tick once a poll, from a zeroed cb_host_poll. Every 65536th
 * call (a poll hits the CPU's cache until the GPU writes the line: some
 * 100 us between checks, rare enough that a wait of a few microseconds
 * never pays for it) it asks whether the kernel on `stream` still runs and
 * whether timeout_s has passed, plus 2 s so that a kernel that gave up says
 * why first. The caller names what it waited for in its own message; a
 * CUDA error ends the run here. */
#ifndef CB_HOST_POLL_H
#define CB_HOST_POLL_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint32_t iters;
  double start;
} cb_host_poll;

typedef enum { CB_POLL_GOING, CB_POLL_KERNEL_ENDED, CB_POLL_TIMED_OUT } cb_poll_state;

cb_poll_state cb_host_poll_tick(cb_host_poll *p, cudaStream_t stream, int timeout_s);

#ifdef __cplusplus
}
#endif

#endif
