/* -k 4 llhost: copies between host memory and this GPU through a resident
 * GPU kernel that talks to the CPU through mapped pinned host memory. What
 * the CPU side (copy_llhost.c) and the GPU side (copy_llhost.cu) share: the
 * protocols, the ring's layout, the control words and the kernel's
 * arguments. C and CUDA.
 *
 * Two protocols, chosen per size, direction and post (CB_LLHOST_H2D_LL_MAX,
 * CB_LLHOST_D2H_LL_MAX, their WINDOW_LL_MAX for a post of more than one
 * copy and, h2d, CB_LLHOST_STAGE_MAX; per rank):
 *
 *  LL16, for copies of up to the direction's LL_MAX bytes (in a window, its
 *   WINDOW_LL_MAX: there the copies' round trips overlap and LL16's cost per
 *   packet is what is left, docs/copy_perf.md, "The crossovers"): data and
 *   flag in one store, no doorbell. Cheapest for a few packets, but every
 *   packet is polled on its own and carries 8 data bytes in 16.
 *  flag, above: the payload first, then ONE flag word per chunk of
 *   CB_LLH_FLAG_CHUNK bytes. One thread per block polls the flag; the whole
 *   block then moves the payload with 16-byte coalesced accesses.
 *   flag-direct (the host buffer is pinned and mapped): the GPU reads the
 *     user's host buffer (h2d) or writes it (d2h) itself; the CPU only
 *     rings a doorbell (h2d) or polls a flag (d2h).
 *   flag-staged (--pageable: the GPU cannot address the buffer; and h2d
 *     copies of up to CB_LLHOST_STAGE_MAX bytes, 0 by default): the payload
 *     goes through a staging ring in pinned memory, copied by the CPU.
 *     Staging small h2d copies from pinned memory was for windows, while
 *     the GPU read the host buffer with volatile loads: those of one host
 *     line from several blocks waited on each other, and a window of
 *     copies of one buffer reads the same lines over and over. With
 *     ld.global.cg (copy_llhost.cu) direct reads beat staging at every
 *     size (docs/copy_perf.md, "flag-direct h2d: ld.global.cg, nothing
 *     staged"), so nothing is staged by default.
 *
 * ---- What both protocols share ----------------------------------------------
 *
 * Chunks. A copy is cut into chunks (LL16: CB_LLH_CHUNK_PACKETS packets, 4
 * KiB of data; flag: CB_LLH_FLAG_CHUNK bytes; the last may be partial, an
 * empty copy still takes one). Chunks are numbered over the whole setup,
 * g = 0, 1, 2, ... across copies, sizes and protocols (a copy starts a new
 * chunk); the CPU refuses to go past CB_LLH_CHUNK_LIMIT, so chunk numbers
 * never wrap. Chunk g uses slot r = g % CB_LLH_RING_CHUNKS and carries
 * flag g + 1 (flag 0 is no chunk's, and every word starts at 0).
 *
 * Blocks. The resident kernel runs B blocks of CB_LLH_THREADS threads,
 * started outside timing for a session of posts of some copies each (B:
 * CB_LLHOST_BLOCKS, no more than the chunks of such a post; the runner
 * starts one session for a size's latency copies and one for its windows,
 * and a post of more copies is served too); block b handles the session's chunks
 * first + b, first + b + B, ... one after the other. So block b's latest
 * chunk being done means all of its earlier ones are, and the last B chunks
 * posted (consecutive numbers: one per block) tell when everything is.
 *
 * Control words (cb_llh_ctrl), each written by one side only, each on a
 * line of its own (CB_LLH_LINE): the GPU polls a word with reads over PCIe,
 * and reads of one line from several blocks, or a CPU store into a line
 * other blocks keep reading, wait on each other (on one H100, d2h's 4 KiB
 * window bandwidth went from 3.2 to 23 GB/s when 32 blocks stopped polling
 * one doorbell: docs/copy_perf.md, "Control words, one a line"):
 *  consumed[r] (h2d): the flag of the last chunk of slot r the GPU has
 *    finished with (read it and stored its bytes into device memory);
 *  ready[r] (flag protocol): the flag of the last chunk of slot r its
 *    producer has published (its payload is in place);
 *  asked[r] (d2h): the flag of the last chunk of slot r the CPU has asked
 *    the GPU for (the doorbell, a chunk at a time);
 *  stop: the last session the CPU has stopped.
 *
 * The rules. Producer P and consumer C of chunk g (h2d: P the CPU, C block
 * g % B; d2h: P block g % B, C the CPU):
 *  P1 P starts chunk g (writes its packets or payload) only once chunk
 *     g - RING, the slot's previous one, is done with: h2d, the CPU has
 *     acquired consumed[r] >= g + 1 - RING; d2h, the GPU has acquired
 *     asked[r] == g + 1, which the CPU releases only once it has itself
 *     consumed chunk g - RING (and which is also the doorbell).
 *  P2 (flag) P publishes chunk g with a release store ready[r] = g + 1,
 *     after its payload.
 *  C1 (flag) C touches chunk g's payload only once it has acquired
 *     ready[r] == g + 1. (LL16: C takes a packet only once both its flags
 *     equal g + 1.)
 *  C2 C lets the slot go once it is done with the chunk: h2d, the GPU
 *     releases consumed[r] = g + 1; d2h, the CPU releases asked[r] for
 *     chunk g + RING, if it wants it, only after its last access of chunk g.
 *  Counters in shared words are compared modulo 2^32 (cb_llh_reached).
 *
 * Acquires on the GPU are ld.acquire.sys, releases st.release.sys: an
 * acquiring load is a strong load and an L1 invalidation, where a volatile
 * load and fence.acq_rel.sys wait for a system-scope fence each time, so
 * the GPU pays a fence per chunk only where it must release (h2d consumed,
 * d2h flag ready), never to acquire (d2h LL16 at 8 B: 3.69 -> 2.83 us on
 * one H100, docs/copy_perf.md, "Control words, one a line").
 *
 * ---- Proof (flag protocol; LL16's below) --------------------------------------
 *
 * No reader sees a stale flag. ready[r] only ever holds flags of slot r's
 * chunks, and grows. When C waits for chunk g it holds g + 1 - RING or
 * g + 1, never a later flag: P publishes chunk g + RING only after P1 (h2d:
 * consumed[r] >= g + 1, which the GPU writes after it has taken chunk g;
 * d2h: asked[r] == g + RING + 1, which the CPU writes after it has taken
 * chunk g). Flags are unique within a setup (chunk numbers never wrap), so
 * a word left by any older chunk, of this session or an earlier one of
 * either protocol, never equals g + 1: C1 tests for equality. asked[r]
 * likewise holds only slot r's chunks' flags, each written once, so the
 * GPU's wait for asked[r] == g + 1 (P1 in d2h) is exact too.
 *
 * The payload is in place when its flag is seen (P2 -> C1). h2d: the CPU
 * writes the payload (staged: non-temporal stores then sfence, which x86
 * needs because its ordering of ordinary stores does not cover
 * non-temporal ones; direct: the user wrote the buffer before post(), by
 * whatever stores it chose, non-temporal ones too, so post() begins with
 * an sfence before its first ready[r]: a release store orders the CPU's
 * ordinary stores only), then release-stores ready[r]; GPU thread 0 polls ready[r] with
 * ld.acquire.sys until it sees g + 1; bar.sync then orders every thread of
 * the block after that acquire, so every payload load is performed after
 * the CPU's stores are visible. flag-direct's payload loads are weak
 * (ld.global.cg): ordered after the acquire, they read the CPU's stores or
 * later ones, never an older line of any cache. d2h: every thread stores
 * its part of the payload; bar.sync; thread 0 st.release.sys ready[r],
 * whose release is cumulative: it covers the stores of the whole block
 * ordered before it by the barrier; the CPU acquire-loads ready[r] before
 * it reads the payload (staged) or returns from complete() (direct).
 *
 * The writer cannot lap the reader (P1 <- C2). h2d: the CPU writes slot r
 * for chunk g + RING only after acquiring consumed[r] >= g + 1, which the
 * GPU released after its last access of chunk g. d2h: the GPU writes slot r
 * for chunk g + RING only after acquiring asked[r] == g + RING + 1, which
 * the CPU released after it consumed chunk g (it consumes in order, and
 * asks for a chunk only while it is fewer than RING ahead of the next one
 * it reads). Either way the reads of chunk g happen before the writes of
 * chunk g + RING. In the direct protocol the slot holds no payload, yet the
 * rule stays: it keeps P within RING chunks of C, so every pair of flags
 * compared modulo 2^32 is within RING of each other and the comparison is
 * exact. The d2h doorbell also orders the CPU's earlier accesses of the
 * destination (asked[r] is a release store) before the GPU's writes into
 * it.
 *
 * Completion implies every byte is in place. d2h: complete() consumes every
 * chunk in order, each after acquiring its ready word (so every byte the
 * GPU stored is visible to the CPU), staged ones copied out by the CPU
 * itself. h2d: complete() acquires consumed[r] >= g + 1 for the last
 * min(posted, B) chunks, one per block that took any; each block took its
 * chunks in order, and its release of its last chunk's word is cumulative
 * over the device stores of all its earlier chunks (each ordered before it
 * by the block's barriers). After complete() the CPU knows every chunk
 * below the one it posts next is consumed, so P1 needs no load for them.
 *
 * Stop. The CPU stops a session only after complete() has returned (d2h:
 * every chunk asked for is read), so a block still waiting (h2d: for a
 * flag; d2h: to be asked) waits for a chunk that will never come; it checks
 * the stop word every 256 polls and returns. The CPU release-stores stop after
 * every access of the session and waits, bounded, for the kernel to end.
 *
 * ---- LL16 -----------------------------------------------------------------
 *
 * Packets. LL16: {data0, flag, data1, flag}, 8 data bytes in 16. Each
 * 8-byte half carries the flag, so a packet torn into its two halves (the
 * CPU writes and reads it as two 8-byte atomic accesses, or writes large
 * h2d chunks, on Intel CPUs, by 16-byte non-temporal stores whose 8-byte
 * halves each land whole: copy_llhost.c; the GPU accesses it as one
 * 16-byte access) is still never taken for complete: the reader checks
 * both flags. No fence between data and flag, no doorbell, no ready word.
 * The LL16 ring only ever holds packets (flag-staged payloads have a ring
 * of their own), so its flag halves only ever hold chunk flags: a reader
 * never takes user data for a flag. P1 and C2 hold as above, with packets
 * for the payload: h2d, each thread polls its own packet and stores its
 * data; bar.sync; thread 0 st.release.sys consumed[r]; bar.sync (no
 * thread polls the next chunk while the release waits). d2h, thread 0
 * acquires asked[r] == g + 1 (P1); bar.sync; each thread writes its
 * packet; the CPU polls every packet of every chunk in order, then may ask
 * for the slot's next chunk (C2).
 *
 * Every wait, on both sides, is bounded by -T. */
