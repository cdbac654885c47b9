/* -k 4 llhost, the GPU side: the resident kernels, one per protocol and
 * direction (protocols and proof in copy_llhost.h).
 *
 * Every access to the rings, the control words and (flag-direct) the
 * user's host buffer goes to mapped pinned host memory, over PCIe:
 *  - polls read afresh each time (never served from L1 or hoisted out of
 *    the loop by the compiler), by one thread per block except LL16's
 *    packets (a thread per packet): LL16 packets with ld.volatile (data and
 *    flag arrive together, nothing else to order), control words with
 *    ld.acquire.sys, which orders what follows them as a volatile load and
 *    fence.acq_rel.sys would, without the fence's cost (copy_llhost.h);
 *  - the words the GPU writes (consumed in h2d, ready in d2h) are
 *    st.release.sys by thread 0 after a barrier: the release is cumulative
 *    over the block's accesses ordered before it by the barrier;
 *  - payloads move in 16-byte accesses: an LL16 packet in one access; a
 *    flag chunk as coalesced vectors, two loads in flight per thread.
 *    flag-direct h2d reads the user's host buffer, and d2h device memory,
 *    with ld.global.cg: weak loads, which thread 0's acquire and the
 *    barrier order after the CPU's payload stores (copy_llhost.h's proof;
 *    the memory model then rules out an older value from any cache), and
 *    no L1. Not volatile: in a window of copies of one host buffer, 32
 *    blocks' volatile reads of the same host lines were served one after
 *    another (16 KiB: 7.0-9.4 GB/s, with ld.global.cg 29.9-33.0:
 *    docs/copy_perf.md, "flag-direct h2d: ld.global.cg, nothing staged").
 *    flag-staged h2d reads its own slot per chunk, never a line another
 *    block reads, with volatile loads: ld.global.cg was slower there
 *    (8 KiB: 9.2 against 10.8 GB/s). The runner's second
 *    post from a rewritten source (copy_runner.c validate()) is the check
 *    that no stale line is served. */
#include <stdint.h>
#include <stdio.h>

#include "collbench/device/ll_packet.cuh" /* cb_ll_load, cb_ll16_write */
#include "collbench/device/signal.cuh"    /* release stores, acquire loads */
#include "collbench/device/spin.cuh"      /* cb_spin_expired, cb_spin_first_reporter */
#include "collbench/device/volatile.cuh"  /* cb_load_volatile */
#include "copy_llhost.h"
#include "cuda_check.h"

