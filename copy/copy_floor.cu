/* The floor's echo kernel (copy_floor.h): one thread waits for each trip
 * the CPU starts and echoes it back, nothing else. */
#include <stdint.h>
#include <stdio.h>

#include "collbench/device/spin.cuh"     /* cb_spin_expired */
#include "collbench/device/volatile.cuh" /* cb_load_volatile, cb_store_volatile */
#include "copy_floor.h"
#include "cuda_check.h"

namespace {

__global__ void floor_echo_kernel(cb_floor_words *w, int rank, uint64_t timeout_ns) {
  for (uint32_t trip = 1;; trip++) {
    uint32_t v;
    cb_spin s = {0, 0};
    /* A volatile load: a fresh read of host memory over PCIe each time. It
     * orders nothing else: the trip carries no payload. */
    for (;;) {
      v = cb_load_volatile(&w->ping);
      if (v == trip || v == CB_FLOOR_STOP) break;
      if (cb_spin_expired(&s, timeout_ns)) { /* bounded by -T; one thread: no other reporter */
        printf("copy_perf: rank %d: the floor's echo kernel timed out after %llu s waiting for "
               "the CPU's trip %u\n",
               rank, (unsigned long long)(timeout_ns / 1000000000ull), trip);
        __trap();
      }
    }
    if (v == CB_FLOOR_STOP) return;
    /* Volatile too: the echo orders nothing, it only has to reach the CPU. */
    cb_store_volatile(&w->pong, trip);
  }
}

} // namespace

extern "C" void cb_copy_floor_launch(cb_floor_words *words_dev, int rank, uint64_t timeout_ns,
                                     cudaStream_t s) {
  floor_echo_kernel<<<1, 1, 0, s>>>(words_dev, rank, timeout_ns);
  CB_CUDA(cudaGetLastError());
}
