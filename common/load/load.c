#include "load.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "error.h"
#include "gpu.h"
#include "load_parts.h"
#include "sizes.h"

/* Memory left free beside a load's operands, for the harness's buffers to
 * be checked against and for NCCL and CUDA. */
#define LOAD_HEADROOM (256ull << 20)

struct cb_load {
  int kind;
  uint64_t size;
  cudaStream_t stream;
  cb_load_gemm *gemm;
  void *src, *dst; /* mem: the copy's; fma: dst is the sink */
  unsigned blocks; /* fma, mem: CB_LOAD_WAVES times the blocks the GPU holds at once */
  double work;     /* flop or bytes a unit */
  size_t bytes;    /* device memory held */
  cudaEvent_t alone[2];
  double unit_us;     /* a unit's time alone, once cb_load_rate_alone has run */
  int timeout_s;      /* -T, from cb_load_rate_alone */
  cudaEvent_t *marks; /* cb_load_start's, nmarks created */
  int nmarks, started;
};

/* Device memory the load will hold. */
static size_t bytes_needed(int kind, uint64_t size, unsigned blocks) {
  switch (kind) {
  case CB_LOAD_GEMM:
    return 3 * (size_t)size * (size_t)size * 2;
  case CB_LOAD_FMA:
    return (size_t)blocks * CB_LOAD_THREADS * sizeof(float);
  case CB_LOAD_MEM:
    return 2 * (size_t)size;
  default:
    return 0;
  }
}

static void check_memory(int kind, uint64_t size, size_t need, int device) {
  size_t free_b, total_b;
  CB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (need + LOAD_HEADROOM <= free_b) return;
  char need_s[32], free_s[32];
  cb_format_bytes(need, need_s, sizeof need_s);
  cb_format_bytes(free_b, free_s, sizeof free_s);
  cb_fatal("--overlap %s --overlap_size %" PRIu64 " needs %s of device memory on device %d, "
           "which has %s free: give a smaller --overlap_size",
           cb_load_name(kind), size, need_s, device, free_s);
}

cb_load *cb_load_create(int kind, uint64_t size) {
  const char *why = cb_load_unavailable(kind);
  if (why || kind <= CB_LOAD_NONE || kind >= CB_NUM_LOADS)
    cb_fatal("the %s load cannot run: %s", cb_load_name(kind), why ? why : "no such load");
  cb_load *l = calloc(1, sizeof *l);
  if (!l) cb_fatal("out of host memory");
  int device = 0, sms = 0;
  CB_CUDA(cudaGetDevice(&device));
  CB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  l->kind = kind;
  l->size = size;
  if (kind != CB_LOAD_GEMM)
    l->blocks = (unsigned)(sms * cb_load_kernel_per_sm(kind == CB_LOAD_FMA) * CB_LOAD_WAVES);
  l->bytes = bytes_needed(kind, size, l->blocks);
  check_memory(kind, size, l->bytes, device);
  CB_CUDA(cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking));
  for (int i = 0; i < 2; i++) CB_CUDA(cudaEventCreate(&l->alone[i]));
  switch (kind) {
  case CB_LOAD_GEMM:
    l->gemm = cb_load_gemm_create((int)size, l->stream);
    l->work = 2.0 * (double)size * (double)size * (double)size;
    break;
  case CB_LOAD_FMA:
    CB_CUDA(cudaMalloc(&l->dst, l->bytes));
    l->work = 2.0 * (double)size * l->blocks * CB_LOAD_THREADS;
    break;
  case CB_LOAD_MEM:
    CB_CUDA(cudaMalloc(&l->src, size));
    CB_CUDA(cudaMalloc(&l->dst, size));
    cb_load_fill(l->src, size / 4, 0, l->stream);
    l->work = 2.0 * (double)size;
    break;
  }
  CB_CUDA(cudaStreamSynchronize(l->stream));
  return l;
}

void cb_load_destroy(cb_load *l) {
  if (!l) return;
  CB_CUDA(cudaStreamSynchronize(l->stream));
  if (l->gemm) cb_load_gemm_destroy(l->gemm);
  if (l->src) CB_CUDA(cudaFree(l->src));
  if (l->dst) CB_CUDA(cudaFree(l->dst));
  for (int i = 0; i < 2; i++) CB_CUDA(cudaEventDestroy(l->alone[i]));
  for (int i = 0; i < l->nmarks; i++) CB_CUDA(cudaEventDestroy(l->marks[i]));
  free(l->marks);
  CB_CUDA(cudaStreamDestroy(l->stream));
  free(l);
}

/* One unit on the load's stream. */
static void enqueue_unit(cb_load *l) {
  switch (l->kind) {
  case CB_LOAD_GEMM:
    cb_load_gemm_run(l->gemm);
    break;
  case CB_LOAD_FMA:
    cb_load_fma_launch((float *)l->dst, l->blocks, l->size, l->stream);
    break;
  case CB_LOAD_MEM:
    cb_load_mem_launch(l->src, l->dst, l->size, l->blocks, l->stream);
    break;
  }
}

