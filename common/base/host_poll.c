#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#include "host_poll.h"

#include "clock.h"
#include "error.h"

cb_poll_state cb_host_poll_tick(cb_host_poll *p, cudaStream_t stream, int timeout_s) {
  if ((++p->iters & 65535u) != 0) return CB_POLL_GOING;
  double now = cb_monotonic_s();
  if (p->start == 0) p->start = now;
  cudaError_t rc = cudaStreamQuery(stream);
  if (rc == cudaSuccess) return CB_POLL_KERNEL_ENDED;
  if (rc != cudaErrorNotReady)
    cb_die(__FILE__, __LINE__, "cudaStreamQuery", cudaGetErrorString(rc));
  return now - p->start > timeout_s + 2 ? CB_POLL_TIMED_OUT : CB_POLL_GOING;
}