#ifndef CB_COPY_LLHOST_H
#define CB_COPY_LLHOST_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "collbench/wait.h"

#ifdef __CUDACC__
#define CB_LLH_HD __host__ __device__
#else
#define CB_LLH_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CB_LLH_THREADS       512 /* threads per block, both protocols */
#define CB_LLH_PACKET_BYTES  16
#define CB_LLH_PACKET_DATA   8
#define CB_LLH_CHUNK_PACKETS CB_LLH_THREADS /* LL16: a packet per thread */
#define CB_LLH_CHUNK_DATA    (CB_LLH_CHUNK_PACKETS * CB_LLH_PACKET_DATA) /* 4 KiB */
/* h2d LL16 chunks of this many packets or more (1 KiB of data) are written
 * by non-temporal stores where the CPU keeps their halves whole
 * (copy_llhost.c): from there they were faster alone and in windows;
 * below, no faster (docs/copy_perf.md, "LL16 h2d: the stores and the
 * release"). */
#define CB_LLH_NT_PACKETS 128
/* flag: 16 KiB a chunk, two 16-byte vectors per thread, both loads in
 * flight before their stores. Small enough that a copy of some tens of KiB
 * is spread over several blocks (each with its own flag and its own loads
 * in flight over PCIe: a latency-bound transfer wants many), large enough
 * that a flag costs little beside its payload (one word per 16 KiB). */
