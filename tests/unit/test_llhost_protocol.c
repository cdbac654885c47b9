/* The llhost protocols (copy/kernels/copy_llhost.h) end to end without a
 * GPU: the real CPU side (copy_llhost.c, linked as is) against host threads
 * that play the resident kernels, one thread per block, following
 * copy_llhost.cu statement for statement (a block's threads one after the
 * other; volatile loads as relaxed atomic loads, ld.acquire.sys as an
 * acquire load, st.release.sys as a release store, LL16 packets as 8-byte
 * halves). CUDA's few calls are stood in for below; "device memory" is
 * host memory, and a mapped host buffer's device address is its own.
 *
 * Both protocols (LL16 and flag, by the direction's CB_LLHOST_H2D_LL_MAX or
 * CB_LLHOST_D2H_LL_MAX: the default, 0 for the flag protocol at every
 * size, 1 TiB for LL16 at every size), both
 * flag variants (direct: the emulated GPU addresses the host buffer;
 * staged: --pageable, or h2d up to CB_LLHOST_STAGE_MAX (8 KiB and 1 TiB;
 * its default 0 stages nothing), through the staging ring), h2d and d2h,
 * 1 to 3 blocks; sizes from 1 B to beyond each ring (slots reused), around
 * the crossover, the CPU's switch to non-temporal packet stores (h2d LL16
 * chunks of CB_LLH_NT_PACKETS, by default on Intel CPUs; both store kinds
 * are also run on any CPU) and the chunk sizes, odd ones; windows of 1 to 9
 * copies; many sessions in a row (counters carried across them and across
 * protocols): every byte must arrive, and be there when complete() returns.
 *
 * And the check can fail: emulated kernels that break the ordering on
 * purpose (a flag released before its payload is in place; a staged
 * payload read before its flag is seen) must be caught as wrong bytes.
 *
 * The CPU's store fence (cb_llh_store_fence) is stood in for too, to see
 * where it is called: the user may write the source with non-temporal
 * stores before each post, which only a fence orders before a flag, so an
 * emulated flag-direct block that reads the user's buffer with no fence
 * since the user's last stores counts it. */
#define _GNU_SOURCE /* setenv, pthread */
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h> /* __get_cpuid: nt_words() */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* The CPU side's bounded wait asks every 65536 polls (cb_host_poll_tick).
 * A real GPU runs beside the CPU; the emulated kernel's threads need a core:
 * where they are more than the cores (a loaded machine), the waiting side
 * gives its core up here, so that it does not spin its whole time slice
 * while the thread it waits for cannot run. */
cudaError_t cudaStreamQuery(cudaStream_t s) {
  (void)s;
  sched_yield();
  return atomic_load(&running) ? cudaErrorNotReady : cudaSuccess;
}

void cb_gpu_wait(cudaStream_t s, int timeout_s, const char *what) {
  (void)s, (void)timeout_s, (void)what;
  for (int b = 0; b < nblocks; b++) pthread_join(blocks[b], NULL);
  nblocks = 0;
}

/* The user's last stores into the h2d source (session(): before each post)
 * have not yet been fenced; and the flag-direct chunks read so. */
static atomic_int user_stores_unfenced, unfenced_reads;

void cb_llh_store_fence(void) {
  atomic_thread_fence(memory_order_seq_cst);
  atomic_store(&user_stores_unfenced, 0);
}

int cb_copy_llh_resident_blocks(int device) {
  (void)device;
  return CB_LLH_RING_CHUNKS;
}

/* ---- deliberately broken kernels ---------------------------------------------------- */

typedef enum {
  SOUND = 0,
  /* The block releases its word (h2d: consumed, d2h: ready) and moves the
   * payload only when the kernel is stopped, after complete() returned and
   * the bytes were checked: as late as a payload can be, whatever the
   * machine's load, so the check sees it missing every time. */
  FLAG_BEFORE_PAYLOAD,
  /* h2d flag: the block reads the payload before it waits for the flag;
   * the session posts only once a block has read (early_reads), so the
   * read sees the slot before the CPU filled it, however late the block's
   * thread ran. */
  PAYLOAD_BEFORE_FLAG,
} breakage;
static breakage broken;
static atomic_int early_reads; /* PAYLOAD_BEFORE_FLAG's reads before their flag */

