/* The llhost protocol (copy/kernels/copy_llhost.h) end to end without a GPU:
 * the real CPU side (copy_llhost.c, linked as is) against host threads that
 * play the resident kernel, one thread per block, following
 * copy_llhost.cu statement for statement (packets polled and written as
 * 8-byte halves, slot words with acquire/release). CUDA's few calls are
 * stood in for below; "device memory" is host memory.
 *
 * Sizes from 1 B to beyond the ring (wrap-around), partial packets and
 * chunks, 1 to 3 blocks, windows of 1 to 9 copies, many sessions in a row
 * (counters carried across them), h2d and d2h: every byte must arrive. */
#define _GNU_SOURCE /* setenv, pthread */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "copy_pattern.h"
#include "kernels/copy_kernels.h"
#include "kernels/copy_llhost.h"
#include "tunables.h"

/* ---- the stand-ins for CUDA and the harness ---------------------------------------- */

cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) {
  (void)flags;
  *p = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFreeHost(void *p) {
  free(p);
  return cudaSuccess;
}
cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned int flags) {
  (void)flags;
  *d = h; /* unified addressing */
  return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "stand-in error";
}

#define MAX_THREADS 64
static pthread_t blocks[MAX_THREADS];
static int nblocks;
static atomic_int running; /* blocks still in the "kernel" */
static atomic_int emu_failed;

cudaError_t cudaStreamQuery(cudaStream_t s) {
  (void)s;
  return atomic_load(&running) ? cudaErrorNotReady : cudaSuccess;
}

void cb_gpu_wait(cudaStream_t s, int timeout_s, const char *what) {
  (void)s, (void)timeout_s, (void)what;
  for (int b = 0; b < nblocks; b++) pthread_join(blocks[b], NULL);
  nblocks = 0;
}

int cb_copy_llh_resident_blocks(int device) {
  (void)device;
  return CB_LLH_RING_CHUNKS;
}

/* ---- the resident kernel, as host threads ------------------------------------------- */

typedef struct {
  cb_llh_args a;
  int h2d, block, grid;
} block_arg;
static block_arg args[MAX_THREADS];

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* A bounded wait, as llh_tick: a stuck protocol fails the test instead of
 * hanging it. Yields, so that on a machine with fewer cores than threads
 * the CPU side gets to run. */
static int spin_expired(double start, const char *what, uint32_t g) {
  sched_yield();
  if (now_s() - start < 20) return 0;
  fprintf(stderr, "emulated kernel: timed out waiting for %s (chunk %u)\n", what, g);
  atomic_store(&emu_failed, 1);
  return 1;
}

static int stop_requested(const cb_llh_args *a) {
  return cb_llh_reached(__atomic_load_n(&a->ctrl->stop, __ATOMIC_RELAXED), a->session);
}

static void *h2d_block(void *p) {
  const block_arg *ba = p;
  const cb_llh_args *a = &ba->a;
  const uint64_t *ring = a->ring;
  unsigned char *dst = a->dev;
  const uint64_t packets = cb_llh_packets(a->bytes);
  for (uint32_t g = a->first_chunk + (uint32_t)ba->block;; g += (uint32_t)ba->grid) {
    const uint32_t j = (g - a->first_chunk) % a->chunks_per_copy;
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    int stopped = 0;
    for (uint32_t t = 0; t < CB_LLH_CHUNK_PACKETS && !stopped; t++) { /* the block's threads */
      const uint64_t pk = (uint64_t)j * CB_LLH_CHUNK_PACKETS + t;
      if (pk >= packets) break;
      const uint64_t *slot = ring + 2 * ((size_t)r * CB_LLH_CHUNK_PACKETS + t);
      double start = now_s();
      for (uint32_t it = 0;; it++) {
        uint64_t lo = __atomic_load_n(&slot[0], __ATOMIC_RELAXED);
        uint64_t hi = __atomic_load_n(&slot[1], __ATOMIC_RELAXED);
        if ((uint32_t)(lo >> 32) == flag && (uint32_t)(hi >> 32) == flag) {
          uint32_t d[2] = {(uint32_t)lo, (uint32_t)hi};
          uint64_t off = pk * 8;
          memcpy(dst + off, d, off + 8 <= a->bytes ? 8 : (size_t)(a->bytes - off));
          break;
        }
        if ((it & 255u) == 255u && stop_requested(a)) {
          stopped = 1;
          break;
        }
        if (spin_expired(start, "h2d packets", g)) {
          stopped = 1;
          break;
        }
      }
    }
    if (stopped) break;
    __atomic_store_n(&a->ctrl->chunk[r], flag, __ATOMIC_RELEASE);
  }
  atomic_fetch_sub(&running, 1);
  return NULL;
}