#define CB_LLH_FLAG_CHUNK  (16u << 10)
#define CB_LLH_CHUNK_LIMIT (0xffffffffu - (1u << 20)) /* chunk numbers a setup may use */
#define CB_LLH_LL_SLOT     (CB_LLH_CHUNK_PACKETS * CB_LLH_PACKET_BYTES) /* bytes */
#define CB_LLH_STAGE_SLOT  CB_LLH_FLAG_CHUNK
/* Slots of each ring (LL16: 2 MiB of packets, 1 MiB of data; staged: 4 MiB),
 * and words of each control array. Enough for the blocks (CB_LLHOST_BLOCKS:
 * at most one per slot) and a window's copies in flight, no more: the CPU
 * writes packets and staged payloads slot after slot, and the fewer lines a
 * ring spans, the likelier its caches still hold them. 1024 slots measured
 * no better (docs/copy_perf.md, "Rings and blocks"). */
#define CB_LLH_RING_CHUNKS 256

typedef enum {
  CB_LLH_LL16 = 0,        /* LL16 packets through the packet ring */
  CB_LLH_FLAG_DIRECT = 1, /* payload then flag; the GPU addresses the host buffer */
  CB_LLH_FLAG_STAGED = 2  /* payload then flag, through the staging ring */
} cb_llh_protocol;

