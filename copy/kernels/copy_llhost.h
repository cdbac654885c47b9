/* -k 4 llhost: the LL protocol over PCIe, between the CPU and a resident
 * GPU kernel, through mapped pinned host memory. What the CPU side
 * (copy_llhost.c) and the GPU side (copy_llhost.cu) share: the ring's
 * layout, the control words and the kernel's arguments. C and CUDA.
 *
 * Packets. LL16: {data0, flag, data1, flag}, 8 data bytes in 16. Each
 * 8-byte half carries the flag, so a packet torn into its two halves (the
 * CPU writes and reads it as two 8-byte atomic accesses; the GPU as one
 * 16-byte access) is still never taken for complete: the reader checks
 * both flags. No fence between data and flag, no doorbell.
 *
 * Chunks. A copy is cut into chunks of CB_LLH_CHUNK_PACKETS packets (4 KiB
 * of data; the last chunk and packet may be partial). Chunks are numbered
 * globally, g = 0, 1, 2, ... across copies and sizes (a copy always starts
 * a new chunk); chunk g lives in ring slot g % CB_LLH_RING_CHUNKS and its
 * packets carry flag g + 1. Flags only grow, and the ring starts zeroed, so
 * a stale packet never carries the flag a reader waits for.
 *
 * Blocks. The resident kernel runs B blocks of CB_LLH_CHUNK_PACKETS
 * threads, started once per size (outside timing); block b handles the
 * session's chunks first + b, first + b + B, ... in order, one packet per
 * thread. So block b's latest chunk being done means all of its earlier
 * ones are, and the last B chunks posted tell when everything is done.
 *
 * Flow control (one slot per chunk):
 *  h2d: the CPU writes chunk g into slot r once ctrl.chunk[r] (written by
 *       the GPU after it has read a chunk, with a system-scope release) is
 *       at least the flag of chunk g - RING. A copy is complete when the
 *       last B chunks are consumed.
 *  d2h: the GPU writes chunk g of copy q once ctrl.go >= q (the CPU asked
 *       for that copy: this is also what starts a copy) and ctrl.chunk[r]
 *       (written by the CPU after it has read a chunk, with a release) is at
 *       least the flag of chunk g - RING. A copy is complete when the CPU
 *       has read all its packets.
 * Stop: the CPU writes the session number into ctrl.stop; every waiting
 * thread checks it and the kernel returns. Every wait, on both sides, is
 * bounded by -T. Counters are 32-bit and compared modulo 2^32; the CPU
 * refuses to go past 2^32 - 2^20 chunks (16 TiB) in one setup. */
#ifndef CB_COPY_LLHOST_H
#define CB_COPY_LLHOST_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __CUDACC__
#define CB_LLH_HD __host__ __device__
#else
#define CB_LLH_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CB_LLH_PACKET_BYTES  16
#define CB_LLH_PACKET_DATA   8
#define CB_LLH_CHUNK_PACKETS 512                                         /* threads per block */
#define CB_LLH_CHUNK_DATA    (CB_LLH_CHUNK_PACKETS * CB_LLH_PACKET_DATA) /* 4 KiB */
#define CB_LLH_RING_CHUNKS   1024 /* 8 MiB of packets, 4 MiB of data in flight */
#define CB_LLH_CHUNK_LIMIT   (0xffffffffu - (1u << 20)) /* chunk numbers a setup may use */

/* Control words, in mapped pinned host memory. go and stop sit on cache
 * lines of their own, away from the per-slot words the other side polls. */
typedef struct {
  uint32_t chunk[CB_LLH_RING_CHUNKS]; /* per slot: flag of the last chunk read from it */
  uint32_t go;                        /* d2h: copies the CPU has asked for (copy numbers) */
  uint32_t pad_go[15];
  uint32_t stop; /* the last session the CPU has stopped */
  uint32_t pad_stop[15];
} cb_llh_ctrl;

/* The resident kernel's arguments (device addresses). */
typedef struct {
  void *ring;               /* CB_LLH_RING_CHUNKS x CB_LLH_CHUNK_PACKETS packets, host memory */
  cb_llh_ctrl *ctrl;        /* host memory */
  void *dev;                /* h2d: destination, d2h: source, in device memory (8-byte aligned) */
  uint64_t bytes;           /* of one copy */
  uint32_t first_chunk;     /* the session's first global chunk number */
  uint32_t first_copy;      /* d2h: the session's first copy number */
  uint32_t chunks_per_copy; /* cb_llh_chunks(bytes) */
  uint32_t session;
  int rank, kernel_id;
  char kernel_name[16];
  uint64_t timeout_ns;
} cb_llh_args;

static inline CB_LLH_HD uint64_t cb_llh_packets(uint64_t bytes) {
  return (bytes + CB_LLH_PACKET_DATA - 1) / CB_LLH_PACKET_DATA;
}
static inline CB_LLH_HD uint32_t cb_llh_chunks(uint64_t bytes) {
  uint64_t c = (cb_llh_packets(bytes) + CB_LLH_CHUNK_PACKETS - 1) / CB_LLH_CHUNK_PACKETS;
  return c ? (uint32_t)c : 1; /* an empty copy still takes a chunk (of no packet) */
}
/* Packets in chunk j (0-based) of a copy of bytes. */
static inline CB_LLH_HD uint32_t cb_llh_chunk_packets(uint64_t bytes, uint32_t j) {
  uint64_t first = (uint64_t)j * CB_LLH_CHUNK_PACKETS, total = cb_llh_packets(bytes);
  if (first >= total) return 0;
  return total - first < CB_LLH_CHUNK_PACKETS ? (uint32_t)(total - first) : CB_LLH_CHUNK_PACKETS;
}
/* Blocks of the resident kernel for copies of bytes: no more than chunks. */
static inline CB_LLH_HD int cb_llh_blocks(uint64_t bytes, int max_blocks) {
  uint32_t c = cb_llh_chunks(bytes);
  return c < (uint32_t)max_blocks ? (int)c : max_blocks;
}
/* a >= b for counters compared modulo 2^32. */
static inline CB_LLH_HD int cb_llh_reached(uint32_t a, uint32_t b) {
  return (int32_t)(a - b) >= 0;
}

/* Blocks of the resident kernels the device holds at once (copy_llhost.cu). */
int cb_copy_llh_resident_blocks(int device);
/* Starts the resident kernel (copy_llhost.cu). */
void cb_copy_llh_launch(const cb_llh_args *a, int h2d, int blocks, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