static void *d2h_block(void *p) {
  const block_arg *ba = p;
  const cb_llh_args *a = &ba->a;
  uint64_t *ring = a->ring;
  const unsigned char *src = a->dev;
  const uint64_t packets = cb_llh_packets(a->bytes);
  for (uint32_t g = a->first_chunk + (uint32_t)ba->block;; g += (uint32_t)ba->grid) {
    const uint32_t rel = g - a->first_chunk;
    const uint32_t copy = a->first_copy + rel / a->chunks_per_copy, j = rel % a->chunks_per_copy;
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    int stopped = 0;
    double start = now_s();
    for (uint32_t it = 0;; it++) {
      if (cb_llh_reached(__atomic_load_n(&a->ctrl->go, __ATOMIC_ACQUIRE), copy) &&
          cb_llh_reached(__atomic_load_n(&a->ctrl->chunk[r], __ATOMIC_ACQUIRE),
                         flag - CB_LLH_RING_CHUNKS))
        break;
      if ((it & 255u) == 255u && stop_requested(a)) {
        stopped = 1;
        break;
      }
      if (spin_expired(start, "d2h go or slot", g)) {
        stopped = 1;
        break;
      }
    }
    if (stopped) break;
    for (uint32_t t = 0; t < CB_LLH_CHUNK_PACKETS; t++) {
      const uint64_t pk = (uint64_t)j * CB_LLH_CHUNK_PACKETS + t;
      if (pk >= packets) break;
      uint32_t d[2] = {0, 0};
      uint64_t off = pk * 8;
      memcpy(d, src + off, off + 8 <= a->bytes ? 8 : (size_t)(a->bytes - off));
      uint64_t *slot = ring + 2 * ((size_t)r * CB_LLH_CHUNK_PACKETS + t);
      /* The GPU writes 16 bytes at once; halves in either order are fine. */
      __atomic_store_n(&slot[1], (uint64_t)flag << 32 | d[1], __ATOMIC_RELAXED);
      __atomic_store_n(&slot[0], (uint64_t)flag << 32 | d[0], __ATOMIC_RELAXED);
    }
  }
  atomic_fetch_sub(&running, 1);
  return NULL;
}

void cb_copy_llh_launch(const cb_llh_args *a, int h2d, int grid, cudaStream_t s) {
  (void)s;
  CHECK(grid >= 1 && grid <= MAX_THREADS);
  nblocks = grid;
  atomic_store(&running, grid);
  for (int b = 0; b < grid; b++) {
    args[b] = (block_arg){*a, h2d, b, grid};
    pthread_create(&blocks[b], NULL, h2d ? h2d_block : d2h_block, &args[b]);
  }
}

/* ---- the tests -------------------------------------------------------------------- */

static void run_dir(cb_copy_dir dir, const char *blocks_env) {
  setenv("CB_LLHOST_BLOCKS", blocks_env, 1);
  char why[256];
  CHECK(cb_tunables_read(CB_TUNE_COPY, why, sizeof why) == NULL);
  const size_t max = 5u << 20; /* beyond the ring's 4 MiB of data: slots are reused */
  unsigned char *host = malloc(max), *dev = aligned_alloc(64, max);
  cb_copy_ctx ctx = {.dir = dir,
                     .timeout_s = 30,
                     .window = 9,
                     .max_bytes = max,
                     .host = host,
                     .dev = dev,
                     .kernel_id = 4,
                     .kernel_name = "llhost"};
  CHECK(cb_copy_llh_setup(&ctx) == NULL);
  const size_t sizes[] = {1, 7, 8, 9, 4095, 4096, 4097, 3 * 4096 + 5, 65537, 1000003, max - 3, 24};
  const int windows[] = {1, 2, 9};
  uint32_t seed = 1;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++, seed++) {
      size_t n = sizes[s];
      cb_copy_call call =
          dir == CB_H2D ? (cb_copy_call){dev, host, n} : (cb_copy_call){host, dev, n};
      cb_copy_pattern_fill((void *)call.src, n, seed, 0);
      cb_copy_pattern_fill(call.dst, n, seed, 1);
      cb_copy_llh_start(&ctx, &call, NULL);
      /* A latency-like run, then a window, as copy_runner.c measures. */
      int singles = n < 100000 ? 20 : 2;
      for (int i = 0; i < singles; i++) {
        cb_copy_llh_post(&ctx, &call, 1, NULL);
        cb_copy_llh_complete(&ctx, NULL);
      }
      /* The window again on a fresh destination, checked as soon as
       * complete() returns, before the stop: complete means every byte is there. */
      cb_copy_pattern_fill(call.dst, n, seed, 1);
      cb_copy_llh_post(&ctx, &call, windows[w], NULL);
      cb_copy_llh_complete(&ctx, NULL);
      long long early = cb_copy_pattern_check(call.dst, n, seed);
      CHECKF(early == 0,
             "%s %zu B, window %d, %s blocks: %lld bytes missing when complete returned",
             cb_copy_dir_name(dir), n, windows[w], blocks_env, early);
      cb_copy_llh_stop(&ctx, NULL);
      long long wrong = cb_copy_pattern_check(call.dst, n, seed);
      CHECKF(wrong == 0, "%s %zu B, window %d, %s blocks: %lld wrong bytes", cb_copy_dir_name(dir),
             n, windows[w], blocks_env, wrong);
      CHECK(!atomic_load(&emu_failed));
      if (atomic_load(&emu_failed)) goto out;
    }
  }
out:
  cb_copy_llh_teardown(&ctx);
  free(host);
  free(dev);
}

int main(void) {
  run_dir(CB_H2D, "1");
  run_dir(CB_H2D, "3");
  run_dir(CB_D2H, "1");
  run_dir(CB_D2H, "3");
  return check_summary();
}
