/* -k 4 llhost, the GPU side: the resident kernels (protocol in
 * copy_llhost.h).
 *
 * Every access to the ring and the control words goes to mapped pinned
 * host memory, over PCIe:
 *  - polls are volatile loads (ld.volatile: a fresh read each time, never
 *    served from L1 or hoisted out of the loop by the compiler);
 *  - a packet is read (h2d) or written (d2h) with one 16-byte access;
 *  - control words the CPU writes (go, the d2h slot words, stop) are read
 *    with ld.acquire.sys, and the words the GPU writes (the h2d slot words)
 *    with st.release.sys: each comment below says what that orders. */
#include <stdint.h>
#include <stdio.h>

#include "copy_llhost.h"
#include "cuda_check.h"
#include "device/spin.cuh" /* cb_globaltimer_ns */

namespace {

/* A bounded wait: the timer is read every 1024 polls; after 4096 polls the
 * poller sleeps a little between reads, so a long idle wait (the CPU busy
 * elsewhere) does not flood PCIe with reads, while a wait of a few
 * microseconds (the latency path) never sleeps. */
struct llh_spin {
  uint32_t iters;
  uint64_t start_ns;
};

__device__ int llh_reported; /* the first thread to time out prints; the others wait for its trap */

__device__ __noinline__ void llh_timeout(const cb_llh_args &a, const char *what, uint32_t chunk) {
  if (atomicExch(&llh_reported, 1) != 0)
    for (;;) __nanosleep(1000000);
  printf("copy_perf: rank %d: kernel %d (%s) timed out after %llu s waiting for %s (chunk %u of "
         "session %u), block %d thread %d\n",
         a.rank, a.kernel_id, a.kernel_name, (unsigned long long)(a.timeout_ns / 1000000000ull),
         what, chunk, a.session, (int)blockIdx.x, (int)threadIdx.x);
  __trap();
}

__device__ __forceinline__ void llh_tick(llh_spin &s, const cb_llh_args &a, const char *what,
                                         uint32_t chunk) {
  ++s.iters;
  if (s.iters > 4096) __nanosleep(256);
  if ((s.iters & 1023u) != 0) return;
  uint64_t now = cb_globaltimer_ns();
  if (s.start_ns == 0)
    s.start_ns = now;
  else if (now - s.start_ns > a.timeout_ns)
    llh_timeout(a, what, chunk);
}

__device__ __forceinline__ uint32_t load_volatile_u32(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/* Acquire: nothing this thread does after the load (and, through the
 * barrier that follows it, nothing its block does) is performed before the
 * load has read the CPU's word; in particular no packet is written into a
 * slot before the CPU's release of that slot has been seen. */
__device__ __forceinline__ uint32_t load_acquire_sys_u32(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/* Release: every load and store the block performed before (ordered by the
 * barrier before this store) is complete and visible at system scope before
 * the CPU can read this word. */
__device__ __forceinline__ void store_release_sys_u32(uint32_t *p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ bool stop_requested(const cb_llh_args &a) {
  return cb_llh_reached(load_volatile_u32(&a.ctrl->stop), a.session);
}

/* h2d: polls one packet until both flags are flag; false if the CPU stopped the session. */
__device__ __forceinline__ bool poll_packet(const uint4 *slot, uint32_t flag, const cb_llh_args &a,
                                            uint32_t chunk, uint2 *out) {
  llh_spin s = {0, 0};
  for (;;) {
    uint32_t d0, f0, d1, f1;
    asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(d0), "=r"(f0), "=r"(d1), "=r"(f1)
                 : "l"(slot)
                 : "memory");
    if (f0 == flag && f1 == flag) {
      *out = make_uint2(d0, d1);
      return true;
    }
    /* The CPU stops a session only once every chunk it posted is consumed,
     * so a stop seen here means this chunk will never come. */
    if ((s.iters & 255u) == 255u && stop_requested(a)) return false;
    llh_tick(s, a, "the CPU's h2d packets", chunk);
  }
}

/* Stores the 8 data bytes of packet p; the last packet may be partial. */
__device__ __forceinline__ void store_data(unsigned char *dst, uint64_t p, uint64_t bytes,
                                           uint2 v) {
  uint64_t off = p * CB_LLH_PACKET_DATA;
  if (off + CB_LLH_PACKET_DATA <= bytes) {
    *(uint2 *)(dst + off) = v;
    return;
  }
  for (uint64_t b = off; b < bytes; b++) dst[b] = ((const unsigned char *)&v)[b - off];
}

__device__ __forceinline__ uint2 load_data(const unsigned char *src, uint64_t p, uint64_t bytes) {
  uint64_t off = p * CB_LLH_PACKET_DATA;
  if (off + CB_LLH_PACKET_DATA <= bytes) return *(const uint2 *)(src + off);
  uint2 v = make_uint2(0, 0);
  for (uint64_t b = off; b < bytes; b++) ((unsigned char *)&v)[b - off] = src[b];
  return v;
}

__global__ void __launch_bounds__(CB_LLH_CHUNK_PACKETS) llh_h2d_kernel(cb_llh_args a) {
  const uint4 *ring = (const uint4 *)a.ring;
  unsigned char *dst = (unsigned char *)a.dev;
  const uint64_t packets = cb_llh_packets(a.bytes);
  for (uint32_t g = a.first_chunk + blockIdx.x;; g += gridDim.x) {
    const uint32_t j = (g - a.first_chunk) % a.chunks_per_copy; /* chunk of its copy */
    const uint64_t p = (uint64_t)j * CB_LLH_CHUNK_PACKETS + threadIdx.x;
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    int stopped = 0;
    if (p < packets) {
      uint2 v;
      if (poll_packet(ring + (size_t)r * CB_LLH_CHUNK_PACKETS + threadIdx.x, flag, a, g, &v))
        store_data(dst, p, a.bytes, v);
      else
        stopped = 1;
    }
    /* Every thread's packet load has returned and its store has been
     * issued; a barrier also orders them before thread 0's release below. */
    if (__syncthreads_or(stopped)) return;
    /* Slot r is free again, and the chunk's bytes are in device memory,
     * visible to anything that sees this word (the CPU's complete()). */
    if (threadIdx.x == 0) store_release_sys_u32(&a.ctrl->chunk[r], flag);
  }
}

__global__ void __launch_bounds__(CB_LLH_CHUNK_PACKETS) llh_d2h_kernel(cb_llh_args a) {
  uint4 *ring = (uint4 *)a.ring;
  const unsigned char *src = (const unsigned char *)a.dev;
  const uint64_t packets = cb_llh_packets(a.bytes);
  for (uint32_t g = a.first_chunk + blockIdx.x;; g += gridDim.x) {
    const uint32_t rel = g - a.first_chunk;
    const uint32_t copy = a.first_copy + rel / a.chunks_per_copy, j = rel % a.chunks_per_copy;
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    int stopped = 0;
    if (threadIdx.x == 0) {
      /* Wait until the CPU has asked for this copy and has read the chunk
       * that last used slot r (flag - RING). */
      llh_spin s = {0, 0};
      for (;;) {
        if (cb_llh_reached(load_acquire_sys_u32(&a.ctrl->go), copy) &&
            cb_llh_reached(load_acquire_sys_u32(&a.ctrl->chunk[r]), flag - CB_LLH_RING_CHUNKS))
          break;
        /* Stopped only once every copy asked for is read: this one never will be. */
        if ((s.iters & 255u) == 255u && stop_requested(a)) {
          stopped = 1;
          break;
        }
        llh_tick(s, a, "the CPU to ask for a d2h copy or free a ring slot", g);
      }
    }
    /* The barrier holds every thread's packet store back until thread 0's
     * acquire loads have seen the slot free. */
    if (__syncthreads_or(stopped)) return;
    const uint64_t p = (uint64_t)j * CB_LLH_CHUNK_PACKETS + threadIdx.x;
    if (p < packets) {
      uint2 v = load_data(src, p, a.bytes);
      /* One 16-byte store: data and flag travel together (copy_llhost.h). */
      asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(
                       ring + (size_t)r * CB_LLH_CHUNK_PACKETS + threadIdx.x),
                   "r"(v.x), "r"(flag), "r"(v.y), "r"(flag)
                   : "memory");
    }
  }
}

} // namespace

extern "C" int cb_copy_llh_resident_blocks(int device) {
  int sms = 0, h2d = 0, d2h = 0;
  CB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CB_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&h2d, llh_h2d_kernel, CB_LLH_CHUNK_PACKETS, 0));
  CB_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&d2h, llh_d2h_kernel, CB_LLH_CHUNK_PACKETS, 0));
  return sms * (h2d < d2h ? h2d : d2h);
}

extern "C" void cb_copy_llh_launch(const cb_llh_args *a, int h2d, int blocks, cudaStream_t s) {
  if (h2d)
    llh_h2d_kernel<<<blocks, CB_LLH_CHUNK_PACKETS, 0, s>>>(*a);
  else
    llh_d2h_kernel<<<blocks, CB_LLH_CHUNK_PACKETS, 0, s>>>(*a);
  CB_CUDA(cudaGetLastError());
}
