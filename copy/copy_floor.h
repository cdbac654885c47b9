/* The floor of a host<->device copy through a resident kernel: one flag's
 * round trip CPU -> resident GPU kernel -> CPU through mapped pinned host
 * memory, with nothing else to move. No copy that needs the GPU to see a
 * CPU store and the CPU to see a GPU store can be faster; copy_perf
 * measures it once per run and shows each size's fastest latency beside
 * it. The CPU side is copy_floor.c, the kernel copy_floor.cu. */
#ifndef CB_COPY_FLOOR_H
#define CB_COPY_FLOOR_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int ran;   /* measured in this run */
  int trips; /* timed round trips */
  double p50_us, p99_us;
} cb_copy_floor;

/* The words the CPU and the echo kernel share, on cache lines of their
 * own: the CPU writes ping, the kernel pong. */
typedef struct {
  uint32_t ping; /* the trip the CPU starts (1, 2, ...), or CB_FLOOR_STOP */
  uint32_t pad_ping[31];
  uint32_t pong; /* the last trip the kernel has echoed */
  uint32_t pad_pong[31];
} cb_floor_words;

#define CB_FLOOR_STOP 0xffffffffu

/* Measures the floor on the current device (`device`, for messages):
 * `warmup` round trips (at least one), then `trips` timed ones, each
 * started after copy_perf's --post_gap (post_gap.h) as its latency copies
 * are; every wait is bounded by timeout_s. */
void cb_copy_floor_measure(int device, int rank, int trips, int warmup, int post_gap_ns,
                           int timeout_s, cb_copy_floor *out);

/* Starts the echo kernel, one thread, on s (copy_floor.cu). */
void cb_copy_floor_launch(cb_floor_words *words_dev, int rank, uint64_t timeout_ns, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