static double elapsed_us(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CB_CUDA(cudaEventElapsedTime(&ms, a, b));
  return 1000.0 * ms;
}

double cb_load_rate_alone(cb_load *l, int units, int timeout_s, const char *what, double *unit_us) {
  enqueue_unit(l); /* warm-up: cuBLAS picks its kernel, clocks rise */
  CB_CUDA(cudaEventRecord(l->alone[0], l->stream));
  for (int i = 0; i < units; i++) enqueue_unit(l);
  CB_CUDA(cudaEventRecord(l->alone[1], l->stream));
  cb_gpu_wait(l->stream, timeout_s, what);
  const double us = elapsed_us(l->alone[0], l->alone[1]);
  *unit_us = us / units;
  l->unit_us = *unit_us;
  l->timeout_s = timeout_s;
  return us > 0 ? units * l->work / (us * 1e-6) / cb_load_rate_scale(l->kind) : 0;
}

static void ensure_marks(cb_load *l, int n) {
  if (n <= l->nmarks) return;
  cudaEvent_t *m = realloc(l->marks, (size_t)n * sizeof *m);
  if (!m) cb_fatal("out of host memory");
  l->marks = m;
  for (int i = l->nmarks; i < n; i++) CB_CUDA(cudaEventCreate(&l->marks[i]));
  l->nmarks = n;
}

void cb_load_start(cb_load *l, int units) {
  if (units < 1 || units > CB_LOAD_MAX_UNITS)
    cb_fatal("a load of %d units: 1 to %d", units, CB_LOAD_MAX_UNITS);
  char why[256];
  if (cb_load_span_problem(l->kind, units, l->unit_us, l->timeout_s, why, sizeof why))
    cb_fatal("%s", why);
  ensure_marks(l, units + 1);
  CB_CUDA(cudaEventRecord(l->marks[0], l->stream));
  for (int i = 1; i <= units; i++) {
    enqueue_unit(l);
    CB_CUDA(cudaEventRecord(l->marks[i], l->stream));
  }
  l->started = units;
}

/* Waits for the units started last, then gives the marks' times, in us
 * from the first mark, into marks_us (units + 1 of them), and begin and
 * end, events of another stream of the device, on the same clock. Those
 * two are waited for on their own: their stream's work is not the load's,
 * and an event not yet reached makes cudaEventElapsedTime fail (not
 * ready), which the load's end says nothing of when the load ended first. */
static void finish(cb_load *l, cudaEvent_t begin, cudaEvent_t end, int timeout_s, const char *what,
                   double *marks_us, double *begin_us, double *end_us) {
  cb_gpu_wait(l->stream, timeout_s, what);
  cb_gpu_wait_event(begin, timeout_s, what);
  cb_gpu_wait_event(end, timeout_s, what);
  marks_us[0] = 0;
  for (int i = 1; i <= l->started; i++) marks_us[i] = elapsed_us(l->marks[0], l->marks[i]);
  *begin_us = elapsed_us(l->marks[0], begin);
  *end_us = elapsed_us(l->marks[0], end);
}

void cb_load_beside_open(cb_load_beside *b, int kind, uint64_t size) {
  memset(b, 0, sizeof *b);
  if (kind == CB_LOAD_NONE) return;
  b->load = cb_load_create(kind, size);
  for (int i = 0; i < 2; i++) CB_CUDA(cudaEventCreate(&b->window[i]));
  CB_CUDA(cudaStreamCreateWithFlags(&b->idle, cudaStreamNonBlocking));
  b->units = 3;
}

void cb_load_beside_close(cb_load_beside *b) {
  if (!b->load) return;
  for (int i = 0; i < 2; i++) CB_CUDA(cudaEventDestroy(b->window[i]));
  CB_CUDA(cudaStreamDestroy(b->idle));
  cb_load_destroy(b->load);
  b->load = NULL;
}

void cb_load_beside_read(cb_load_beside *b, int units, int timeout_s, const char *what,
                         cb_load_window *w) {
  double *marks = malloc(((size_t)units + 1) * sizeof *marks), begin, end;
  if (!marks) cb_fatal("out of host memory");
  finish(b->load, b->window[0], b->window[1], timeout_s, what, marks, &begin, &end);
  cb_load_window_of(marks, units, begin, end, b->load->work, cb_load_rate_scale(b->load->kind), w);
  free(marks);
}

void cb_load_beside_validation_begin(cb_load_beside *b) {
  if (b->load) cb_load_start(b->load, b->units);
}

void cb_load_beside_validation_end(cb_load_beside *b, int timeout_s, const char *what) {
  if (b->load) cb_gpu_wait(b->load->stream, timeout_s, what);
}
