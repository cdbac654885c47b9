/* -k 4 llhost, the CPU side (protocol in copy_llhost.h): h2d, the CPU
 * writes LL16 packets into a ring in mapped pinned host memory and a
 * resident GPU kernel polls them and stores their data into device memory;
 * d2h, the CPU asks for a copy, the kernel writes packets into the ring and
 * the CPU polls them. The kernel starts once per size, outside timing, and
 * is stopped cleanly; every wait here is bounded by -T and also notices a
 * resident kernel that died.
 *
 * CPU accesses to the ring and the control words:
 *  - packet halves are written and read with 8-byte atomic accesses
 *    (__atomic builtins, relaxed): one single-copy-atomic access each, which
 *    plain C could split or merge; each half carries its flag, so nothing
 *    else orders data against flag;
 *  - no fence after writing packets: the ring is ordinary cached memory the
 *    GPU reads coherently, so the stores reach it as the store buffer
 *    drains, with no write-combining buffer to flush;
 *  - slot words the CPU writes (d2h) and go/stop are release stores, slot
 *    words it reads (h2d) are acquire loads: the comments say what each
 *    orders. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "copy_kernels.h"
#include "copy_llhost.h"
#include "cuda_check.h"
#include "error.h"
#include "gpu.h" /* cb_gpu_wait */
#include "tunables.h"

typedef struct {
  int h2d;
  uint64_t *ring; /* host address; packet i of slot r is ring[2 * (r * CHUNK_PACKETS + i)] */
  void *ring_dev;
  cb_llh_ctrl *ctrl; /* host address */
  cb_llh_ctrl *ctrl_dev;
  int max_blocks; /* CB_LLHOST_BLOCKS */
  /* Counters that only grow over the whole setup (all sizes). */
  uint32_t next_chunk; /* the next chunk a post uses */
  uint32_t read_chunk; /* d2h: the next chunk the CPU reads */
  uint32_t next_copy;  /* d2h: copies asked for so far (the last copy number) */
  uint32_t session;
  /* The running session. */
  int running;
  cb_copy_call call;
  uint32_t first_chunk, cpc;
  int blocks;
  cudaStream_t stream;
} llh_state;

/* ---- bounded waits ------------------------------------------------------------ */

typedef struct {
  uint32_t iters;
  double start;
} cpu_spin;

/* Every 65536 polls (a poll hits the CPU's cache until the GPU writes the
 * line: some 100 us): is the resident kernel still there, and is the time
 * up? Rare enough that a wait of a few microseconds never pays for it. */
static void cpu_tick(cpu_spin *s, const cb_copy_ctx *ctx, const llh_state *st, const char *what,
                     uint32_t chunk) {
  if ((++s->iters & 65535u) != 0) return;
  double now = cb_monotonic_s();
  if (s->start == 0) s->start = now;
  cudaError_t rc = cudaStreamQuery(st->stream);
  if (rc == cudaSuccess)
    cb_fatal("kernel %d (%s) %s: the resident GPU kernel ended while the CPU waited for %s "
             "(chunk %u of session %u)",
             ctx->kernel_id, ctx->kernel_name, cb_copy_dir_name(ctx->dir), what, chunk,
             st->session);
  if (rc != cudaErrorNotReady)
    cb_die(__FILE__, __LINE__, "cudaStreamQuery", cudaGetErrorString(rc));
  /* A little longer than the GPU's own bound, so a GPU that gave up says why first. */
  if (now - s->start > ctx->timeout_s + 2)
    cb_fatal("kernel %d (%s) %s %zu B: timed out after %d s waiting for %s (chunk %u of session "
             "%u)",
             ctx->kernel_id, ctx->kernel_name, cb_copy_dir_name(ctx->dir), st->call.bytes,
             ctx->timeout_s, what, chunk, st->session);
}

/* Acquire: pairs with the GPU's st.release.sys of the word; the CPU writes
 * nothing into the slot before it has seen the GPU finish reading it. */