namespace {

/* Scalars only: taking the address of the kernel's parameters (to print the
 * name from them) would copy the whole parameter block to local memory. */
__device__ __noinline__ void llh_timeout(int rank, int kernel_id, uint64_t name0, uint64_t name1,
                                         uint64_t timeout_ns, const char *what, uint32_t chunk,
                                         uint32_t session) {
  cb_spin_first_reporter();
  uint64_t name[3] = {name0, name1, 0};
  printf("copy_perf: rank %d: kernel %d (%s) timed out after %llu s waiting for %s (chunk %u of "
         "session %u), block %d thread %d\n",
         rank, kernel_id, (const char *)name, (unsigned long long)(timeout_ns / 1000000000ull),
         what, chunk, session, (int)blockIdx.x, (int)threadIdx.x);
  __trap();
}

/* A bounded wait (device/spin.cuh); after 4096 polls the poller sleeps a
 * little between reads, so a long idle wait (the CPU busy elsewhere) does
 * not flood PCIe with reads, while a wait of a few microseconds (the
 * latency path) never sleeps. */
__device__ __forceinline__ void llh_tick(cb_spin &s, const cb_llh_args &a, const char *what,
                                         uint32_t chunk) {
  if (s.iters >= 4096) __nanosleep(256);
  if (cb_spin_expired(&s, a.who.timeout_ns))
    llh_timeout(a.who.rank, a.who.kernel_id, a.who.name[0], a.who.name[1], a.who.timeout_ns, what,
                chunk, a.session);
}

/* The kit's words shared with the CPU (collbench/device/signal.cuh): an
 * acquire load, which reads afresh each time as a volatile one does, and
 * when it reads the CPU's release orders everything this thread does after
 * it (and, through the barrier that follows, its block) after it; a
 * release store (a fence.acq_rel.sys and the store in one), which makes
 * every load and store the block performed before it (ordered by the
 * barrier before it) complete and visible at system scope before the CPU
 * can read the word. */

__device__ __forceinline__ bool stop_requested(const cb_llh_args &a) {
  return cb_llh_reached(cb_load_volatile(&a.ctrl->stop.v), a.session);
}

/* tests/gpu/mutation.sh's copy mutants (-DCOLLBENCH_MUTATE): kernels that
 * move nothing for the later copies of a session, so the destination keeps
 * what an earlier copy left. The copies of one post all move the same bytes
 * and cannot show it; only a post after the source was rewritten can
 * (copy_runner.c validate()):
 *   h2d_first_copy_only  h2d, every copy after the session's first;
 *   d2h_first_copy_only  d2h (the flag kernel), every copy after the first;
 *   window_copies_stale  both directions, every copy after the session's
 *                        second: a single copy's validation (two copies)
 *                        moves all it posts, a window's second post nothing. */
#if defined(CB_MUTATE_H2D_FIRST_COPY_ONLY)
#define LLH_MUTANT_SKIPS_COPY(a, g, h2d) ((h2d) && (g) - (a).first_chunk >= (a).chunks_per_copy)
#elif defined(CB_MUTATE_D2H_FIRST_COPY_ONLY)
#define LLH_MUTANT_SKIPS_COPY(a, g, h2d) (!(h2d) && (g) - (a).first_chunk >= (a).chunks_per_copy)
#elif defined(CB_MUTATE_WINDOW_COPIES_STALE)
#define LLH_MUTANT_SKIPS_COPY(a, g, h2d)                                                           \
  ((uint64_t)((g) - (a).first_chunk) >= 2ull * (a).chunks_per_copy)
#else
#define LLH_MUTANT_SKIPS_COPY(a, g, h2d) false
#endif

/* ---- LL16 ------------------------------------------------------------------------ */

/* h2d: polls one packet until both flags are flag; false if the CPU stopped the session. */
__device__ __forceinline__ bool poll_packet(const uint4 *slot, uint32_t flag, const cb_llh_args &a,
                                            uint32_t chunk, uint2 *out) {
  cb_spin s = {0, 0};
  for (;;) {
    if (cb_ll_load(slot, flag, out)) return true;
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

__global__ void __launch_bounds__(CB_LLH_THREADS) llh_h2d_ll_kernel(cb_llh_args a) {
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
      if (!poll_packet(ring + (size_t)r * CB_LLH_CHUNK_PACKETS + threadIdx.x, flag, a, g, &v))
        stopped = 1;
      else if (!LLH_MUTANT_SKIPS_COPY(a, g, true))
        store_data(dst, p, a.bytes, v);
    }
    /* Every thread's packet load has returned and its store has been
     * issued; the barrier also orders them before thread 0's release below. */
    if (__syncthreads_or(stopped)) return;
    /* Rule C2: slot r is free again, and the chunk's bytes are in device
     * memory, visible to anything that sees this word (the CPU's complete()).
     * By thread 0, which then polls the next chunk's first packet: its
     * fence puts that poll at much the same point of a PCIe round trip in
     * every run. Released by the last thread instead, thread 0 polled
     * sooner and an 8 B copy's latency came a round trip apart from run to
     * run (2.86-3.60 us on one H100, where thread 0's stayed within
     * 3.28-3.41: docs/copy_perf.md, "LL16 h2d: the stores and the
     * release"). */
    if (threadIdx.x == 0) cb_store_release_sys(&a.ctrl->consumed[r].v, flag);
    /* No thread polls the next chunk before the release is done: its fence
     * waited for the other warps' polls already in flight over PCIe, a
     * round trip each (512 B: 4.37 us without this barrier, 3.53-3.68 with
     * it, on one H100: docs/copy_perf.md, "LL16 h2d: the stores and the
     * release"). */
    __syncthreads();
  }
}

/* Thread 0 (rule C1 in h2d, P1 in d2h): acquires the CPU's word *w ==
 * flag (h2d ready[r]: the chunk's payload is in place; d2h asked[r]: the
 * CPU asks for the chunk, and the slot is free); false if the CPU stopped
 * the session. Equality: flags are unique in a setup, so no word left by
 * an older chunk matches. The acquire orders the block's payload accesses,
 * after the barrier that follows, after the CPU's accesses before its
 * release. */
__device__ __forceinline__ bool wait_cpu_word(const cb_llh_args &a, const uint32_t *w,
                                              uint32_t flag, uint32_t g, const char *what) {
  cb_spin s = {0, 0};
  while (cb_load_acquire_sys(w) != flag) {
    /* The CPU stops a session only once every chunk it posted or asked for
     * is done with: this one never will be. */
    if ((s.iters & 255u) == 255u && stop_requested(a)) return false;
    llh_tick(s, a, what, g);
  }
  return true;
}

/* d2h, the whole block at the start of chunk g (chunk *j of its copy):
 * thread 0 waits to be asked for it (rule P1), and the barrier holds every
 * thread's stores back until its acquire. False if the CPU stopped the
 * session. */
__device__ __forceinline__ bool d2h_chunk_begins(const cb_llh_args &a, uint32_t g, uint32_t *j) {
  *j = (g - a.first_chunk) % a.chunks_per_copy;
  int stopped = 0;
  if (threadIdx.x == 0)
    stopped = !wait_cpu_word(a, &a.ctrl->asked[g % CB_LLH_RING_CHUNKS].v, g + 1, g,
                             "the CPU to ask for a d2h chunk");
  return !__syncthreads_or(stopped);
}

__global__ void __launch_bounds__(CB_LLH_THREADS) llh_d2h_ll_kernel(cb_llh_args a) {
  uint4 *ring = (uint4 *)a.ring;
  const unsigned char *src = (const unsigned char *)a.dev;
  const uint64_t packets = cb_llh_packets(a.bytes);
  for (uint32_t g = a.first_chunk + blockIdx.x;; g += gridDim.x) {
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    uint32_t j;
    if (!d2h_chunk_begins(a, g, &j)) return;
    const uint64_t p = (uint64_t)j * CB_LLH_CHUNK_PACKETS + threadIdx.x;
    if (p < packets) {
      uint2 v = load_data(src, p, a.bytes);
      /* One 16-byte store: data and flag travel together (copy_llhost.h). */
      cb_ll16_write(ring + (size_t)r * CB_LLH_CHUNK_PACKETS + threadIdx.x, v, flag);
    }
  }
}

/* ---- flag ------------------------------------------------------------------------ */

__device__ __forceinline__ uint4 load16(const uint4 *p, bool vol) {
  return vol ? cb_load_volatile(p) : __ldcg(p);
}
__device__ __forceinline__ unsigned char load8(const unsigned char *p, bool vol) {
  return vol ? cb_load_volatile(p) : __ldcg(p);
}

/* One chunk's n payload bytes from src to dst (both 16-byte aligned), by
 * the whole block: 16-byte vectors tid, tid + T, ..., two loads in flight
 * per thread before their stores; the tail (n % 16) a byte per thread.
 * vol: volatile loads (a staging slot), else ld.global.cg (this file's head). */
__device__ __forceinline__ void copy_chunk(unsigned char *dst, const unsigned char *src, uint32_t n,
                                           bool vol) {
  const uint32_t nv = n / 16, t = blockDim.x;
  uint4 *d = (uint4 *)dst;
  const uint4 *s = (const uint4 *)src;
  for (uint32_t i = threadIdx.x; i < nv; i += 2 * t) {
    const bool two = i + t < nv;
    uint4 x = load16(s + i, vol), y = make_uint4(0, 0, 0, 0);
    if (two) y = load16(s + i + t, vol);
    d[i] = x;
    if (two) d[i + t] = y;
  }
  const uint32_t b = nv * 16 + threadIdx.x;
  if (b < n) dst[b] = load8(src + b, vol);
}

__global__ void __launch_bounds__(CB_LLH_THREADS) llh_h2d_flag_kernel(cb_llh_args a) {
  unsigned char *dst = (unsigned char *)a.dev;
  for (uint32_t g = a.first_chunk + blockIdx.x;; g += gridDim.x) {
    const uint32_t j = (g - a.first_chunk) % a.chunks_per_copy; /* chunk of its copy */
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    int stopped = 0;
    if (threadIdx.x == 0)
      stopped = !wait_cpu_word(a, &a.ctrl->ready[r].v, flag, g, "the CPU's h2d flag");
    /* Every thread's payload load after thread 0's acquire. */
    if (__syncthreads_or(stopped)) return;
    const uint64_t off = (uint64_t)j * CB_LLH_FLAG_CHUNK;
    const unsigned char *src = a.host
                                   ? (const unsigned char *)a.host + off
                                   : (const unsigned char *)a.stage + (size_t)r * CB_LLH_STAGE_SLOT;
    if (!LLH_MUTANT_SKIPS_COPY(a, g, true))
      copy_chunk(dst + off, src, cb_llh_chunk_bytes(a.bytes, a.protocol, j), !a.host);
    /* Every thread's loads have returned and its stores are issued, before
     * thread 0's release. */
    __syncthreads();
    /* Rule C2: the slot is free again, and the chunk's bytes are in device
     * memory, visible to anything that sees this word (the CPU's complete()). */
    if (threadIdx.x == 0) cb_store_release_sys(&a.ctrl->consumed[r].v, flag);
  }
}

__global__ void __launch_bounds__(CB_LLH_THREADS) llh_d2h_flag_kernel(cb_llh_args a) {
  const unsigned char *src = (const unsigned char *)a.dev;
  for (uint32_t g = a.first_chunk + blockIdx.x;; g += gridDim.x) {
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    uint32_t j;
    if (!d2h_chunk_begins(a, g, &j)) return;
    const uint64_t off = (uint64_t)j * CB_LLH_FLAG_CHUNK;
    unsigned char *dst = a.host ? (unsigned char *)a.host + off
                                : (unsigned char *)a.stage + (size_t)r * CB_LLH_STAGE_SLOT;
    if (!LLH_MUTANT_SKIPS_COPY(a, g, false))
      copy_chunk(dst, src + off, cb_llh_chunk_bytes(a.bytes, a.protocol, j), false);
    /* Every thread's payload stores are issued before thread 0's release. */
    __syncthreads();
    /* Rule P2: the system-scope fence of the release makes the block's
     * payload stores visible to the CPU before the flag is. */
    if (threadIdx.x == 0) cb_store_release_sys(&a.ctrl->ready[r].v, flag);
  }
}

} // namespace

