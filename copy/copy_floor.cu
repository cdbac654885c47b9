/* The floor's echo kernel (copy_floor.h): one thread waits for each trip
 * the CPU starts and echoes it back, nothing else. */
#include <stdint.h>
#include <stdio.h>

#include "copy_floor.h"
#include "cuda_check.h"
#include "device/spin.cuh" /* cb_globaltimer_ns */

namespace {

__global__ void floor_echo_kernel(cb_floor_words *w, int rank, uint64_t timeout_ns) {
  for (uint32_t trip = 1;; trip++) {
    uint32_t v, iters = 0;
    uint64_t start_ns = 0;
    /* A volatile load: a fresh read of host memory over PCIe each time. It
     * orders nothing else: the trip carries no payload. */
    for (;;) {
      asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(&w->ping) : "memory");
      if (v == trip || v == CB_FLOOR_STOP) break;
      /* Bounded by -T, the timer read every 1024 polls (device/spin.cuh's way). */
      if ((++iters & 1023u) != 0) continue;
      uint64_t now = cb_globaltimer_ns();
      if (start_ns == 0) {
        start_ns = now;
      } else if (now - start_ns > timeout_ns) {
        printf("copy_perf: rank %d: the floor's echo kernel timed out after %llu s waiting for "
               "the CPU's trip %u\n",
               rank, (unsigned long long)(timeout_ns / 1000000000ull), trip);
        __trap();
      }
    }
    if (v == CB_FLOOR_STOP) return;
    /* Volatile too: the echo orders nothing, it only has to reach the CPU. */
    asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(&w->pong), "r"(trip) : "memory");
  }
}

} // namespace

extern "C" void cb_copy_floor_launch(cb_floor_words *words_dev, int rank, uint64_t timeout_ns,
                                     cudaStream_t s) {
  floor_echo_kernel<<<1, 1, 0, s>>>(words_dev, rank, timeout_ns);
  CB_CUDA(cudaGetLastError());
}