/* FLAG_BEFORE_PAYLOAD's payloads, moved when the block is stopped. */
typedef struct {
  unsigned char *dst;
  const unsigned char *src;
  uint32_t n;
} late_copy;
#define MAX_LATE 64

/* ---- the resident kernels, as host threads ------------------------------------------ */

typedef struct {
  cb_llh_args a;
  int block, grid;
} block_arg;
static block_arg args[MAX_THREADS];

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* A bounded wait, as llh_tick: a stuck protocol fails the test instead of
 * hanging it. Yields, so that on a machine with fewer cores than threads
 * the CPU side gets to run. The bound only catches a hang: far above any
 * wait on a loaded machine (the whole test is bounded by its sizes and
 * windows, not by the clock). */
#define HANG_S 300
static int spin_expired(double start, const char *what, uint32_t g) {
  sched_yield();
  if (now_s() - start < HANG_S) return 0;
  fprintf(stderr, "emulated kernel: timed out waiting for %s (chunk %u)\n", what, g);
  atomic_store(&emu_failed, 1);
  return 1;
}

static uint32_t load_volatile(const uint32_t *p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static uint32_t load_acquire_sys(const uint32_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static void store_release_sys(uint32_t *p, uint32_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static int stop_requested(const cb_llh_args *a) {
  return cb_llh_reached(load_volatile(&a->ctrl->stop.v), a->session);
}

static void block_done(void) {
  atomic_fetch_sub(&running, 1);
}

/* llh_h2d_ll_kernel */
static void *h2d_ll_block(void *p) {
  const block_arg *ba = p;
  const cb_llh_args *a = &ba->a;
  const uint64_t *ring = a->ring;
  unsigned char *dst = a->dev;
  const uint64_t packets = cb_llh_packets(a->bytes);
  for (uint32_t g = a->first_chunk + (uint32_t)ba->block;; g += (uint32_t)ba->grid) {
    const uint32_t j = (g - a->first_chunk) % a->chunks_per_copy;
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    int stopped = 0;
    for (uint32_t t = 0; t < CB_LLH_THREADS && !stopped; t++) { /* the block's threads */
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
    store_release_sys(&a->ctrl->consumed[r].v, flag);
  }
  block_done();
  return NULL;
}

/* wait_cpu_word: thread 0 of an h2d flag block (ready[r]) or of a d2h
 * block (asked[r]). */
static int wait_cpu_word(const cb_llh_args *a, const uint32_t *w, uint32_t flag, uint32_t g,
                         const char *what) {
  double start = now_s();
  for (uint32_t it = 0; load_acquire_sys(w) != flag; it++) {
    if ((it & 255u) == 255u && stop_requested(a)) return 0;
    if (spin_expired(start, what, g)) return 0;
  }
  return 1;
}

/* llh_d2h_ll_kernel */
static void *d2h_ll_block(void *p) {
  const block_arg *ba = p;
  const cb_llh_args *a = &ba->a;
  uint64_t *ring = a->ring;
  const unsigned char *src = a->dev;
  const uint64_t packets = cb_llh_packets(a->bytes);
  for (uint32_t g = a->first_chunk + (uint32_t)ba->block;; g += (uint32_t)ba->grid) {
    const uint32_t j = (g - a->first_chunk) % a->chunks_per_copy;
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    if (!wait_cpu_word(a, &a->ctrl->asked[r].v, flag, g, "to be asked for a d2h chunk")) break;
    for (uint32_t t = 0; t < CB_LLH_THREADS; t++) {
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
  block_done();
  return NULL;
}

/* copy_chunk: the block's 16-byte vectors and its tail byte, all of them. */
static void copy_chunk(unsigned char *dst, const unsigned char *src, uint32_t n) {
  memcpy(dst, src, n);
}

/* FLAG_BEFORE_PAYLOAD's payloads, once the block is stopped. */
static void copy_late(const late_copy *late, int n) {
  for (int i = 0; i < n; i++) copy_chunk(late[i].dst, late[i].src, late[i].n);
}

/* llh_h2d_flag_kernel */
static void *h2d_flag_block(void *p) {
  const block_arg *ba = p;
  const cb_llh_args *a = &ba->a;
  unsigned char *dst = a->dev;
  static __thread unsigned char early[CB_LLH_FLAG_CHUNK]; /* PAYLOAD_BEFORE_FLAG's loads */
  late_copy late[MAX_LATE];
  int nlate = 0;
  for (uint32_t g = a->first_chunk + (uint32_t)ba->block;; g += (uint32_t)ba->grid) {
    const uint32_t j = (g - a->first_chunk) % a->chunks_per_copy;
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    const uint64_t off = (uint64_t)j * CB_LLH_FLAG_CHUNK;
    const unsigned char *src =
        a->host ? (const unsigned char *)a->host + off
                : (const unsigned char *)a->stage + (size_t)r * CB_LLH_STAGE_SLOT;
    const uint32_t n = cb_llh_chunk_bytes(a->bytes, a->protocol, j);
    if (broken == PAYLOAD_BEFORE_FLAG) {
      copy_chunk(early, src, n);
      atomic_fetch_add(&early_reads, 1);
    }
    if (!wait_cpu_word(a, &a->ctrl->ready[r].v, flag, g, "the CPU's h2d flag")) break;
    if (a->host && atomic_load(&user_stores_unfenced)) atomic_fetch_add(&unfenced_reads, 1);
    if (broken == FLAG_BEFORE_PAYLOAD && nlate < MAX_LATE) {
      store_release_sys(&a->ctrl->consumed[r].v, flag);
      late[nlate++] = (late_copy){dst + off, src, n};
      continue;
    }
    copy_chunk(dst + off, broken == PAYLOAD_BEFORE_FLAG ? early : src, n);
    store_release_sys(&a->ctrl->consumed[r].v, flag);
  }
  copy_late(late, nlate);
  block_done();
  return NULL;
}

/* llh_d2h_flag_kernel */
static void *d2h_flag_block(void *p) {
  const block_arg *ba = p;
  const cb_llh_args *a = &ba->a;
  const unsigned char *src = a->dev;
  late_copy late[MAX_LATE];
  int nlate = 0;
  for (uint32_t g = a->first_chunk + (uint32_t)ba->block;; g += (uint32_t)ba->grid) {
    const uint32_t j = (g - a->first_chunk) % a->chunks_per_copy;
    const uint32_t flag = g + 1, r = g % CB_LLH_RING_CHUNKS;
    if (!wait_cpu_word(a, &a->ctrl->asked[r].v, flag, g, "to be asked for a d2h chunk")) break;
    const uint64_t off = (uint64_t)j * CB_LLH_FLAG_CHUNK;
    unsigned char *dst = a->host ? (unsigned char *)a->host + off
                                 : (unsigned char *)a->stage + (size_t)r * CB_LLH_STAGE_SLOT;
    const uint32_t n = cb_llh_chunk_bytes(a->bytes, a->protocol, j);
    if (broken == FLAG_BEFORE_PAYLOAD && nlate < MAX_LATE) {
      store_release_sys(&a->ctrl->ready[r].v, flag);
      late[nlate++] = (late_copy){dst, src + off, n};
      continue;
    }
    copy_chunk(dst, src + off, n);
    store_release_sys(&a->ctrl->ready[r].v, flag);
  }
  copy_late(late, nlate);
  block_done();
  return NULL;
}

void cb_copy_llh_launch(const cb_llh_args *a, int h2d, int grid, cudaStream_t s) {
  (void)s;
  CHECK(grid >= 1 && grid <= MAX_THREADS);
  const int ll = a->protocol == CB_LLH_LL16;
  void *(*block)(void *) =
      h2d ? (ll ? h2d_ll_block : h2d_flag_block) : (ll ? d2h_ll_block : d2h_flag_block);
  nblocks = grid;
  atomic_store(&running, grid);
  for (int b = 0; b < grid; b++) {
    args[b] = (block_arg){*a, b, grid};
    pthread_create(&blocks[b], NULL, block, &args[b]);
  }
}

/* ---- the tests -------------------------------------------------------------------- */

typedef struct {
  cb_copy_dir dir;
  int pageable;          /* staged: the emulated GPU cannot address the host buffer */
  const char *ll_max;    /* the direction's CB_LLHOST_*_LL_MAX; NULL: its default */
  const char *blocks;    /* CB_LLHOST_BLOCKS */
  const char *stage_max; /* CB_LLHOST_STAGE_MAX; NULL: its default */
  /* The direction's CB_LLHOST_*_WINDOW_LL_MAX; NULL: ll_max where that is
   * set (one limit for single copies and windows), else its default. */
  const char *window_ll_max;
} setup;

/* Beyond both rings: 4 MiB of LL16 data, 16 MiB of flag chunks. */
#define MAX_BYTES ((size_t)(17u << 20) + 3)

static unsigned char *host_buf, *dev_buf;

/* name=value, or name unset where value is NULL. */
static void set_or_unset(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

static cb_copy_ctx open_setup(const setup *su) {
  setenv("CB_LLHOST_BLOCKS", su->blocks, 1);
  /* The other direction's limit must not matter: it is set to 1 TiB (LL16 at
   * every size), so a setup that read it instead would move the wrong protocol
   * and fail the header and protocol checks. */
  const int h2d = su->dir == CB_H2D;
  set_or_unset(h2d ? "CB_LLHOST_H2D_LL_MAX" : "CB_LLHOST_D2H_LL_MAX", su->ll_max);
  setenv(h2d ? "CB_LLHOST_D2H_LL_MAX" : "CB_LLHOST_H2D_LL_MAX", "1099511627776", 1);
  set_or_unset(h2d ? "CB_LLHOST_H2D_WINDOW_LL_MAX" : "CB_LLHOST_D2H_WINDOW_LL_MAX",
               su->window_ll_max ? su->window_ll_max : su->ll_max);
  setenv(h2d ? "CB_LLHOST_D2H_WINDOW_LL_MAX" : "CB_LLHOST_H2D_WINDOW_LL_MAX", "1099511627776", 1);
  set_or_unset("CB_LLHOST_STAGE_MAX", su->stage_max);
  char why[256];
  CHECK(cb_tunables_read(CB_TUNE_COPY, why, sizeof why) == NULL);
  cb_copy_ctx ctx = {.dir = su->dir,
                     .timeout_s = HANG_S,
                     .window = 9,
                     .max_bytes = MAX_BYTES,
                     .pageable = su->pageable,
                     .host = host_buf,
                     .host_mapped = su->pageable ? NULL : host_buf,
                     .dev = dev_buf,
                     .kernel_id = 4,
                     .kernel_name = "llhost"};
  CHECK(cb_copy_llh_setup(&ctx) == NULL);
  return ctx;
}

static cb_copy_call call_of(cb_copy_dir dir, size_t n) {
  return dir == CB_H2D ? (cb_copy_call){dev_buf, host_buf, n}
                       : (cb_copy_call){host_buf, dev_buf, n};
}

static const char *label(const setup *su, char *buf, size_t len) {
  snprintf(buf, len, "%s %s LL_MAX=%s STAGE_MAX=%s blocks=%s", cb_copy_dir_name(su->dir),
           su->pageable ? "pageable" : "pinned", su->ll_max ? su->ll_max : "default",
           su->stage_max ? su->stage_max : "default", su->blocks);
  return buf;
}

/* PAYLOAD_BEFORE_FLAG: until a block has read its payload before its flag
 * (bounded as the blocks' waits are: only a hang ends it). */
static void wait_early_read(void) {
  double start = now_s();
  while (!atomic_load(&early_reads))
    if (spin_expired(start, "a broken block's early read", 0)) return;
}

/* One session of a size: single copies, then a window on a fresh
 * destination (copy_runner.c gives each its own session; one session with
 * both is the harder case), checked as soon as complete() returns (before
 * the stop: complete means every byte is there). Returns the wrong bytes
 * seen then. */
static long long session(cb_copy_ctx *ctx, const setup *su, size_t n, int window, int singles,
                         uint32_t seed) {
  /* Sized for one copy or for the window, by turns: posts of either size
   * must be right whatever the session was sized for. */
  const int sized_for = seed % 2 ? 1 : window;
  cb_copy_call call = call_of(su->dir, n);
  cb_copy_pattern_fill((void *)call.src, n, seed, 0);
  cb_copy_pattern_fill(call.dst, n, seed, 1);
  cb_copy_llh_start(ctx, &call, sized_for, NULL);
  for (int i = 0; i < singles; i++) {
    atomic_store(&user_stores_unfenced, 1);
    cb_copy_llh_post(ctx, &call, 1, NULL);
    cb_copy_llh_complete(ctx, NULL);
  }
  cb_copy_pattern_fill(call.dst, n, seed, 1);
  if (broken == PAYLOAD_BEFORE_FLAG) wait_early_read();
  atomic_store(&user_stores_unfenced, 1);
  cb_copy_llh_post(ctx, &call, window, NULL);
  cb_copy_llh_complete(ctx, NULL);
  long long early = cb_copy_pattern_check(call.dst, n, seed);
  cb_copy_llh_stop(ctx, NULL);
  return early;
}

static void run_setup(const setup *su) {
  static const size_t sizes[] = {1,     7,    8,       9,         512,      513,
                                 1016,  1017, 1023,    1024,      1025,     4095,
                                 4096,  4097, 16383,   16384,     16385,    3 * 16384 + 5,
                                 65537, 24,   1000003, MAX_BYTES, 4096 + 8, 2};
  char name[96];
  label(su, name, sizeof name);
  /* Progress, a line a setup: a slow machine shows it moving. */
  printf("test_llhost_protocol: %s\n", name);
  fflush(stdout);
  cb_copy_ctx ctx = open_setup(su);
  uint32_t seed = 1;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    const size_t n = sizes[s];
    const int big = n > 100000;
    /* Every window from 1 to 9 at the small sizes; a few at the large. */
    static const int big_windows[] = {1, 3};
    const int nwindows = big ? 2 : 9;
    for (int w = 0; w < nwindows; w++, seed++) {
      const int window = big ? big_windows[w] : w + 1;
      long long early = session(&ctx, su, n, window, big ? 1 : 6, seed);
      CHECKF(early == 0, "%s, %zu B (%s), window %d: %lld bytes missing when complete returned",
             name, n, cb_copy_llh_protocol(&ctx, n, window), window, early);
      long long wrong = cb_copy_pattern_check(call_of(su->dir, n).dst, n, seed);
      CHECKF(wrong == 0, "%s, %zu B, window %d: %lld wrong bytes", name, n, window, wrong);
      int unfenced = atomic_exchange(&unfenced_reads, 0);
      CHECKF(unfenced == 0,
             "%s, %zu B, window %d: %d flag-direct chunks read before the user's stores were "
             "fenced",
             name, n, window, unfenced);
      if (!CHECK(!atomic_load(&emu_failed))) goto out;
    }
  }
out:
  cb_copy_llh_teardown(&ctx);
}

/* cb_copy_llh_nt_stores() as the test last set it: -1 by the CPU. */
static int nt_mode = -1;

static void set_nt_stores(int mode) {
  nt_mode = mode;
  cb_copy_llh_nt_stores(mode);
}

/* What an h2d LL16 header says of the CPU's stores: non-temporal ones
 * where set_nt_stores() asked for them, or by default on Intel's CPUs only
 * (copy_llhost.c), so then it depends on the CPU this runs on. */
static const char *nt_words(const setup *su) {
  unsigned a = 0, b = 0, c = 0, d = 0;
#if defined(__x86_64__) || defined(__i386__)
  __get_cpuid(0, &a, &b, &c, &d);
#endif
  const int intel = b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu;
  const int nt = nt_mode < 0 ? intel : nt_mode;
  return su->dir == CB_H2D && nt ? ", non-temporal CPU stores for chunks of 1 KiB or more" : "";
}

/* The protocol a setup gives a single copy of n bytes, and the line its
 * block's header prints: header_fmt with nt_words() for its %s, where it
 * has one. */
static void check_header(setup su, size_t n, const char *protocol, const char *header_fmt) {
  cb_copy_ctx ctx = open_setup(&su);
  CHECK_STR(cb_copy_llh_protocol(&ctx, n, 1), protocol);
  char line[512], header[512];
  cb_copy_llh_describe(&ctx, line, sizeof line);
  snprintf(header, sizeof header, header_fmt, nt_words(&su));
  CHECK_STR(line, header);
  cb_copy_llh_teardown(&ctx);
}

/* The protocol each size takes, and the line the block's header prints. */
static void test_protocol_names(void) {
  setup su = {CB_H2D, 0, NULL, "2", NULL, NULL}; /* the defaults */
  cb_copy_ctx ctx = open_setup(&su);
  CHECK_STR(cb_copy_llh_protocol(&ctx, 1, 1), "ll16");
  CHECK_STR(cb_copy_llh_protocol(&ctx, 4096, 1), "ll16");
  CHECK_STR(cb_copy_llh_protocol(&ctx, 4097, 1), "flag-direct");
  CHECK_STR(cb_copy_llh_protocol(&ctx, 8192, 1), "flag-direct");
  /* A window (a post of two copies or more) leaves LL16 above 1 KiB. */
  CHECK_STR(cb_copy_llh_protocol(&ctx, 1024, 2), "ll16");
  CHECK_STR(cb_copy_llh_protocol(&ctx, 1025, 2), "flag-direct");
  CHECK_STR(cb_copy_llh_protocol(&ctx, 4096, 64), "flag-direct");
  cb_copy_llh_teardown(&ctx);
  ctx = open_setup(&(setup){CB_D2H, 0, NULL, "2", NULL, NULL}); /* d2h windows: LL16 up to 64 B */
  CHECK_STR(cb_copy_llh_protocol(&ctx, 64, 64), "ll16");
  CHECK_STR(cb_copy_llh_protocol(&ctx, 65, 64), "flag-direct");
  CHECK_STR(cb_copy_llh_protocol(&ctx, 512, 1), "ll16");
  cb_copy_llh_teardown(&ctx);
  /* A window's limit above the direction's LL_MAX is held to it. */
  ctx = open_setup(&(setup){CB_H2D, 0, "512", "2", NULL, "4096"});
  CHECK_STR(cb_copy_llh_protocol(&ctx, 512, 9), "ll16");
  CHECK_STR(cb_copy_llh_protocol(&ctx, 513, 9), "flag-direct");
  cb_copy_llh_teardown(&ctx);
  check_header(su, 4097, "flag-direct",
               "protocol: LL16 up to 4096 B (data and flag in one store%s; CB_LLHOST_H2D_LL_MAX), "
               "in windows up to 1024 B (CB_LLHOST_H2D_WINDOW_LL_MAX), then flag-direct "
               "(payload, then one flag per 16 KiB chunk; the GPU reads the host buffer)");
  check_header((setup){CB_H2D, 0, NULL, "2", NULL, "0"}, 4096, "ll16",
               "protocol: LL16 up to 4096 B (data and flag in one store%s; CB_LLHOST_H2D_LL_MAX), "
               "none in windows (CB_LLHOST_H2D_WINDOW_LL_MAX=0), then flag-direct (payload, "
               "then one flag per 16 KiB chunk; the GPU reads the host buffer)");
  /* Staged from pinned memory only where CB_LLHOST_STAGE_MAX asks. */
  check_header((setup){CB_H2D, 0, NULL, "2", "8192", NULL}, 8192, "flag-staged",
               "protocol: LL16 up to 4096 B (data and flag in one store%s; CB_LLHOST_H2D_LL_MAX), "
               "in windows up to 1024 B (CB_LLHOST_H2D_WINDOW_LL_MAX), flag-staged up to 8192 B "
               "(CB_LLHOST_STAGE_MAX), then flag-direct (payload, then one flag per 16 KiB "
               "chunk; the GPU reads the host buffer)");
  /* d2h: LL16 up to 512 B by default, 64 B in windows; it stages nothing
   * from pinned memory (direct is the faster there). */
  check_header((setup){CB_D2H, 0, NULL, "2", "8192", NULL}, 513, "flag-direct",
               "protocol: LL16 up to 512 B (data and flag in one store%s; CB_LLHOST_D2H_LL_MAX), "
               "in windows up to 64 B (CB_LLHOST_D2H_WINDOW_LL_MAX), then flag-direct (payload, "
               "then one flag per 16 KiB chunk; the GPU writes the host buffer)");
  check_header((setup){CB_D2H, 0, "512", "2", NULL, NULL}, 512, "ll16",
               "protocol: LL16 up to 512 B (data and flag in one store%s; CB_LLHOST_D2H_LL_MAX), "
               "then flag-direct (payload, then one flag per 16 KiB chunk; the GPU writes the "
               "host buffer)");
  check_header((setup){CB_H2D, 0, "0", "2", "0", NULL}, 1, "flag-direct",
               "protocol: flag-direct (payload, then one flag per 16 KiB chunk; the GPU reads "
               "the host buffer) at every size (CB_LLHOST_H2D_LL_MAX=0)");
  check_header((setup){CB_D2H, 1, "0", "2", NULL, NULL}, 1, "flag-staged",
               "protocol: flag-staged (payload, then one flag per 16 KiB chunk; staged through "
               "a pinned ring by the CPU) at every size (CB_LLHOST_D2H_LL_MAX=0)");
}

/* h2d LL16 with the CPU's packets written both ways whatever this CPU is
 * (cb_copy_llh_nt_stores()): ordinary stores at every size, and
 * non-temporal ones for chunks of 128 packets or more (x86 only). */
static void test_both_store_kinds(void) {
  for (int mode = 0; mode <= 1 && !atomic_load(&emu_failed); mode++) {
#if !defined(__SSE2__)
    if (mode == 1) break; /* no non-temporal store to use */
#endif
    set_nt_stores(mode);
    check_header((setup){CB_H2D, 0, "4096", "2", NULL, NULL}, 4096, "ll16",
                 "protocol: LL16 up to 4096 B (data and flag in one store%s; "
                 "CB_LLHOST_H2D_LL_MAX), then flag-direct (payload, then one flag per 16 KiB "
                 "chunk; the GPU reads the host buffer)");
    run_setup(&(setup){CB_H2D, 0, "1099511627776", "3", NULL, NULL});
    run_setup(&(setup){CB_H2D, 1, "1099511627776", "2", NULL, NULL});
  }
  set_nt_stores(-1);
}

/* A deliberately broken kernel must be caught: the check of the bytes when
 * complete() returns is what the sound runs pass. */
static void expect_caught(const setup *su, breakage b, size_t n, const char *what) {
  char name[96];
  label(su, name, sizeof name);
  cb_copy_ctx ctx = open_setup(su);
  /* A seed of its own: a ring that an earlier setup's memory left holding
   * this source's bytes would hide an early read. */
  static uint32_t seed = 1000;
  broken = b;
  atomic_store(&early_reads, 0);
  long long early = session(&ctx, su, n, 1, 0, seed++);
  broken = SOUND;
  CHECKF(early > 0, "%s, %zu B: a kernel that %s was not caught", name, n, what);
  cb_copy_llh_teardown(&ctx);
}

static void test_broken_kernels_are_caught(void) {
  const size_t n = 3 * 16384 + 5; /* flag protocol: several chunks, a partial one */
  static const char *const late = "releases its flag before its payload is in place";
  for (int pageable = 0; pageable <= 1; pageable++) {
    setup h2d = {CB_H2D, pageable, "0", "2", "0", NULL},
          d2h = {CB_D2H, pageable, "0", "2", NULL, NULL};
    expect_caught(&h2d, FLAG_BEFORE_PAYLOAD, n, late);
    expect_caught(&d2h, FLAG_BEFORE_PAYLOAD, n, late);
  }
  /* Staged h2d: the slot holds nothing yet (or an older chunk) until the
   * CPU posts, which the session holds back while the kernel reads. */
  setup staged = {CB_H2D, 1, "0", "1", NULL, NULL};
  expect_caught(&staged, PAYLOAD_BEFORE_FLAG, n, "reads its payload before its flag");
  /* The same, staged from pinned memory. */
  setup staged_pinned = {CB_H2D, 0, "0", "1", "1099511627776", NULL};
  expect_caught(&staged_pinned, PAYLOAD_BEFORE_FLAG, n, "reads its payload before its flag");
  expect_caught(&staged_pinned, FLAG_BEFORE_PAYLOAD, n, late);
}

int main(void) {
  host_buf = aligned_alloc(4096, (MAX_BYTES + 4095) / 4096 * 4096);
  dev_buf = aligned_alloc(4096, (MAX_BYTES + 4095) / 4096 * 4096);
  test_protocol_names();
  static const setup setups[] = {
      /* The defaults: LL16 up to 4 KiB h2d and 512 B d2h (1 KiB and 64 B
       * in windows: the sessions sized for a window take the flag protocol
       * above), the flag protocol above, nothing staged from pinned memory;
       * h2d staged from pinned memory up to 8 KiB (CB_LLHOST_STAGE_MAX=8192),
       * between the two. d2h with LL16 up to 1 KiB too. */
      {CB_H2D, 0, NULL, "1", NULL, NULL},
      {CB_H2D, 0, NULL, "3", "8192", NULL},
      {CB_H2D, 1, NULL, "3", NULL, NULL},
      {CB_D2H, 0, NULL, "1", NULL, NULL},
      {CB_D2H, 0, NULL, "3", NULL, NULL},
      {CB_D2H, 1, NULL, "3", NULL, NULL},
      {CB_D2H, 0, "1024", "3", NULL, NULL},
      /* The flag protocol at every size: direct, staged from pageable
       * memory, staged from pinned memory (h2d). */
      {CB_H2D, 0, "0", "2", "0", NULL},
      {CB_H2D, 1, "0", "1", NULL, NULL},
      {CB_H2D, 0, "0", "3", "1099511627776", NULL},
      {CB_D2H, 0, "0", "2", NULL, NULL},
      {CB_D2H, 1, "0", "1", NULL, NULL},
      /* LL16 at every size. */
      {CB_H2D, 0, "1099511627776", "3", NULL, NULL},
      {CB_D2H, 1, "1099511627776", "3", NULL, NULL},
  };
  for (size_t i = 0; i < sizeof setups / sizeof setups[0] && !atomic_load(&emu_failed); i++)
    run_setup(&setups[i]);
  test_both_store_kinds();
  if (!atomic_load(&emu_failed)) test_broken_kernels_are_caught();
  free(host_buf);
  free(dev_buf);
  return check_summary();
}