extern "C" int cb_copy_llh_resident_blocks(int device) {
  int sms = 0, least = 0;
  CB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const void *kernels[] = {(const void *)llh_h2d_ll_kernel, (const void *)llh_d2h_ll_kernel,
                           (const void *)llh_h2d_flag_kernel, (const void *)llh_d2h_flag_kernel};
  for (int i = 0; i < 4; i++) {
    int n = 0;
    CB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernels[i], CB_LLH_THREADS, 0));
    if (i == 0 || n < least) least = n;
  }
  return sms * least;
}

extern "C" void cb_copy_llh_launch(const cb_llh_args *a, int h2d, int blocks, cudaStream_t s) {
  const bool ll = a->protocol == CB_LLH_LL16;
  if (h2d && ll)
    llh_h2d_ll_kernel<<<blocks, CB_LLH_THREADS, 0, s>>>(*a);
  else if (h2d)
    llh_h2d_flag_kernel<<<blocks, CB_LLH_THREADS, 0, s>>>(*a);
  else if (ll)
    llh_d2h_ll_kernel<<<blocks, CB_LLH_THREADS, 0, s>>>(*a);
  else
    llh_d2h_flag_kernel<<<blocks, CB_LLH_THREADS, 0, s>>>(*a);
  CB_CUDA(cudaGetLastError());
}
