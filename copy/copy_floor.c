/* The floor's CPU side (copy_floor.h): starts the echo kernel, times -n
 * round trips after the warm-up, stops it. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "copy_floor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cuda_check.h"
#include "error.h"
#include "gpu.h" /* cb_gpu_wait */
#include "host_poll.h"
#include "post_gap.h"
#include "stats.h"

/* Polls pong until it holds trip, bounded (cb_host_poll_tick). */
static void wait_echo(const cb_floor_words *w, uint32_t trip, cudaStream_t s, int device,
                      int timeout_s) {
  cb_host_poll poll = {0, 0};
  /* Acquire, as llhost's CPU side polls; on x86 a plain load. */
  while (__atomic_load_n(&w->pong, __ATOMIC_ACQUIRE) != trip) {
    cb_poll_state state = cb_host_poll_tick(&poll, s, timeout_s);
    if (state == CB_POLL_KERNEL_ENDED)
      cb_fatal("the floor's echo kernel on device %d ended before trip %u", device, trip);
    if (state == CB_POLL_TIMED_OUT)
      cb_fatal("the floor's echo kernel on device %d: timed out after %d s waiting for trip %u",
               device, timeout_s, trip);
  }
}

void cb_copy_floor_measure(int device, int rank, int trips, int warmup, int post_gap_ns,
                           int timeout_s, cb_copy_floor *out) {
  memset(out, 0, sizeof *out);
  if (trips < 1) return;
  cb_floor_words *w, *w_dev;
  /* Mapped pinned memory, as llhost's control words. */
  CB_CUDA(cudaHostAlloc((void **)&w, sizeof *w, cudaHostAllocMapped | cudaHostAllocPortable));
  memset(w, 0, sizeof *w);
  CB_CUDA(cudaHostGetDevicePointer((void **)&w_dev, w, 0));
  cudaStream_t s;
  CB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  double *samples = malloc((size_t)trips * sizeof *samples);
  if (!samples) cb_fatal("out of host memory");
  cb_copy_floor_launch(w_dev, rank, (uint64_t)timeout_s * 1000000000ull, s);
  /* One untimed trip even with -w 0: the first waits for the kernel's start. */
  if (warmup < 1) warmup = 1;
  cb_post_gap gap;
  cb_post_gap_init(&gap, (uint32_t)post_gap_ns, CB_POST_GAP_SEED);
  for (int i = 0; i < warmup + trips; i++) {
    uint32_t trip = (uint32_t)i + 1;
    cb_post_gap_wait(&gap);
    double t0 = cb_monotonic_s();
    /* Release, as llhost's flags; on x86 a plain store. */
    __atomic_store_n(&w->ping, trip, __ATOMIC_RELEASE);
    wait_echo(w, trip, s, device, timeout_s);
    if (i >= warmup) samples[i - warmup] = 1e6 * (cb_monotonic_s() - t0);
  }
  __atomic_store_n(&w->ping, CB_FLOOR_STOP, __ATOMIC_RELEASE);
  char what[96];
  snprintf(what, sizeof what, "the floor's echo kernel on device %d to stop", device);
  cb_gpu_wait(s, timeout_s, what);
  cb_iter_stats stats;
  cb_stats_compute(samples, (size_t)trips, &stats);
  free(samples);
  CB_CUDA(cudaStreamDestroy(s));
  CB_CUDA(cudaFreeHost(w));
  out->ran = 1;
  out->trips = trips;
  out->p50_us = stats.p50_us;
  out->p99_us = stats.p99_us;
}