static uint32_t load_acquire(const uint32_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Release: the CPU's earlier reads of the slot (d2h) are complete before
 * the GPU can see the slot free and overwrite it. */
static void store_release(uint32_t *p, uint32_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* ---- setup ---------------------------------------------------------------------- */

const char *cb_copy_llh_setup(cb_copy_ctx *ctx) {
  llh_state *st = calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  st->h2d = ctx->dir == CB_H2D;
  st->max_blocks = (int)cb_tunable("CB_LLHOST_BLOCKS"); /* checked at start (tunables.c) */
  /* Every block stays resident until the session stops: the GPU must hold
   * them all at once, or the ones left waiting for a free SM never run. */
  int resident = cb_copy_llh_resident_blocks(ctx->device);
  if (st->max_blocks > resident)
    cb_fatal("CB_LLHOST_BLOCKS=%d: device %d holds at most %d resident blocks of %d threads",
             st->max_blocks, ctx->device, resident, CB_LLH_CHUNK_PACKETS);
  size_t ring_bytes = (size_t)CB_LLH_RING_CHUNKS * CB_LLH_CHUNK_PACKETS * CB_LLH_PACKET_BYTES;
  /* Mapped: the GPU addresses it. Not write-combined: the CPU polls the
   * d2h ring and the slot words, and WC reads are uncached. */
  CB_CUDA(
      cudaHostAlloc((void **)&st->ring, ring_bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  CB_CUDA(cudaHostAlloc((void **)&st->ctrl, sizeof *st->ctrl,
                        cudaHostAllocMapped | cudaHostAllocPortable));
  /* Flag 0 is no chunk's: a zeroed ring holds no packet any reader waits for. */
  memset(st->ring, 0, ring_bytes);
  memset(st->ctrl, 0, sizeof *st->ctrl);
  CB_CUDA(cudaHostGetDevicePointer(&st->ring_dev, st->ring, 0));
  CB_CUDA(cudaHostGetDevicePointer((void **)&st->ctrl_dev, st->ctrl, 0));
  ctx->state = st;
  return NULL;
}

void cb_copy_llh_teardown(cb_copy_ctx *ctx) {
  llh_state *st = ctx->state;
  CB_CUDA(cudaFreeHost(st->ring));
  CB_CUDA(cudaFreeHost(st->ctrl));
  free(st);
  ctx->state = NULL;
}

/* ---- a session: one size ---------------------------------------------------------- */

void cb_copy_llh_start(cb_copy_ctx *ctx, const cb_copy_call *call, cudaStream_t s) {
  llh_state *st = ctx->state;
  const void *dev = st->h2d ? call->dst : call->src;
  if (st->running)
    cb_fatal("kernel %d (%s): a session started while one runs", ctx->kernel_id, ctx->kernel_name);
  if ((uintptr_t)dev & 7)
    cb_fatal("kernel %d (%s) needs an 8-byte aligned device buffer", ctx->kernel_id,
             ctx->kernel_name);
  st->call = *call;
  st->cpc = cb_llh_chunks(call->bytes);
  st->blocks = cb_llh_blocks(call->bytes, st->max_blocks);
  st->first_chunk = st->next_chunk;
  st->stream = s;
  st->session++;
  cb_llh_args a;
  memset(&a, 0, sizeof a);
  a.ring = st->ring_dev;
  a.ctrl = st->ctrl_dev;
  a.dev = (void *)dev;
  a.bytes = call->bytes;
  a.first_chunk = st->first_chunk;
  a.first_copy = st->next_copy + 1;
  a.chunks_per_copy = st->cpc;
  a.session = st->session;
  a.rank = ctx->rank;
  a.kernel_id = ctx->kernel_id;
  snprintf(a.kernel_name, sizeof a.kernel_name, "%s", ctx->kernel_name);
  a.timeout_ns = (uint64_t)ctx->timeout_s * 1000000000ull;
  cb_copy_llh_launch(&a, st->h2d, st->blocks, s);
  st->running = 1;
}

void cb_copy_llh_stop(cb_copy_ctx *ctx, cudaStream_t s) {
  llh_state *st = ctx->state;
  if (!st->h2d && st->read_chunk != st->next_chunk)
    cb_fatal("kernel %d (%s): stopped with d2h chunks unread", ctx->kernel_id, ctx->kernel_name);
  /* Release: every access of the session (all complete by now) precedes
   * the stop in the order the GPU observes. */
  store_release(&st->ctrl->stop, st->session);
  char what[128];
  snprintf(what, sizeof what, "kernel %d (%s) %s: the resident kernel to stop", ctx->kernel_id,
           ctx->kernel_name, cb_copy_dir_name(ctx->dir));
  cb_gpu_wait(s, ctx->timeout_s, what);
  st->running = 0;
}

/* The chunk numbers of a setup are 32-bit: refuse to wrap them. */
static void count_chunks(const cb_copy_ctx *ctx, const llh_state *st, uint64_t n) {
  if ((uint64_t)st->next_chunk + n > CB_LLH_CHUNK_LIMIT)
    cb_fatal("kernel %d (%s): 2^32 chunks (16 TiB) moved in one run: run fewer iterations",
             ctx->kernel_id, ctx->kernel_name);
}

/* h2d: write chunk j of the copy as chunk number g. */
static void write_chunk(const cb_copy_ctx *ctx, llh_state *st, uint32_t g, uint32_t j) {
  const uint32_t r = g % CB_LLH_RING_CHUNKS, flag = g + 1;
  cpu_spin spin = {0, 0};
  /* The slot's previous chunk (flag - RING) must have been read by the GPU. */
  while (!cb_llh_reached(load_acquire(&st->ctrl->chunk[r]), flag - CB_LLH_RING_CHUNKS))
    cpu_tick(&spin, ctx, st, "the GPU to free a ring slot", g);
  const unsigned char *src = (const unsigned char *)st->call.src;
  const uint64_t bytes = st->call.bytes, hi_flag = (uint64_t)flag << 32;
  uint64_t *slot = st->ring + 2 * (size_t)r * CB_LLH_CHUNK_PACKETS;
  uint32_t n = cb_llh_chunk_packets(bytes, j);
  uint64_t off = (uint64_t)j * CB_LLH_CHUNK_DATA;
  for (uint32_t i = 0; i < n; i++, off += CB_LLH_PACKET_DATA) {
    uint32_t d[2] = {0, 0};
    memcpy(d, src + off, off + 8 <= bytes ? 8 : (size_t)(bytes - off)); /* the last may be short */
    __atomic_store_n(&slot[2 * i], hi_flag | d[0], __ATOMIC_RELAXED);
    __atomic_store_n(&slot[2 * i + 1], hi_flag | d[1], __ATOMIC_RELAXED);
  }
}

/* d2h: read chunk number g (chunk j of its copy) into the destination, then free its slot. */
static void read_chunk(const cb_copy_ctx *ctx, llh_state *st, uint32_t g, uint32_t j) {
  const uint32_t r = g % CB_LLH_RING_CHUNKS, flag = g + 1;
  unsigned char *dst = st->call.dst;
  const uint64_t bytes = st->call.bytes;
  const uint64_t *slot = st->ring + 2 * (size_t)r * CB_LLH_CHUNK_PACKETS;
  uint32_t n = cb_llh_chunk_packets(bytes, j);
  uint64_t off = (uint64_t)j * CB_LLH_CHUNK_DATA;
  cpu_spin spin = {0, 0};
  for (uint32_t i = 0; i < n; i++, off += CB_LLH_PACKET_DATA) {
    uint64_t lo, hi;
    for (;;) {
      lo = __atomic_load_n(&slot[2 * i], __ATOMIC_RELAXED);
      hi = __atomic_load_n(&slot[2 * i + 1], __ATOMIC_RELAXED);
      if ((uint32_t)(lo >> 32) == flag && (uint32_t)(hi >> 32) == flag) break;
      cpu_tick(&spin, ctx, st, "the GPU's d2h packets", g);
    }
    uint32_t d[2] = {(uint32_t)lo, (uint32_t)hi};
    memcpy(dst + off, d, off + 8 <= bytes ? 8 : (size_t)(bytes - off));
  }
  store_release(&st->ctrl->chunk[r], flag);
}

void cb_copy_llh_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s) {
  (void)call, (void)s; /* the session's call, given to start */
  llh_state *st = ctx->state;
  count_chunks(ctx, st, (uint64_t)copies * st->cpc);
  for (int c = 0; c < copies; c++) {
    if (st->h2d) {
      for (uint32_t j = 0; j < st->cpc; j++) write_chunk(ctx, st, st->next_chunk++, j);
    } else {
      /* Asking is all go does: the slot words keep the GPU off packets the
       * CPU has not read, so no order is needed here. Atomic, so the
       * compiler neither tears nor holds back the store. */
      __atomic_store_n(&st->ctrl->go, ++st->next_copy, __ATOMIC_RELAXED);
      st->next_chunk += st->cpc;
    }
  }
}

void cb_copy_llh_complete(cb_copy_ctx *ctx, cudaStream_t s) {
  (void)s;
  llh_state *st = ctx->state;
  if (!st->h2d) {
    while (st->read_chunk != st->next_chunk) {
      uint32_t g = st->read_chunk;
      read_chunk(ctx, st, g, (g - st->first_chunk) % st->cpc);
      st->read_chunk++;
    }
    return;
  }
  /* Each block consumes its chunks in order, and the last `blocks` chunks
   * posted belong to different blocks: when they are consumed, all are. */
  uint32_t posted = st->next_chunk - st->first_chunk;
  uint32_t n = posted < (uint32_t)st->blocks ? posted : (uint32_t)st->blocks;
  for (uint32_t g = st->next_chunk - n; g != st->next_chunk; g++) {
    cpu_spin spin = {0, 0};
    while (!cb_llh_reached(load_acquire(&st->ctrl->chunk[g % CB_LLH_RING_CHUNKS]), g + 1))
      cpu_tick(&spin, ctx, st, "the GPU to consume the copy's last chunks", g);
  }
}
