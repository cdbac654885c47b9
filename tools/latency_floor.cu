/* latency_floor: what bounds a small all-reduce's time in graph mode.
 *
 *   latency_floor [-n ITERS] [-G LAUNCHES]   (-h: the options)
 *
 * On GPUs 0 and 1 (one process, peer access), each probe is captured as
 * ITERS kernel nodes in a CUDA graph per GPU, the graph launched LAUNCHES
 * times on both GPUs at once, and the time per kernel reported (the slower
 * GPU's), as all_reduce_perf -G does:
 *   empty      an empty kernel (1 block of 32 threads): the cost of one
 *              kernel node after another, nothing else;
 *   store      one 8-byte store into the peer's memory, no wait: adds the
 *              drain of a remote store at kernel end;
 *   ping/32    one LL8 packet (data + epoch in one 8-byte store) to the peer,
 *              then poll for the peer's packet: the least a one-shot LL
 *              exchange can do, 1 block of 32 threads;
 *   ping/512   the same with 1 block of 512 threads (one of them exchanges),
 *              the LL kernel's block size.
 * Every wait is bounded (5 s, then trap). Not a test: a measurement tool,
 * run on a GPU node; its output belongs in a record's raw/ (docs/qualify.md),
 * like the programs'. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "latency_floor: %s:%d: %s: %s\n", __FILE__, __LINE__, #x,                    \
              cudaGetErrorString(e_));                                                             \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

enum { P_EMPTY, P_STORE, P_PING };

typedef struct {
  uint2 *peer_slots; /* the peer's two packet slots (by epoch parity) */
  uint2 *my_slots;
  uint32_t *epoch; /* this GPU's call counter */
  int probe;
} probe_args;

__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void probe_kernel(probe_args a) {
  if (a.probe == P_EMPTY || threadIdx.x != 0) return;
  uint32_t e = *a.epoch + 1;
  /* data and flag in one 8-byte store: the reader needs no fence */
  asm volatile("st.volatile.global.v2.u32 [%0], {%1,%2};" ::"l"(a.peer_slots + (e & 1)), "r"(e),
               "r"(e)
               : "memory");
  if (a.probe == P_PING) {
    uint64_t start = now_ns();
    for (;;) {
      uint32_t f;
      asm volatile("ld.volatile.global.v2.u32 {_,%0}, [%1];"
                   : "=r"(f)
                   : "l"(a.my_slots + (e & 1))
                   : "memory");
      if (f == e) break;
      if (now_ns() - start > 5000000000ull) {
        printf("latency_floor: timed out waiting for the peer (epoch %u)\n", e);
        __trap();
      }
    }
  }
  *a.epoch = e;
}

typedef struct {
  cudaStream_t stream;
  cudaGraphExec_t exec;
  cudaEvent_t t0, t1;
  uint2 *slots;
  uint32_t *epoch;
} gpu;

static double run_probe(gpu g[2], int probe, int threads, int iters, int launches) {
  for (int d = 0; d < 2; d++) {
    CHECK(cudaSetDevice(d));
    probe_args a = {g[1 - d].slots, g[d].slots, g[d].epoch, probe};
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(g[d].stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < iters; i++) probe_kernel<<<1, threads, 0, g[d].stream>>>(a);
    CHECK(cudaStreamEndCapture(g[d].stream, &graph));
    CHECK(cudaGraphInstantiate(&g[d].exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
  }
  for (int warm = 0; warm < 2; warm++) { /* once to warm up, once timed */
    for (int d = 0; d < 2; d++) {
      CHECK(cudaSetDevice(d));
      CHECK(cudaEventRecord(g[d].t0, g[d].stream));
      for (int l = 0; l < (warm ? launches : 2); l++)
        CHECK(cudaGraphLaunch(g[d].exec, g[d].stream));
      CHECK(cudaEventRecord(g[d].t1, g[d].stream));
    }
    for (int d = 0; d < 2; d++) {
      CHECK(cudaSetDevice(d));
      CHECK(cudaStreamSynchronize(g[d].stream));
    }
  }
  double worst = 0;
  for (int d = 0; d < 2; d++) {
    float ms;
    CHECK(cudaSetDevice(d));
    CHECK(cudaEventElapsedTime(&ms, g[d].t0, g[d].t1));
    double us = ms * 1e3 / ((double)iters * launches);
    if (us > worst) worst = us;
    CHECK(cudaGraphExecDestroy(g[d].exec));
  }
  return worst;
}

static void usage(FILE *out) {
  fprintf(out, "usage: latency_floor [-n ITERS] [-G LAUNCHES]\n"
               "  -n ITERS     kernel nodes in each probe's CUDA graph (20)\n"
               "  -G LAUNCHES  launches of each graph on both GPUs (100)\n"
               "  -h, --help   this text\n"
               "On GPUs 0 and 1, the time per kernel of an empty kernel, one remote store, and\n"
               "a one-shot LL8 ping-pong with 32 and 512 threads (the slower GPU's).\n");
}

/* A whole number >= 1 (and no larger than an int) into *out, or -1. */
static int count_arg(const char *text, int *out) {
  char *end;
  long v = strtol(text, &end, 10);
  if (!*text || *end || v < 1 || v > 1 << 30) return -1;
  *out = (int)v;
  return 0;
}

int main(int argc, char **argv) {
  int iters = 20, launches = 100;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    if (strcmp(a, "-n") && strcmp(a, "-G")) {
      fprintf(stderr, "latency_floor: unknown option '%s' (-h lists the options)\n", a);
      return 2;
    }
    if (i + 1 == argc) {
      fprintf(stderr, "latency_floor: option '%s' needs a value\n", a);
      return 2;
    }
    const char *v = argv[++i];
    if (count_arg(v, !strcmp(a, "-n") ? &iters : &launches)) {
      fprintf(stderr, "latency_floor: bad %s '%s': expected a whole number >= 1\n", a, v);
      return 2;
    }
  }
  int ndev = 0;
  CHECK(cudaGetDeviceCount(&ndev));
  if (ndev < 2) {
    fprintf(stderr, "latency_floor: needs 2 GPUs, %d visible\n", ndev);
    return 1;
  }
  gpu g[2];
  for (int d = 0; d < 2; d++) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaDeviceEnablePeerAccess(1 - d, 0));
    CHECK(cudaStreamCreateWithFlags(&g[d].stream, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&g[d].t0));
    CHECK(cudaEventCreate(&g[d].t1));
    CHECK(cudaMalloc((void **)&g[d].slots, 2 * sizeof(uint2)));
    CHECK(cudaMemset(g[d].slots, 0, 2 * sizeof(uint2)));
    CHECK(cudaMalloc((void **)&g[d].epoch, sizeof(uint32_t)));
    CHECK(cudaMemset(g[d].epoch, 0, sizeof(uint32_t)));
    CHECK(cudaDeviceSynchronize());
  }
  printf("# latency_floor: GPUs 0 and 1, graph of %d kernels launched %d times; us per kernel "
         "(slower GPU)\n",
         iters, launches);
  printf("%-10s %8s\n", "probe", "us");
  printf("%-10s %8.2f\n", "empty", run_probe(g, P_EMPTY, 32, iters, launches));
  printf("%-10s %8.2f\n", "store", run_probe(g, P_STORE, 32, iters, launches));
  printf("%-10s %8.2f\n", "ping/32", run_probe(g, P_PING, 32, iters, launches));
  printf("%-10s %8.2f\n", "ping/512", run_probe(g, P_PING, 512, iters, launches));
  return 0;
}