/* A control word on a line of its own: 128 bytes, two of x86's cache lines
 * and one of the GPU's, so that no two words share a line either side. */
#define CB_LLH_LINE 128
typedef struct {
  uint32_t v;
  uint32_t pad[CB_LLH_LINE / sizeof(uint32_t) - 1];
} cb_llh_word;

/* Control words, in mapped pinned host memory (384 KiB). */
typedef struct {
  cb_llh_word consumed[CB_LLH_RING_CHUNKS]; /* h2d: per slot, flag of the last chunk consumed */
  cb_llh_word ready[CB_LLH_RING_CHUNKS];    /* flag: per slot, flag of the last chunk published */
  cb_llh_word asked[CB_LLH_RING_CHUNKS];    /* d2h: per slot, flag of the last chunk asked for */
  cb_llh_word stop;                         /* the last session the CPU has stopped */
} cb_llh_ctrl;

/* The resident kernel's arguments (device addresses). */
typedef struct {
  void *ring;        /* LL16: CB_LLH_RING_CHUNKS slots of CB_LLH_LL_SLOT bytes, host memory */
  void *stage;       /* flag-staged: slots of CB_LLH_STAGE_SLOT bytes, host memory, else NULL */
  void *host;        /* flag-direct: the host end of the copy (h2d source, d2h destination) */
  cb_llh_ctrl *ctrl; /* host memory */
  void *dev;         /* h2d: destination, d2h: source, in device memory (LL16: 8-byte, flag: 16-byte
                        aligned) */
  uint64_t bytes;    /* of one copy */
  uint32_t first_chunk;     /* the session's first global chunk number */
  uint32_t chunks_per_copy; /* cb_llh_chunks(bytes, its protocol) */
  uint32_t session;
  int protocol;     /* cb_llh_protocol */
  cb_spin_info who; /* who waits, and how long (collbench/wait.h) */
} cb_llh_args;

