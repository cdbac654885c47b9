/* The load beside a measurement (common/load/load.c) reads the times of
 * events of two streams: its own marks, and the window's begin and end,
 * which a measurement records on another stream (copy_perf's --overlap
 * records them on the load's idle stream, copy/copy_overlap.c). CUDA's
 * rule, stood in for here: cudaEventElapsedTime fails (not ready) on an
 * event whose record the GPU has not reached, and only a wait on that
 * event, or on the stream it was recorded on, says it has. So the read
 * must wait for the window's events themselves, not only for the load's
 * stream. The real load.c is linked as is; CUDA's calls and the load's
 * kernels are stood in for below (no libcudart). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "load.h"
#include "load_options.h"
#include "load_parts.h"

/* ---- the stand-ins ------------------------------------------------------------ */

enum { MAX_EVENTS = 64 };

typedef struct {
  cudaStream_t on; /* the stream its last record was made on */
  long at;         /* when the GPU reaches it, in records made */
  int reached;     /* the host has waited for it, or for its stream */
} fake_event;

static fake_event events[MAX_EVENTS];
static int nevents;
static long records;
static uintptr_t nstreams;

cudaError_t cudaEventCreate(cudaEvent_t *e) {
  if (nevents == MAX_EVENTS) return cudaErrorMemoryAllocation;
  *e = (cudaEvent_t)(void *)&events[nevents++];
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  (void)e;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  fake_event *f = (fake_event *)(void *)e;
  f->on = s;
  f->at = ++records;
  f->reached = 0;
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  const fake_event *x = (const fake_event *)(void *)a, *y = (const fake_event *)(void *)b;
  if (!x->reached || !y->reached) return cudaErrorNotReady;
  *ms = (float)(y->at - x->at);
  return cudaSuccess;
}

/* Everything recorded on s is reached. */
static void reach_stream(cudaStream_t s) {
  for (int i = 0; i < nevents; i++)
    if (events[i].on == s) events[i].reached = 1;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  reach_stream(s);
  return cudaSuccess;
}
void cb_gpu_wait(cudaStream_t s, int timeout_s, const char *what) {
  (void)timeout_s, (void)what;
  reach_stream(s);
}
void cb_gpu_wait_event(cudaEvent_t e, int timeout_s, const char *what) {
  (void)timeout_s, (void)what;
  ((fake_event *)(void *)e)->reached = 1;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
  (void)flags;
  *s = (cudaStream_t)(++nstreams * 64);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  (void)s;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int *d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d) {
  (void)a, (void)d;
  *v = 132;
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total_b) {
  *free_b = *total_b = (size_t)80 << 30;
  return cudaSuccess;
}
cudaError_t cudaMalloc(void **p, size_t n) {
  *p = malloc(n ? n : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e) {
  return e == cudaErrorNotReady ? "device not ready" : "stand-in error";
}

/* The load's kernels: nothing runs, so a unit is only its marks. */
int cb_load_kernel_per_sm(int fma) {
  (void)fma;
  return 4;
}
void cb_load_fill(void *p, size_t n, int bf16, cudaStream_t s) {
  (void)p, (void)n, (void)bf16, (void)s;
}
void cb_load_fma_launch(float *sink, unsigned blocks, uint64_t fmas, cudaStream_t s) {
  (void)sink, (void)blocks, (void)fmas, (void)s;
}
void cb_load_mem_launch(const void *src, void *dst, size_t bytes, unsigned blocks, cudaStream_t s) {
  (void)src, (void)dst, (void)bytes, (void)blocks, (void)s;
}
cb_load_gemm *cb_load_gemm_create(int n, cudaStream_t s) {
  (void)n, (void)s;
  return NULL;
}
void cb_load_gemm_run(cb_load_gemm *g) {
  (void)g;
}
void cb_load_gemm_destroy(cb_load_gemm *g) {
  (void)g;
}
const char *cb_load_gemm_unavailable(void) {
  return "not in this test";
}

/* ---- the test ------------------------------------------------------------------- */

/* As copy_perf's --overlap measures: the load's units started, the
 * window's begin and end recorded on the idle stream around the copies,
 * then the window read. Nothing has waited for the idle stream. */
static void test_window_events_are_waited_for(void) {
  cb_load_beside b;
  cb_load_beside_open(&b, CB_LOAD_FMA, cb_load_default_size(CB_LOAD_FMA));
  double unit_us = 0;
  cb_load_rate_alone(b.load, 2, 60, "the load alone", &unit_us);
  cb_load_start(b.load, 3);
  CHECK(cudaEventRecord(b.window[0], b.idle) == cudaSuccess);
  CHECK(cudaEventRecord(b.window[1], b.idle) == cudaSuccess);
  cb_load_window w;
  memset(&w, 0, sizeof w);
  cb_load_beside_read(&b, 3, 60, "the window", &w); /* a CUDA error ends the test here */
  const fake_event *begin = (const fake_event *)(void *)b.window[0];
  CHECKF(begin->reached, "the window's begin was read without a wait for it");
  cb_load_beside_close(&b);
}

int main(void) {
  test_window_events_are_waited_for();
  return check_summary();
}
