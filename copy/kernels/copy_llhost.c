/* -k 4 llhost, the CPU side (protocols and proof in copy_llhost.h). LL16
 * for small copies: the CPU writes packets into a ring in mapped pinned
 * host memory (h2d) or polls the packets the resident kernel writes there
 * (d2h). The flag protocol above: h2d, the CPU makes the payload visible
 * (the user's buffer itself, or a copy in the staging ring) and releases
 * one flag per chunk, which one thread per block of the resident kernel
 * polls; d2h, the CPU asks for each chunk (a doorbell word per ring slot)
 * and waits for one flag per chunk.
 * The kernel starts once per size, outside timing, and is stopped cleanly;
 * every wait here is bounded by -T and also notices a resident kernel that
 * died.
 *
 * CPU accesses to the rings and the control words:
 *  - LL16 packet halves are written and read with 8-byte atomic accesses
 *    (__atomic builtins, relaxed): one single-copy-atomic access each,
 *    which plain C could split or merge; each half carries its flag, so
 *    nothing else orders data against flag. On Intel CPUs, h2d chunks of
 *    CB_LLH_NT_PACKETS packets or more are written with non-temporal
 *    16-byte stores instead (nt_keeps_halves_whole() says why each half
 *    still lands whole), and post() ends with an sfence, which pushes
 *    them out of the write-combining buffers;
 *  - no fence after ordinary packet stores: the ring is ordinary cached
 *    memory the GPU reads coherently, so they reach it as the store buffer
 *    drains;
 *  - words the CPU writes (ready, asked, stop) are release stores,
 *    words it reads (consumed, ready) acquire loads: the comments say what
 *    each orders. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <cpuid.h>     /* __get_cpuid: the CPU's vendor */
#include <emmintrin.h> /* _mm_stream_si128, _mm_sfence */
#endif

#include "copy_kernels.h"
#include "copy_llhost.h"
#include "cuda_check.h"
#include "error.h"
#include "gpu.h" /* cb_gpu_wait */
#include "host_poll.h"
#include "tunables.h"

typedef struct {
  int h2d;
  uint64_t *ring; /* LL16 packets; packet i of slot r is ring[2 * (r * CHUNK_PACKETS + i)] */
  void *ring_dev;
  unsigned char *stage; /* flag-staged payloads (pageable host memory only), else NULL */
  void *stage_dev;
  cb_llh_ctrl *ctrl; /* host address */
  cb_llh_ctrl *ctrl_dev;
  int max_blocks;         /* CB_LLHOST_BLOCKS */
  uint64_t ll_max;        /* ll_max_for(h2d) */
  uint64_t window_ll_max; /* window_ll_max_for(h2d, ll_max) */
  uint64_t stage_max;     /* stage_max_for(h2d) */
  int nt_packets;         /* h2d LL16: large chunks' packets by non-temporal stores (Intel only) */
  int nt_pending;         /* non-temporal stores not yet fenced */
  /* Counters that only grow over the whole setup (all sizes). */
  uint32_t next_chunk;     /* the next chunk a post uses */
  uint32_t asked_chunk;    /* d2h: every chunk below it has been asked for */
  uint32_t read_chunk;     /* d2h: the next chunk the CPU consumes */
  uint32_t known_consumed; /* h2d: every chunk below it is consumed (complete() saw it) */
  uint32_t session;
  /* The running session. */
  int running;
  cb_copy_call call;
  int protocol;
  uint32_t first_chunk, cpc;
  int blocks;
  cudaStream_t stream;
} llh_state;

const char *cb_llh_protocol_name(int p) {
  static const char *const names[] = {"ll16", "flag-direct", "flag-staged"};
  return p >= 0 && p <= CB_LLH_FLAG_STAGED ? names[p] : "?";
}

/* ---- bounded waits ------------------------------------------------------------ */

/* One poll of a bounded wait (cb_host_poll_tick): is the resident kernel
 * still there, and is the time up? */
