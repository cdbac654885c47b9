/* coresident: can grids of several streams of one process, each waiting for
 * all the others, all be resident on one GPU at once?
 *
 *   coresident -s STREAMS [-p PERMILLE | -b BLOCKS] [-t THREADS] [-m SMEM]
 *              [-i ROUNDS] [-G] [-F]
 *
 * This is what ranks sharing a GPU (CB_SHARE_GPUS=1) ask of it: each rank's
 * kernel spins until its peers' kernels, launched from other streams, have
 * run. Each of STREAMS host threads drives its own stream on GPU 0 and
 * launches ROUNDS meet kernels back to back, with no host wait: every block
 * adds one to an arrival counter and spins until all STREAMS x BLOCKS
 * blocks of that round have arrived (a stream's next round starts only
 * after its previous one, so rounds never mix). BLOCKS is PERMILLE of what
 * the GPU holds of the meet kernel (occupancy API), split among the
 * streams. -F runs a short filler kernel before each meet (as the
 * harness's fill and check kernels run between calls); -G captures 16
 * rounds in a CUDA graph per stream and launches it ROUNDS / 16 times.
 * -m gives each meet block SMEM bytes of dynamic shared memory, so that
 * shared memory, not warps, bounds the blocks per SM.
 *
 * A round whose blocks do not all arrive within 2 s ends the run: "HANG",
 * the round, exit 1; else "ok", exit 0. CUDA_DEVICE_MAX_CONNECTIONS (the
 * device's hardware queues) is the driver's to read: set it to compare.
 * Not a test: a measurement tool for GPU nodes; common/mesh/grid_fit.h
 * cites what it found. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cuda_runtime.h>

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "coresident: %s:%d: %s: %s\n", __FILE__, __LINE__, #x,                       \
              cudaGetErrorString(e_));                                                             \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

#define WAIT_NS        2000000000ull /* a round that takes longer is stuck */
#define GRAPH_ROUNDS   16
#define FILLER_FLOATS  (1u << 20)
#define FILLER_BLOCKS  264
#define FILLER_THREADS 256

__device__ unsigned long long arrivals, stuck_rounds, first_stuck;
__device__ int give_up; /* set by the first stuck block: the others stop too */

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* One arrival per block; every arrival of round r precedes every arrival
 * of round r + 1 (see the top), so the counter's value tells the round. */
__global__ void meet(unsigned long long blocks_per_round) {
  extern __shared__ char held[]; /* -m: only its size matters */
  if (threadIdx.x == 0) {
    held[0] = 0;
    unsigned long long mine = atomicAdd(&arrivals, 1ull);
    unsigned long long round = mine / blocks_per_round, want = (round + 1) * blocks_per_round;
    unsigned long long start = now_ns();
    while (*(volatile unsigned long long *)&arrivals < want && !*(volatile int *)&give_up) {
      if (now_ns() - start > WAIT_NS) {
        if (atomicAdd(&stuck_rounds, 1ull) == 0) first_stuck = round;
        give_up = 1;
      }
    }
  }
  __syncthreads();
}

__global__ void filler(float *buf, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    buf[i] = buf[i] * 0.5f + 1.0f;
}

typedef struct {
  int streams, blocks, threads, rounds, graph, fill;
  size_t smem;
} config;

typedef struct {
  const config *c;
  cudaStream_t stream;
  float *buf;
} worker;

static void launch_round(const worker *w) {
  const config *c = w->c;
  if (c->fill) filler<<<FILLER_BLOCKS, FILLER_THREADS, 0, w->stream>>>(w->buf, FILLER_FLOATS);
  meet<<<c->blocks, c->threads, c->smem, w->stream>>>((unsigned long long)c->streams * c->blocks);
  CHECK(cudaGetLastError());
}