/* The protocol that moves a copy of bytes: LL16 up to ll_max (0: never; the
 * caller passes a window's limit for a post of more than one copy),
 * else the flag protocol, staged up to stage_max (0: never) or where the GPU
 * cannot address the host buffer, direct otherwise. */
static inline CB_LLH_HD cb_llh_protocol cb_llh_protocol_for(uint64_t bytes, uint64_t ll_max,
                                                            uint64_t stage_max, int host_mapped) {
  if (ll_max > 0 && bytes <= ll_max) return CB_LLH_LL16;
  if (!host_mapped || (stage_max > 0 && bytes <= stage_max)) return CB_LLH_FLAG_STAGED;
  return CB_LLH_FLAG_DIRECT;
}
/* Payload bytes of a full chunk of protocol p. */
static inline CB_LLH_HD uint32_t cb_llh_chunk_data(int p) {
  return p == CB_LLH_LL16 ? CB_LLH_CHUNK_DATA : CB_LLH_FLAG_CHUNK;
}
static inline CB_LLH_HD uint64_t cb_llh_packets(uint64_t bytes) {
  return (bytes + CB_LLH_PACKET_DATA - 1) / CB_LLH_PACKET_DATA;
}
/* Chunks of a copy of bytes in protocol p. */
static inline CB_LLH_HD uint32_t cb_llh_chunks(uint64_t bytes, int p) {
  uint64_t per = cb_llh_chunk_data(p), c = (bytes + per - 1) / per;
  return c ? (uint32_t)c : 1; /* an empty copy still takes a chunk (of no byte) */
}
/* Payload bytes of chunk j (0-based) of a copy of bytes in protocol p. */
static inline CB_LLH_HD uint32_t cb_llh_chunk_bytes(uint64_t bytes, int p, uint32_t j) {
  uint64_t per = cb_llh_chunk_data(p), first = (uint64_t)j * per;
  if (first >= bytes) return 0;
  return bytes - first < per ? (uint32_t)(bytes - first) : (uint32_t)per;
}
/* LL16: packets in chunk j of a copy of bytes. */
static inline CB_LLH_HD uint32_t cb_llh_chunk_packets(uint64_t bytes, uint32_t j) {
  return (uint32_t)cb_llh_packets(cb_llh_chunk_bytes(bytes, CB_LLH_LL16, j));
}
/* Blocks of the resident kernel: max_blocks, but no more than the chunks
 * of a window of copies (a window's copies go to different blocks, so the
 * GPU works on them at once). */
static inline CB_LLH_HD int cb_llh_blocks(uint32_t chunks_per_copy, int window, int max_blocks) {
  uint64_t c = (uint64_t)chunks_per_copy * (uint64_t)(window > 0 ? window : 1);
  return c < (uint64_t)max_blocks ? (int)c : max_blocks;
}
/* a >= b for counters compared modulo 2^32. */
static inline CB_LLH_HD int cb_llh_reached(uint32_t a, uint32_t b) {
  return (int32_t)(a - b) >= 0;
}

/* The name a report gives protocol p. */
const char *cb_llh_protocol_name(int p);

/* The CPU's store fence (x86 sfence; copy_llhost.c): every store before it,
 * non-temporal ones included, is visible before any store after it. */
void cb_llh_store_fence(void);

/* Blocks of the resident kernels the device holds at once (copy_llhost.cu). */
int cb_copy_llh_resident_blocks(int device);
/* Starts the resident kernel of a's protocol and the direction (copy_llhost.cu). */
void cb_copy_llh_launch(const cb_llh_args *a, int h2d, int blocks, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