static void cpu_tick(cb_host_poll *s, const cb_copy_ctx *ctx, const llh_state *st, const char *what,
                     uint32_t chunk) {
  cb_poll_state state = cb_host_poll_tick(s, st->stream, ctx->timeout_s);
  if (state == CB_POLL_KERNEL_ENDED)
    cb_fatal("kernel %d (%s) %s: the resident GPU kernel ended while the CPU waited for %s "
             "(chunk %u of session %u)",
             ctx->kernel_id, ctx->kernel_name, cb_copy_dir_name(ctx->dir), what, chunk,
             st->session);
  if (state == CB_POLL_TIMED_OUT)
    cb_fatal("kernel %d (%s) %s %zu B: timed out after %d s waiting for %s (chunk %u of session "
             "%u)",
             ctx->kernel_id, ctx->kernel_name, cb_copy_dir_name(ctx->dir), st->call.bytes,
             ctx->timeout_s, what, chunk, st->session);
}

/* Acquire: pairs with the GPU's release of the word (st.release.sys, or
 * bar.sync + st.release.sys); what the CPU does after it (write a slot,
 * read a payload, return from complete()) follows everything the GPU did
 * before it. */
static uint32_t load_acquire(const uint32_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Release: every access the CPU made before (to a slot, a payload, the
 * user's buffer) is complete before the GPU can see this word. */
static void store_release(uint32_t *p, uint32_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* The direction's LL16 limit: CB_LLHOST_H2D_LL_MAX or CB_LLHOST_D2H_LL_MAX. */
static const char *ll_max_name(int h2d) {
  return h2d ? "CB_LLHOST_H2D_LL_MAX" : "CB_LLHOST_D2H_LL_MAX";
}
static uint64_t ll_max_for(int h2d) {
  return (uint64_t)cb_tunable(ll_max_name(h2d));
}

/* The LL16 limit of a window (a post of more than one copy):
 * CB_LLHOST_H2D_WINDOW_LL_MAX or CB_LLHOST_D2H_WINDOW_LL_MAX, and never
 * above ll_max, the direction's LL_MAX (0 there: the flag protocol at every
 * size). */
static const char *window_ll_max_name(int h2d) {
  return h2d ? "CB_LLHOST_H2D_WINDOW_LL_MAX" : "CB_LLHOST_D2H_WINDOW_LL_MAX";
}
static uint64_t window_ll_max_for(int h2d, uint64_t ll_max) {
  uint64_t w = (uint64_t)cb_tunable(window_ll_max_name(h2d));
  return w < ll_max ? w : ll_max;
}

/* The LL16 limit of a post of copies copies. */
static uint64_t post_ll_max(uint64_t ll_max, uint64_t window_ll_max, uint64_t copies) {
  return copies > 1 ? window_ll_max : ll_max;
}

/* CB_LLHOST_STAGE_MAX where it applies: h2d; d2h stages nothing from pinned
 * memory (direct is the faster there). */
static uint64_t stage_max_for(int h2d) {
  return h2d ? (uint64_t)cb_tunable("CB_LLHOST_STAGE_MAX") : 0;
}

/* ---- a run it could not finish ------------------------------------------------------ */

/* Chunk numbers are 32-bit over a setup (a direction's sizes: copy_llhost.h),
 * and the CPU refuses to go past CB_LLH_CHUNK_LIMIT (count_chunks): a run
 * that would is refused before it starts, not cut short in its middle. The
 * count is the least the run moves (--overlap adds copies beside the load,
 * which count_chunks still bounds). */
const char *cb_copy_llh_refuse_run(const cb_copy_options *o, cb_copy_dir d, uint64_t copies,
                                   char *buf, size_t len) {
  const uint64_t ll_max = ll_max_for(d == CB_H2D);
  const uint64_t window_ll_max = window_ll_max_for(d == CB_H2D, ll_max);
  const uint64_t stage_max = stage_max_for(d == CB_H2D);
  uint64_t chunks = 0;
  for (size_t i = 0; i < cb_sweep_count(&o->sweep); i++) {
    uint64_t bytes = cb_sweep_size(&o->sweep, i);
    /* Pinned host memory is always mapped (copy_runner.c): !pageable is
     * what setup's ctx->host_mapped will say. Single copies and windows may
     * take different protocols: each copy counts as the one of fewer
     * chunks, so that this stays the least the run moves. */
    int p1 = cb_llh_protocol_for(bytes, ll_max, stage_max, !o->pageable);
    int pw = cb_llh_protocol_for(bytes, window_ll_max, stage_max, !o->pageable);
    uint32_t c1 = cb_llh_chunks(bytes, p1), cw = cb_llh_chunks(bytes, pw);
    chunks += copies * (c1 < cw ? c1 : cw);
    if (chunks > CB_LLH_CHUNK_LIMIT) {
      snprintf(buf, len,
               "-k llhost -D %s: this run would pass more than %u chunks (llhost's 32-bit chunk "
               "numbers) through its resident kernel by %llu B, at %llu copies of each size: "
               "fewer iterations (-n), a smaller window (-W) or a smaller -e",
               cb_copy_dir_name(d), (unsigned)CB_LLH_CHUNK_LIMIT, (unsigned long long)bytes,
               (unsigned long long)copies);
      return buf;
    }
  }
  return NULL;
}

/* ---- setup ---------------------------------------------------------------------- */

/* Whether some size above LL16 is staged from pinned memory (h2d,
 * CB_LLHOST_STAGE_MAX above LL16's limit in a window, which is at most a
 * single copy's). */
static int stages_from_pinned(const llh_state *st) {
  return st->stage_max > st->window_ll_max;
}

/* Whether this CPU's non-temporal stores keep LL16's 8-byte halves whole:
 * Intel's (the SDM, vol. 3A, "Buffering of Write Combining Memory
 * Locations": a full write-combining buffer goes out as one burst, and a
 * partial one propagates all the data of an 8-byte-aligned chunk at once).
 * Other vendors' manuals say nothing of it: ordinary stores there. */
#if defined(__SSE2__)
static int nt_keeps_halves_whole(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
  return b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu; /* "GenuineIntel" */
}
#endif

static int nt_mode = -1; /* cb_copy_llh_nt_stores() */

void cb_copy_llh_nt_stores(int mode) {
  nt_mode = mode;
}

/* Whether setup writes large LL16 h2d chunks with non-temporal stores. */
static int nt_packets_for(int h2d) {
  if (!h2d) return 0;
#if defined(__SSE2__)
  return nt_mode < 0 ? nt_keeps_halves_whole() : nt_mode > 0;
#else
  return 0; /* no non-temporal store to use */
#endif
}

/* Pinned, mapped (the GPU addresses it), zeroed: flag 0 is no chunk's, so a
 * zeroed ring or word holds nothing any reader waits for. Not
 * write-combined: the CPU polls it, and WC reads are uncached. */
static void *alloc_shared(size_t bytes, void **dev) {
  void *p;
  CB_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  memset(p, 0, bytes);
  CB_CUDA(cudaHostGetDevicePointer(dev, p, 0));
  return p;
}

const char *cb_copy_llh_setup(cb_copy_ctx *ctx) {
  llh_state *st = calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  st->h2d = ctx->dir == CB_H2D;
  /* Both checked at start (tunables.c). */
  st->max_blocks = (int)cb_tunable("CB_LLHOST_BLOCKS");
  st->ll_max = ll_max_for(st->h2d);
  st->window_ll_max = window_ll_max_for(st->h2d, st->ll_max);
  st->stage_max = stage_max_for(st->h2d);
  st->nt_packets = nt_packets_for(st->h2d);
  /* Every block stays resident until the session stops: the GPU must hold
   * them all at once, or the ones left waiting for a free SM never run. */
  int resident = cb_copy_llh_resident_blocks(ctx->device);
  if (st->max_blocks > resident)
    cb_fatal("CB_LLHOST_BLOCKS=%d: device %d holds at most %d resident blocks of %d threads",
             st->max_blocks, ctx->device, resident, CB_LLH_THREADS);
  st->ring = alloc_shared((size_t)CB_LLH_RING_CHUNKS * CB_LLH_LL_SLOT, &st->ring_dev);
  /* A ring of its own for staged payloads: the LL16 ring's flag halves must
   * only ever hold flags (copy_llhost.h). Only where some size is staged. */
  if (!ctx->host_mapped || stages_from_pinned(st))
    st->stage = alloc_shared((size_t)CB_LLH_RING_CHUNKS * CB_LLH_STAGE_SLOT, &st->stage_dev);
  st->ctrl = alloc_shared(sizeof *st->ctrl, (void **)&st->ctrl_dev);
  ctx->state = st;
  return NULL;
}

void cb_copy_llh_teardown(cb_copy_ctx *ctx) {
  llh_state *st = ctx->state;
  CB_CUDA(cudaFreeHost(st->ring));
  if (st->stage) CB_CUDA(cudaFreeHost(st->stage));
  CB_CUDA(cudaFreeHost(st->ctrl));
  free(st);
  ctx->state = NULL;
}

/* ---- what it runs at each size ---------------------------------------------------- */

/* The protocol of a copy of bytes in a post of copies copies. */
static int protocol_of(const cb_copy_ctx *ctx, const llh_state *st, uint64_t bytes,
                       uint64_t copies) {
  return cb_llh_protocol_for(bytes, post_ll_max(st->ll_max, st->window_ll_max, copies),
                             st->stage_max, ctx->host_mapped != NULL);
}

const char *cb_copy_llh_protocol(const cb_copy_ctx *ctx, size_t bytes, int copies) {
  return cb_llh_protocol_name(protocol_of(ctx, ctx->state, bytes, (uint64_t)copies));
}

void cb_copy_llh_describe(const cb_copy_ctx *ctx, char *buf, size_t len) {
  const llh_state *st = ctx->state;
  char ll[256] = "", nt[64] = "", window[96] = "", staged[96] = "", flag[160];
  /* The CPU's store kind too: it depends on the CPU (nt_keeps_halves_whole()). */
  if (st->nt_packets)
    snprintf(nt, sizeof nt, ", non-temporal CPU stores for chunks of %u KiB or more",
             (CB_LLH_NT_PACKETS * CB_LLH_PACKET_DATA) >> 10);
  /* Windows' limit, where it is below a single copy's. */
  if (st->window_ll_max == 0 && st->ll_max > 0)
    snprintf(window, sizeof window, ", none in windows (%s=0)", window_ll_max_name(st->h2d));
  else if (st->window_ll_max < st->ll_max)
    snprintf(window, sizeof window, ", in windows up to %llu B (%s)",
             (unsigned long long)st->window_ll_max, window_ll_max_name(st->h2d));
  if (st->ll_max > 0)
    snprintf(ll, sizeof ll, "LL16 up to %llu B (data and flag in one store%s; %s)%s, ",
             (unsigned long long)st->ll_max, nt, ll_max_name(st->h2d), window);
  if (ctx->host_mapped && stages_from_pinned(st))
    snprintf(staged, sizeof staged, "flag-staged up to %llu B (CB_LLHOST_STAGE_MAX), ",
             (unsigned long long)st->stage_max);
  snprintf(flag, sizeof flag, "%s (payload, then one flag per %u KiB chunk; %s)",
           cb_llh_protocol_name(protocol_of(ctx, st, UINT64_MAX, 1)), CB_LLH_FLAG_CHUNK >> 10,
           ctx->host_mapped
               ? (st->h2d ? "the GPU reads the host buffer" : "the GPU writes the host buffer")
               : "staged through a pinned ring by the CPU");
  if (!ll[0] && !staged[0])
    snprintf(buf, len, "protocol: %s at every size (%s=0)", flag, ll_max_name(st->h2d));
  else
    snprintf(buf, len, "protocol: %s%sthen %s", ll, staged, flag);
}

/* ---- a session: one size ---------------------------------------------------------- */

/* The host end of the call as the GPU addresses it (flag-direct): all of
 * its bytes inside the mapped buffer, or the GPU would touch what is not. */
static void *mapped_host(const cb_copy_ctx *ctx, const void *p, size_t bytes) {
  const char *h = ctx->host, *q = p;
  if (q < h || bytes > ctx->max_bytes || (size_t)(q - h) > ctx->max_bytes - bytes)
    cb_fatal("kernel %d (%s): the call's host buffer is not inside the mapped one", ctx->kernel_id,
             ctx->kernel_name);
  return (char *)ctx->host_mapped + (q - h);
}

void cb_copy_llh_start(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s) {
  llh_state *st = ctx->state;
  const void *dev = st->h2d ? call->dst : call->src;
  const void *host = st->h2d ? call->src : call->dst;
  if (st->running)
    cb_fatal("kernel %d (%s): a session started while one runs", ctx->kernel_id, ctx->kernel_name);
  /* An empty copy would have chunks that no thread waits on (LL16 h2d: a
   * block would release them all without stopping); the sweep never asks. */
  if (call->bytes == 0)
    cb_fatal("kernel %d (%s): a copy of 0 bytes", ctx->kernel_id, ctx->kernel_name);
  st->protocol = protocol_of(ctx, st, call->bytes, (uint64_t)copies);
  /* LL16 moves 8-byte halves; the flag protocol 16-byte vectors. */
  uintptr_t align = st->protocol == CB_LLH_LL16 ? 8 : 16;
  if (((uintptr_t)dev & (align - 1)) ||
      (st->protocol == CB_LLH_FLAG_DIRECT && ((uintptr_t)host & (align - 1))))
    cb_fatal("kernel %d (%s) %s needs %d-byte aligned buffers", ctx->kernel_id, ctx->kernel_name,
             cb_llh_protocol_name(st->protocol), (int)align);
  st->call = *call;
  st->cpc = cb_llh_chunks(call->bytes, st->protocol);
  /* Blocks for the copies a post is given: one copy of a few chunks keeps
   * the other blocks from polling over PCIe beside it for nothing. */
  st->blocks = cb_llh_blocks(st->cpc, copies, st->max_blocks);
  st->first_chunk = st->next_chunk;
  st->stream = s;
  st->session++;
  cb_llh_args a;
  memset(&a, 0, sizeof a);
  a.ring = st->ring_dev;
  a.stage = st->stage_dev;
  a.host = st->protocol == CB_LLH_FLAG_DIRECT ? mapped_host(ctx, host, call->bytes) : NULL;
  a.ctrl = st->ctrl_dev;
  a.dev = (void *)dev;
  a.bytes = call->bytes;
  a.first_chunk = st->first_chunk;
  a.chunks_per_copy = st->cpc;
  a.session = st->session;
  a.protocol = st->protocol;
  a.who = CB_SPIN_INFO(ctx);
  cb_copy_llh_launch(&a, st->h2d, st->blocks, s);
  st->running = 1;
}

void cb_copy_llh_stop(cb_copy_ctx *ctx, cudaStream_t s) {
  llh_state *st = ctx->state;
  if (!st->h2d && st->read_chunk != st->next_chunk)
    cb_fatal("kernel %d (%s): stopped with d2h chunks unread", ctx->kernel_id, ctx->kernel_name);
  /* h2d: a block reads a chunk's flag, then the stop word; one that saw a
   * stale flag but the stop would leave with a posted chunk unread. The
   * runner completes every post first: this keeps it so. */
  if (st->h2d && st->known_consumed != st->next_chunk)
    cb_fatal("kernel %d (%s): stopped with h2d chunks not yet consumed", ctx->kernel_id,
             ctx->kernel_name);
  /* Release: every access of the session (all complete by now) precedes
   * the stop in the order the GPU observes. */
  store_release(&st->ctrl->stop.v, st->session);
  char what[128];
  snprintf(what, sizeof what, "kernel %d (%s) %s: the resident kernel to stop", ctx->kernel_id,
           ctx->kernel_name, cb_copy_dir_name(ctx->dir));
  cb_gpu_wait(s, ctx->timeout_s, what);
  st->running = 0;
}

/* The chunk numbers of a setup are 32-bit: refuse to wrap them. */
static void count_chunks(const cb_copy_ctx *ctx, const llh_state *st, uint64_t n) {
  if ((uint64_t)st->next_chunk + n > CB_LLH_CHUNK_LIMIT)
    cb_fatal("kernel %d (%s): 2^32 chunks moved in one run: run fewer iterations", ctx->kernel_id,
             ctx->kernel_name);
}

/* The store fence of x86 (sfence): every store before it, non-temporal
 * ones included, is globally visible before any store after it. Weak, so
 * that tests/unit/test_llhost_protocol.c can see where it is called. */
__attribute__((weak)) void cb_llh_store_fence(void) {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/* Pushes the post's non-temporal stores out of the write-combining
 * buffers, which hold a partly written line until something evicts it
 * (Intel's manual: software empties them where it needs the data seen):
 * before the CPU waits on the GPU, and at the end of post(). Not for their
 * order: LL16 needs none. */
static void flush_nt_packets(llh_state *st) {
  if (st->nt_pending) cb_llh_store_fence();
  st->nt_pending = 0;
}

/* h2d, rule P1: slot r may take chunk g once chunk g - RING is consumed.
 * Below known_consumed the CPU knows it already (complete() acquired it),
 * which spares the load in the steady state of a latency or window run. */
static void wait_slot_free(const cb_copy_ctx *ctx, llh_state *st, uint32_t g) {
  if (g < CB_LLH_RING_CHUNKS || g - CB_LLH_RING_CHUNKS < st->known_consumed) return;
  const uint32_t r = g % CB_LLH_RING_CHUNKS;
  flush_nt_packets(st); /* the GPU frees the slot only once it has seen them */
  cb_host_poll spin = {0, 0};
  while (!cb_llh_reached(load_acquire(&st->ctrl->consumed[r].v), g + 1 - CB_LLH_RING_CHUNKS))
    cpu_tick(&spin, ctx, st, "the GPU to free a ring slot", g);
}

/* A packet's 8 data bytes, or the left bytes of a copy's short last packet.
 * The full packet's memcpy has a constant size, which the compiler turns
 * into one load and one store: with a size known only at run time it was a
 * call to memcpy per packet (docs/copy_perf.md, "LL16 h2d: the stores and
 * the release"). */
static inline void copy_packet_data(void *to, const void *from, uint64_t left) {
  if (left >= CB_LLH_PACKET_DATA)
    memcpy(to, from, CB_LLH_PACKET_DATA);
  else
    memcpy(to, from, (size_t)left);
}

/* h2d LL16, n packets from src with the given flag, by non-temporal
 * 16-byte stores: they write the lines without reading them first. The
 * GPU polls the very lines the CPU writes, and with ordinary stores each
 * line it had read came back to the CPU by a read-for-ownership: 4 KiB
 * took 1.1-1.5 us to write, 0.52-0.55 us so (docs/copy_perf.md, "LL16 h2d:
 * the stores and the release"). Each 8-byte half still lands whole
 * (nt_keeps_halves_whole()), and a packet torn between its halves is
 * never taken (copy_llhost.h). No older packet
 * can land on a newer one: a slot is written again only once the GPU has
 * consumed (seen) every packet of its previous chunk (rule P1). */
static void write_packets_nt(uint64_t *slot, const unsigned char *src, uint64_t left, uint32_t n,
                             uint32_t flag) {
#if defined(__SSE2__)
  for (uint32_t i = 0; i < n; i++) {
    const uint64_t off = (uint64_t)i * CB_LLH_PACKET_DATA;
    uint32_t d[2] = {0, 0};
    copy_packet_data(d, src + off, left - off);
    _mm_stream_si128((__m128i *)&slot[2 * i],
                     _mm_set_epi32((int)flag, (int)d[1], (int)flag, (int)d[0]));
  }
#else
  (void)slot, (void)src, (void)left, (void)n, (void)flag;
#endif
}

/* h2d LL16: write chunk j of the copy as chunk number g. */
static void write_packets(llh_state *st, uint32_t g, uint32_t j) {
  const uint32_t r = g % CB_LLH_RING_CHUNKS, flag = g + 1;
  const unsigned char *src = (const unsigned char *)st->call.src;
  const uint64_t bytes = st->call.bytes, hi_flag = (uint64_t)flag << 32;
  uint64_t *slot = st->ring + 2 * (size_t)r * CB_LLH_CHUNK_PACKETS;
  uint32_t n = cb_llh_chunk_packets(bytes, j);
  uint64_t off = (uint64_t)j * CB_LLH_CHUNK_DATA;
  if (st->nt_packets && n >= CB_LLH_NT_PACKETS) {
    write_packets_nt(slot, src + off, bytes - off, n, flag);
    st->nt_pending = 1;
    return;
  }
  for (uint32_t i = 0; i < n; i++, off += CB_LLH_PACKET_DATA) {
    uint32_t d[2] = {0, 0};
    copy_packet_data(d, src + off, bytes - off);
    __atomic_store_n(&slot[2 * i], hi_flag | d[0], __ATOMIC_RELAXED);
    __atomic_store_n(&slot[2 * i + 1], hi_flag | d[1], __ATOMIC_RELAXED);
  }
}

/* h2d flag-staged: n payload bytes into a staging slot. Non-temporal
 * stores: they write whole lines to memory without reading them first (no
 * read-for-ownership of lines the CPU never reads) and leave no dirty line
 * in the CPU's caches for the GPU's reads to snoop out; the sfence is what
 * makes them visible before the flag, since x86 orders ordinary stores
 * (the flag's release) but not non-temporal ones. Elsewhere a plain copy,
 * which the flag's release orders. */
static void stage_payload(unsigned char *slot, const unsigned char *src, size_t n) {
#if defined(__SSE2__)
  size_t v = n / 16;
  for (size_t i = 0; i < v; i++)
    _mm_stream_si128((__m128i *)slot + i, _mm_loadu_si128((const __m128i *)src + i));
  memcpy(slot + 16 * v, src + 16 * v, n - 16 * v);
  cb_llh_store_fence(); /* orders the non-temporal stores before the release of ready[r] */
#else
  memcpy(slot, src, n);
#endif
}

/* h2d flag: publish chunk j of the copy as chunk number g (rule P2). */
static void publish_chunk(llh_state *st, uint32_t g, uint32_t j) {
  const uint32_t r = g % CB_LLH_RING_CHUNKS;
  if (st->protocol == CB_LLH_FLAG_STAGED) {
    uint64_t off = (uint64_t)j * CB_LLH_FLAG_CHUNK;
    stage_payload(st->stage + (size_t)r * CB_LLH_STAGE_SLOT,
                  (const unsigned char *)st->call.src + off,
                  cb_llh_chunk_bytes(st->call.bytes, st->protocol, j));
  }
  /* Release: the payload (staged above, or the user's buffer, written before
   * post()) is visible before the GPU can see the flag. */
  store_release(&st->ctrl->ready[r].v, g + 1);
}

/* d2h LL16: read chunk number g (chunk j of its copy) into the destination. */
static void read_packets(const cb_copy_ctx *ctx, llh_state *st, uint32_t g, uint32_t j) {
  const uint32_t r = g % CB_LLH_RING_CHUNKS, flag = g + 1;
  unsigned char *dst = st->call.dst;
  const uint64_t bytes = st->call.bytes;
  const uint64_t *slot = st->ring + 2 * (size_t)r * CB_LLH_CHUNK_PACKETS;
  uint32_t n = cb_llh_chunk_packets(bytes, j);
  uint64_t off = (uint64_t)j * CB_LLH_CHUNK_DATA;
  cb_host_poll spin = {0, 0};
  for (uint32_t i = 0; i < n; i++, off += CB_LLH_PACKET_DATA) {
    uint64_t lo, hi;
    for (;;) {
      lo = __atomic_load_n(&slot[2 * i], __ATOMIC_RELAXED);
      hi = __atomic_load_n(&slot[2 * i + 1], __ATOMIC_RELAXED);
      if ((uint32_t)(lo >> 32) == flag && (uint32_t)(hi >> 32) == flag) break;
      cpu_tick(&spin, ctx, st, "the GPU's d2h packets", g);
    }
    const uint32_t d[2] = {(uint32_t)lo, (uint32_t)hi};
    copy_packet_data(dst + off, d, bytes - off);
  }
}

/* d2h flag: wait for chunk number g (rule C1), and copy it out of its
 * staging slot where it was staged. */
static void take_chunk(const cb_copy_ctx *ctx, llh_state *st, uint32_t g, uint32_t j) {
  const uint32_t r = g % CB_LLH_RING_CHUNKS;
  cb_host_poll spin = {0, 0};
  /* Equality: flags are unique in a setup, so no older word matches. */
  while (load_acquire(&st->ctrl->ready[r].v) != g + 1)
    cpu_tick(&spin, ctx, st, "the GPU's d2h flag", g);
  if (st->protocol == CB_LLH_FLAG_STAGED)
    memcpy((unsigned char *)st->call.dst + (uint64_t)j * CB_LLH_FLAG_CHUNK,
           st->stage + (size_t)r * CB_LLH_STAGE_SLOT,
           cb_llh_chunk_bytes(st->call.bytes, st->protocol, j));
}

/* d2h: asks for every chunk posted whose slot is free (rules P1, C2): the
 * CPU consumes in order, so slot r is free for chunk g once chunk g - RING
 * is read, that is once g < read_chunk + RING. Release: the CPU's reads of
 * the slot's previous chunk, and its earlier accesses of the destination
 * (flag-direct), are complete before the GPU, seeing the word, writes them. */
static void ask_for_chunks(llh_state *st) {
  for (; st->asked_chunk != st->next_chunk &&
         st->asked_chunk - st->read_chunk < (uint32_t)CB_LLH_RING_CHUNKS;
       st->asked_chunk++)
    store_release(&st->ctrl->asked[st->asked_chunk % CB_LLH_RING_CHUNKS].v, st->asked_chunk + 1);
}

void cb_copy_llh_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s) {
  (void)call, (void)s; /* the session's call, given to start */
  llh_state *st = ctx->state;
  count_chunks(ctx, st, (uint64_t)copies * st->cpc);
  if (!st->h2d) {
    /* Chunks beyond the ring are asked for by complete(), as it reads. */
    st->next_chunk += (uint32_t)copies * st->cpc;
    ask_for_chunks(st);
    return;
  }
  /* flag-direct: the GPU reads the user's buffer itself, which the caller
   * may have written with non-temporal stores; ready[r]'s release orders
   * ordinary stores only (copy_llhost.h, P2 -> C1). */
  if (st->protocol == CB_LLH_FLAG_DIRECT) cb_llh_store_fence();
  for (int c = 0; c < copies; c++)
    for (uint32_t j = 0; j < st->cpc; j++) {
      uint32_t g = st->next_chunk++;
      wait_slot_free(ctx, st, g);
      if (st->protocol == CB_LLH_LL16)
        write_packets(st, g, j);
      else
        publish_chunk(st, g, j);
    }
  flush_nt_packets(st);
}

void cb_copy_llh_complete(cb_copy_ctx *ctx, cudaStream_t s) {
  (void)s;
  llh_state *st = ctx->state;
  if (!st->h2d) {
    /* Every chunk in order, each slot asked for again as soon as its chunk
     * is read (rule C2), so that the GPU can go on with a copy longer than
     * the ring. */
    for (; st->read_chunk != st->next_chunk; st->read_chunk++) {
      uint32_t g = st->read_chunk, j = (g - st->first_chunk) % st->cpc;
      ask_for_chunks(st);
      if (st->protocol == CB_LLH_LL16)
        read_packets(ctx, st, g, j);
      else
        take_chunk(ctx, st, g, j);
    }
    return;
  }
  /* Each block consumes its chunks in order, and the last `blocks` chunks
   * posted belong to different blocks: when they are consumed, all are. */
  uint32_t posted = st->next_chunk - st->first_chunk;
  uint32_t n = posted < (uint32_t)st->blocks ? posted : (uint32_t)st->blocks;
  for (uint32_t g = st->next_chunk - n; g != st->next_chunk; g++) {
    cb_host_poll spin = {0, 0};
    while (!cb_llh_reached(load_acquire(&st->ctrl->consumed[g % CB_LLH_RING_CHUNKS].v), g + 1))
      cpu_tick(&spin, ctx, st, "the GPU to consume the copy's last chunks", g);
  }
  st->known_consumed = st->next_chunk;
}