static void *drive(void *arg) {
  const worker *w = (const worker *)arg;
  CHECK(cudaSetDevice(0));
  if (!w->c->graph) {
    for (int i = 0; i < w->c->rounds; i++) launch_round(w);
  } else {
    cudaGraph_t g;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(w->stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < GRAPH_ROUNDS; i++) launch_round(w);
    CHECK(cudaStreamEndCapture(w->stream, &g));
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    for (int i = 0; i < w->c->rounds / GRAPH_ROUNDS; i++) CHECK(cudaGraphLaunch(exec, w->stream));
  }
  CHECK(cudaStreamSynchronize(w->stream));
  return NULL;
}

static int usage(void) {
  fprintf(stderr, "usage: coresident -s STREAMS [-p PERMILLE | -b BLOCKS] [-t THREADS] "
                  "[-m SMEM] [-i ROUNDS] [-G] [-F]\n");
  return 2;
}

/* Blocks per stream: -b, else PERMILLE of what the GPU holds, split. */
static int blocks_per_stream(const config *c, int permille, int *holds) {
  int per_sm = 0, sms = 0;
  if (c->smem > 48 * 1024)
    CHECK(cudaFuncSetAttribute(meet, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, meet, c->threads, c->smem));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  *holds = per_sm * sms;
  return c->blocks ? c->blocks : (int)((long)*holds * permille / 1000 / c->streams);
}

int main(int argc, char **argv) {
  config c = {0, 0, 128, 2000, 0, 0, 0};
  int permille = 1000, opt;
  while ((opt = getopt(argc, argv, "s:p:b:t:m:i:GF")) != -1) {
    switch (opt) {
    case 's':
      c.streams = atoi(optarg);
      break;
    case 'p':
      permille = atoi(optarg);
      break;
    case 'b':
      c.blocks = atoi(optarg);
      break;
    case 't':
      c.threads = atoi(optarg);
      break;
    case 'm':
      c.smem = (size_t)atol(optarg);
      break;
    case 'i':
      c.rounds = atoi(optarg);
      break;
    case 'G':
      c.graph = 1;
      break;
    case 'F':
      c.fill = 1;
      break;
    default:
      return usage();
    }
  }
  if (c.streams < 1 || c.streams > 64 || permille < 1 || permille > 1000 || c.blocks < 0 ||
      c.threads < 32 || c.threads > 1024 || c.rounds < GRAPH_ROUNDS)
    return usage();
  CHECK(cudaSetDevice(0));
  int holds = 0;
  c.blocks = blocks_per_stream(&c, permille, &holds);
  if (c.blocks < 1) return usage();
  worker *w = (worker *)calloc((size_t)c.streams, sizeof *w);
  pthread_t *threads = (pthread_t *)calloc((size_t)c.streams, sizeof *threads);
  if (!w || !threads) return 2;
  for (int s = 0; s < c.streams; s++) {
    w[s].c = &c;
    CHECK(cudaStreamCreateWithFlags(&w[s].stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc((void **)&w[s].buf, FILLER_FLOATS * sizeof(float)));
    CHECK(cudaMemset(w[s].buf, 0, FILLER_FLOATS * sizeof(float)));
  }
  CHECK(cudaDeviceSynchronize());
  for (int s = 0; s < c.streams; s++) pthread_create(&threads[s], NULL, drive, &w[s]);
  for (int s = 0; s < c.streams; s++) pthread_join(threads[s], NULL);
  unsigned long long stuck = 0, first = 0;
  CHECK(cudaMemcpyFromSymbol(&stuck, stuck_rounds, sizeof stuck));
  CHECK(cudaMemcpyFromSymbol(&first, first_stuck, sizeof first));
  const char *queues = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  printf("%s: %d streams x %d blocks of %d threads (%zu B shared), %.1f%% of the %d the GPU "
         "holds, %s%s, %d rounds, CUDA_DEVICE_MAX_CONNECTIONS=%s",
         stuck ? "HANG" : "ok", c.streams, c.blocks, c.threads, c.smem,
         100.0 * c.streams * c.blocks / holds, holds, c.graph ? "graph" : "stream",
         c.fill ? " + filler" : "", c.rounds, queues ? queues : "unset");
  if (stuck)
    printf(": round %llu stuck\n", first);
  else
    printf(": every round met\n");
  return stuck ? 1 : 0;
}
