#define _GNU_SOURCE /* nanosleep, sched_yield */
#include "gpu.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cuda_check.h"
#include "error.h"

int cb_gpu_for_local_rank(int i, int visible, int shared) {
  return shared ? i % visible : i;
}

/* Whether any NVIDIA driver is installed: the runtime reports driver
 * version 0 when none is (and "insufficient driver" for both cases). */
static int driver_installed(void) {
  int version = 0;
  return cudaDriverGetVersion(&version) == cudaSuccess && version > 0;
}

const char *cb_gpu_count(int *n) {
  *n = 0;
  cudaError_t rc = cudaGetDeviceCount(n);
  if (rc == cudaErrorInsufficientDriver && !driver_installed()) {
    *n = 0;
    return "no CUDA device visible (no NVIDIA driver found)";
  }
  if (rc != cudaSuccess) {
    static char why[160];
    *n = 0;
    snprintf(why, sizeof why, "no CUDA device visible (cudaGetDeviceCount: %s)",
             cudaGetErrorString(rc));
    return why;
  }
  return *n == 0 ? "no CUDA device visible (cudaGetDeviceCount: 0 devices)" : NULL;
}

void cb_gpu_check_layout(int visible, int ranks_per_proc, int local_nprocs, const char *host) {
  if (local_nprocs == 1 && ranks_per_proc > visible)
    cb_fatal("each process drives -t x -g = %d GPUs, but only %d %s visible", ranks_per_proc,
             visible, visible == 1 ? "is" : "are");
  if (local_nprocs > 1 && local_nprocs * ranks_per_proc > visible)
    cb_fatal("%d processes on host %s with %d GPU%s each need %d GPUs, but only %d %s visible",
             local_nprocs, host, ranks_per_proc, ranks_per_proc == 1 ? "" : "s",
             local_nprocs * ranks_per_proc, visible, visible == 1 ? "is" : "are");
}

void cb_gpu_describe(int device, cb_device_info *out) {
  struct cudaDeviceProp p;
  CB_CUDA(cudaGetDeviceProperties(&p, device));
  out->device = device;
  out->pid = (int)getpid();
  snprintf(out->pci, sizeof out->pci, "%04x:%02x:%02x", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  snprintf(out->name, sizeof out->name, "%s", p.name);
}

/* The host waits a little longer than a kernel's own bounded spins, so that
 * a kernel waiting for a lost peer reports first, naming the peer. */
#define CB_HOST_GRACE_S 5

/* Polls query(arg) (a stream's or an event's) until it is done, bounded by
 * timeout_s plus the grace; call names it in a CUDA error. */
static void wait_until_done(cudaError_t (*query)(void *), void *arg, const char *call,
                            int timeout_s, const char *what) {
  double start = cb_monotonic_s();
  for (long spins = 0;; spins++) {
    cudaError_t rc = query(arg);
    if (rc == cudaSuccess) return;
    if (rc != cudaErrorNotReady) cb_die(__FILE__, __LINE__, call, cudaGetErrorString(rc));
    if (cb_monotonic_s() - start > timeout_s + CB_HOST_GRACE_S)
      cb_fatal("timed out after %d s (-T, plus %d s) waiting for %s", timeout_s, CB_HOST_GRACE_S,
               what);
    /* Spin briefly for short waits, then stop burning a core that other
     * ranks' host threads may need. */
    if (spins < 1000) {
      sched_yield();
    } else {
      struct timespec ns = {0, 20000};
      nanosleep(&ns, NULL);
    }
  }
}

static cudaError_t query_stream(void *s) {
  return cudaStreamQuery((cudaStream_t)s);
}
static cudaError_t query_event(void *e) {
  return cudaEventQuery((cudaEvent_t)e);
}

void cb_gpu_wait(cudaStream_t stream, int timeout_s, const char *what) {
  wait_until_done(query_stream, (void *)stream, "cudaStreamQuery", timeout_s, what);
}

void cb_gpu_wait_event(cudaEvent_t event, int timeout_s, const char *what) {
  wait_until_done(query_event, (void *)event, "cudaEventQuery", timeout_s, what);
}
