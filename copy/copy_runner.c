/* copy_perf's runner: what cb_main (runner.c) is to the collectives, for
 * the copy table of copy.h. It reuses the harness's parts (world, GPU
 * checks, errors, statistics, report sinks, peer memory) and differs where
 * a copy differs from a collective: one rank copies (rank 0; d2d goes to
 * rank 1's GPU, every other rank idles), the endpoints are host memory,
 * this GPU and its peer, and each path is timed on the host clock for
 * latency and bandwidth, because some paths are driven by the CPU. Before
 * them, the floor of the host paths (copy_floor.h) is measured once. */
#define _GNU_SOURCE /* posix_memalign */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "copy.h"
#include "copy_floor.h"
#include "copy_overlap.h"
#include "copy_pattern.h"
#include "copy_report.h"
#include "copy_report_overlap.h"
#include "cuda_check.h"
#include "error.h"
#include "gdrcopy.h" /* CB_GPU_PAGE_SIZE */
#include "gpu.h"
#include "load_options.h" /* cb_load_env_defaults */
#include "peer_memory.h"
#include "post_gap.h"
#include "run_steps.h"
#include "sizes.h"
#include "sink.h"
#include "stats.h"
#include "thread_stacks.h"
#include "tunables.h"
#include "world.h"

/* Memory left to the CUDA context beyond our buffers. */
#define COPY_MEM_HEADROOM (256ull << 20)

typedef struct {
  const cb_copy_program *prog;
  cb_copy_options opts;
  int *runnable; /* per kernel: selected and available */
  int explicit_pick;
  cb_copy_report report;
  char failure[512]; /* a kernel named with -k that could not run a direction: the exit says so */
} copy_run;

/* What rank 1 tells rank 0 about its d2d destination. */
typedef struct {
  char host[64];
  char bus_id[32];     /* PCI bus id of its GPU, to find it in rank 0's numbering */
  cb_peer_offer offer; /* the buffer */
} peer_record;

/* One rank's state. */
typedef struct {
  cb_rank_info *me;
  copy_run *run;
  int device;
  cudaStream_t stream;
  void *host, *host_mapped;    /* rank 0: host buffer, and its device address when mapped */
  void *dev_base, *dev;        /* rank 0 (and rank 1 for d2d): device buffer, 64 KiB aligned, and
                                  CB_COPY_GUARD_BYTES beyond -e for the validation's guard */
  cb_peer_view peer;           /* rank 0: rank 1's buffer as this GPU addresses it */
  int peer_device;             /* its ordinal in this process */
  unsigned long long *counter; /* rank 0: device word for validation */
  char peer_what[160];         /* rank 0: "device 1 [...] of rank 1 (...)" */
  cb_load_beside beside;       /* rank 0: --overlap's load */
  cudaStream_t aside;          /* rank 0: rewrites a device source while a session runs */
} copy_rank;

/* ---- before any GPU work --------------------------------------------------- */

static const char *unavailable_reason(const void *arg, int k, char *buf, size_t len) {
  const cb_copy_kernel *kd = &((const cb_copy_program *)arg)->kernels[k];
  (void)buf, (void)len;
  return kd->unavailable ? kd->unavailable() : NULL;
}

static void choose_kernels(copy_run *run, int lead) {
  const cb_copy_program *p = run->prog;
  const cb_kernel_menu m = cb_copy_kernels_menu(p);
  run->runnable = calloc((size_t)p->nkernels, sizeof *run->runnable);
  if (!run->runnable) cb_fatal("out of host memory");
  run->explicit_pick = cb_choose_kernels(&m, run->opts.kernels, run->runnable,
                                         run->report.kernel_skips, unavailable_reason, p, lead);
}

/* A run some kernel could not see through (llhost's chunk numbers), refused
 * before any GPU work rather than cut short in the middle. */
static void refuse_unfinishable(const copy_run *run, int lead) {
  const cb_copy_options *o = &run->opts;
  const uint64_t copies = cb_copy_copies_per_size(o);
  char why[512];
  for (int k = 0; k < run->prog->nkernels; k++) {
    const cb_copy_kernel *kd = &run->prog->kernels[k];
    if (!run->runnable[k] || !kd->refuse_run) continue;
    for (int d = 0; d < CB_NUM_DIRS; d++)
      if ((o->dirs & CB_DIR_BIT(d)) && !cb_copy_kernel_dir_reason(kd, d, o->pageable) &&
          kd->refuse_run(o, d, copies, why, sizeof why))
        CB_REFUSE(lead, "%s", why);
  }
}

/* ---- buffers ---------------------------------------------------------------- */

/* A device buffer of bytes (and the validation's guard after them)
 * starting on a GPU page: GDRCopy pins whole 64 KiB pages from a page
 * boundary, so the allocation is padded by one page and the buffer starts
 * at the first boundary inside it. */
static void alloc_device(copy_rank *st, uint64_t bytes) {
  uint64_t page = CB_GPU_PAGE_SIZE;
  uint64_t need = (bytes + CB_COPY_GUARD_BYTES + page - 1) / page * page + page;
  size_t free_b, total_b;
  CB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (need + COPY_MEM_HEADROOM > free_b) {
    char need_s[32], free_s[32];
    cb_format_bytes(need, need_s, sizeof need_s);
    cb_format_bytes(free_b, free_s, sizeof free_s);
    cb_fatal("-e %llu needs %s on device %d, which has %s free (256 MiB kept for CUDA)",
             (unsigned long long)bytes, need_s, st->device, free_s);
  }
  CB_CUDA(cudaMalloc(&st->dev_base, (size_t)need));
  st->dev = (void *)(((uintptr_t)st->dev_base + page - 1) & ~(uintptr_t)(page - 1));
}

/* The host buffer: bytes, and the validation's guard after them. */
static void alloc_host(copy_rank *st, uint64_t bytes, int pageable) {
  size_t n = (size_t)bytes + CB_COPY_GUARD_BYTES;
  char size_s[32];
  cb_format_bytes(n, size_s, sizeof size_s);
  if (pageable) {
    if (posix_memalign(&st->host, 4096, n) != 0)
      cb_fatal("cannot allocate %s of pageable host memory", size_s);
    memset(st->host, 0, n); /* first-touch page faults here, not in the timed copies */
    return;
  }
  /* Mapped: the sm kernel loads and stores it from the GPU. Portable: any
   * context may use it. Not write-combined: the CPU reads it (validation,
   * gdrcopy and llhost d2h). */
  cudaError_t rc = cudaHostAlloc(&st->host, n, cudaHostAllocMapped | cudaHostAllocPortable);
  if (rc != cudaSuccess)
    cb_fatal("cannot allocate %s of pinned host memory (cudaHostAlloc: %s)", size_s,
             cudaGetErrorString(rc));
  CB_CUDA(cudaHostGetDevicePointer(&st->host_mapped, st->host, 0));
}

/* d2d: rank 1 offers its buffer, rank 0 opens it (cb_peer_offer: peer
 * access within the process, CUDA IPC across processes). Collective over the
 * world. Returns NULL, or why d2d cannot run (on rank 0). */
static const char *share_peer(copy_rank *st, char *why, size_t len) {
  const cb_copy_options *o = &st->run->opts;
  cb_rank_info *me = st->me;
  peer_record mine, *all = calloc((size_t)me->nranks, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  memset(&mine, 0, sizeof mine);
  snprintf(mine.host, sizeof mine.host, "%s", cb_world_hostname(me->world));
  if (me->rank == 1) {
    alloc_device(st, o->sweep.max_bytes);
    CB_CUDA(cudaDeviceGetPCIBusId(mine.bus_id, sizeof mine.bus_id, st->device));
    /* Rank 0 is in another process (mpirun) when this one is not process 0:
     * it maps the buffer through CUDA IPC. */
    cb_peer_offer_make(st->dev_base, st->dev, me->proc != 0, &mine.offer);
  }
  cb_world_allgather(me, &mine, sizeof mine, all);
  const char *result = NULL;
  if (me->rank == 0) {
    const peer_record *p = &all[1];
    if (strcmp(p->host, mine.host) != 0) {
      snprintf(why, len, "rank 1 is on host %s, rank 0 on %s: d2d copies within one host only",
               p->host, mine.host);
      result = why;
    } else if (cudaDeviceGetByPCIBusId(&st->peer_device, p->bus_id) != cudaSuccess) {
      (void)cudaGetLastError(); /* take the lookup's failure off the error state */
      snprintf(why, len, "rank 1's GPU [%s] is not visible to rank 0's process", p->bus_id);
      result = why;
    } else {
      result = cb_peer_open(&p->offer, st->device, st->peer_device, &st->peer, why, len);
    }
    if (!result)
      snprintf(st->peer_what, sizeof st->peer_what, "device %d [%s] of rank 1 (%s)",
               st->peer_device, p->bus_id,
               st->peer.ipc_base ? "another process: CUDA IPC" : "same process: peer access");
  }
  free(all);
  return result;
}

/* ---- one measurement ---------------------------------------------------------- */

static cb_copy_ctx make_ctx(copy_rank *st, cb_copy_dir d, int k) {
  const cb_copy_options *o = &st->run->opts;
  const cb_copy_kernel *kd = &st->run->prog->kernels[k];
  cb_copy_ctx c = {.dir = d,
                   .rank = st->me->rank,
                   .device = st->device,
                   .peer_device = d == CB_D2D ? st->peer_device : -1,
                   .timeout_s = o->timeout_s,
                   .window = o->window,
                   .max_bytes = o->sweep.max_bytes,
                   .pageable = o->pageable,
                   .host = st->host,
                   .host_mapped = st->host_mapped,
                   .dev = st->dev,
                   .peer = d == CB_D2D ? st->peer.ptr : NULL,
                   .kernel_id = kd->id,
                   .kernel_name = kd->name};
  return c;
}

static cb_copy_call endpoints(const copy_rank *st, cb_copy_dir d, size_t bytes) {
  cb_copy_call c = {.bytes = bytes};
  switch (d) {
  case CB_H2D:
    c.src = st->host, c.dst = st->dev;
    break;
  case CB_D2H:
    c.src = st->dev, c.dst = st->host;
    break;
  default:
    c.src = st->dev, c.dst = st->peer.ptr;
    break;
  }
  return c;
}

static int is_host(const copy_rank *st, const void *p) {
  return p == st->host;
}

/* Round seed's pattern (its complement when invert) into p, a copy's
 * bytes and the guard after them, on stream s, and waits: the CPU-driven
 * paths do not follow stream order. */
static void fill_round(copy_rank *st, const void *p, size_t bytes, uint32_t seed, int invert,
                       cudaStream_t s, const char *what) {
  const size_t n = bytes + CB_COPY_GUARD_BYTES;
  if (is_host(st, p))
    cb_copy_pattern_fill((void *)p, n, seed, invert);
  else
    cb_copy_pattern_fill_device((void *)p, n, seed, invert, s);
  cb_gpu_wait(s, st->run->opts.timeout_s, what);
}

/* Round seed's pattern into the source, its complement (the poison) into
 * the destination, beyond the copy's end too: a copy that runs past its
 * end writes the pattern over the guard's poison. */
static void prepare_round(copy_rank *st, const cb_copy_call *c, uint32_t seed, const char *what) {
  fill_round(st, c->src, c->bytes, seed, 0, st->stream, what);
  fill_round(st, c->dst, c->bytes, seed, 1, st->stream, what);
}

/* Bytes of the destination that differ from round expect's pattern, and
 * of its guard that no longer hold round seed's poison. */
static long long check_round(copy_rank *st, const cb_copy_call *c, uint32_t expect, uint32_t seed) {
  if (is_host(st, c->dst))
    return cb_copy_pattern_check(c->dst, c->bytes, expect) +
           cb_copy_pattern_check_guard(c->dst, c->bytes, seed);
  return cb_copy_pattern_check_device(c->dst, c->bytes, expect, st->counter, st->stream) +
         cb_copy_pattern_check_guard_device(c->dst, c->bytes, seed, st->counter, st->stream);
}

static void post_complete(const cb_copy_kernel *k, cb_copy_ctx *ctx, const cb_copy_call *c,
                          int copies, cudaStream_t s) {
  k->post(ctx, c, copies, s);
  if (k->complete) k->complete(ctx, s);
}

/* The seed of a post's second pattern (validate()): one no round uses. */
#define REWRITE_SEED(seed) ((seed) | 0x80000000u)

/* One validation round: copies copies of a fresh pattern, in a start/stop
 * session of their own, then, in the same session, copies more after the
 * source was rewritten with another pattern (by the CPU, or on a stream
 * of its own beside the session's resident kernel for a device source);
 * then every byte of the destination checked, and the guard after it. The
 * destination must hold the new bytes, not those the first copies read (a
 * GPU that served the second copies' reads from a cache, or a path that
 * moved nothing, leaves the old ones): a single copy and a window alike,
 * in every direction. */
static long long validate(copy_rank *st, const cb_copy_kernel *k, cb_copy_ctx *ctx,
                          const cb_copy_call *c, int copies, uint32_t seed, const char *what) {
  prepare_round(st, c, seed, what);
  if (k->start) k->start(ctx, c, copies, st->stream);
  post_complete(k, ctx, c, copies, st->stream);
  const uint32_t expect = REWRITE_SEED(seed);
  fill_round(st, c->src, c->bytes, expect, 0, st->aside, what);
  post_complete(k, ctx, c, copies, st->stream);
  if (k->stop) k->stop(ctx, st->stream);
  return check_round(st, c, expect, seed);
}

/* measure()'s warm-up, in one place for it and for the count below.
 * Latency: -w single copies; a path with a session (a resident kernel,
 * started asynchronously) gets one untimed copy even with -w 0, so that no
 * sample waits for its start. Bandwidth: one window with -w above 0 (a
 * window of 1 GiB copies is long; one is enough to fault in what the window
 * path uses). */
static int latency_warmup(const cb_copy_options *o, int has_session) {
  return o->warmup > 0 ? o->warmup : has_session;
}
static int window_warmups(const cb_copy_options *o) {
  return o->warmup > 0;
}

/* What measure() posts at each size, beside the load's copies, for a kernel
 * with a session: the warm-up and -n latency copies, the warm-up and -n
 * windows, per validation round a single copy and a window (of more than
 * one), each twice (the second from a rewritten source). */
uint64_t cb_copy_copies_per_size(const cb_copy_options *o) {
  uint64_t w = (uint64_t)o->window, n = (uint64_t)o->iters;
  uint64_t latency = (uint64_t)latency_warmup(o, 1) + n;
  uint64_t windows = ((uint64_t)window_warmups(o) + n) * w;
  uint64_t validation = (uint64_t)o->check * 2 * (1 + (w > 1 ? w : 0));
  return latency + windows + validation;
}

static void measure(copy_rank *st, int kidx, cb_copy_ctx *ctx, cb_copy_dir d, size_t bytes,
                    cb_copy_row *row) {
  const cb_copy_options *o = &st->run->opts;
  const cb_copy_kernel *k = &st->run->prog->kernels[kidx];
  cb_copy_call c = endpoints(st, d, bytes);
  char what[160];
  snprintf(what, sizeof what, "kernel %d (%s) %s %zu B", k->id, k->name, cb_copy_dir_name(d),
           bytes);
  memset(row, 0, sizeof *row);
  row->kernel = kidx;
  row->dir = d;
  row->bytes = bytes;
  double *samples = malloc((size_t)o->iters * sizeof *samples);
  if (!samples) cb_fatal("out of host memory");
  /* Latency: after the warm-up (latency_warmup), one copy then wait for it,
   * -n times; with --post_gap each copy is posted after a random wait,
   * outside the timing, the same waits for every kernel (post_gap.h). */
  const int warm = latency_warmup(o, k->start != NULL);
  cb_post_gap gap;
  cb_post_gap_init(&gap, (uint32_t)o->post_gap_ns, CB_POST_GAP_SEED);
  if (k->start) k->start(ctx, &c, 1, st->stream);
  for (int i = 0; i < warm; i++) {
    cb_post_gap_wait(&gap);
    post_complete(k, ctx, &c, 1, st->stream);
  }
  for (int i = 0; i < o->iters; i++) {
    cb_post_gap_wait(&gap);
    double t0 = cb_monotonic_s();
    post_complete(k, ctx, &c, 1, st->stream);
    samples[i] = 1e6 * (cb_monotonic_s() - t0);
  }
  if (k->stop) k->stop(ctx, st->stream);
  /* Bandwidth: after the warm-up (window_warmups), -W copies in flight,
   * then one wait, -n times (osu_bw). */
  if (k->start) k->start(ctx, &c, o->window, st->stream);
  for (int i = 0; i < window_warmups(o); i++) post_complete(k, ctx, &c, o->window, st->stream);
  double t0 = cb_monotonic_s();
  for (int i = 0; i < o->iters; i++) post_complete(k, ctx, &c, o->window, st->stream);
  double total_us = 1e6 * (cb_monotonic_s() - t0);
  if (k->stop) k->stop(ctx, st->stream);

  cb_copy_measure *lat = &row->m[CB_COPY_LAT], *bw = &row->m[CB_COPY_BW];
  cb_stats_compute(samples, (size_t)o->iters, &lat->stats);
  free(samples);
  lat->ran = lat->has_stats = 1;
  lat->copies = 1;
  lat->samples = o->iters;
  lat->time_us = lat->stats.p50_us;
  lat->p99_us = lat->stats.p99_us;
  lat->algbw = cb_copy_gbps(bytes, lat->time_us);
  bw->ran = 1;
  bw->copies = o->window;
  bw->samples = o->iters;
  bw->time_us = total_us / ((double)o->iters * o->window);
  bw->algbw = cb_copy_gbps(bytes, bw->time_us);
  if (k->protocol) {
    snprintf(lat->protocol, sizeof lat->protocol, "%s", k->protocol(ctx, bytes, 1));
    snprintf(bw->protocol, sizeof bw->protocol, "%s", k->protocol(ctx, bytes, o->window));
  }
  cb_copy_overlap_measure(&st->beside, k, ctx, &c, st->stream, o, bw->time_us, what, &row->overlap);

  /* Validation, after timing: a single copy, and a window (whose copies all
   * move the same bytes, as osu_bw's do); beside the load too with --overlap. */
  row->wrong = o->check ? 0 : -1;
  if (!o->check) return;
  cb_load_beside_validation_begin(&st->beside);
  for (int r = 1; r <= o->check; r++) {
    row->wrong += validate(st, k, ctx, &c, 1, (uint32_t)(2 * r - 1), what);
    if (o->window > 1) row->wrong += validate(st, k, ctx, &c, o->window, (uint32_t)(2 * r), what);
  }
  cb_load_beside_validation_end(&st->beside, o->timeout_s, what);
}

/* ---- the sweep (rank 0) -------------------------------------------------------- */

static void describe_dir(const copy_rank *st, cb_copy_dir d, char *buf, size_t len) {
  const cb_device_info *me = &st->run->report.devices[0];
  const char *mem = st->run->opts.pageable ? "pageable" : "pinned";
  if (d == CB_H2D)
    snprintf(buf, len, "host memory (%s) -> device %d [%s] %s", mem, me->device, me->pci, me->name);
  else if (d == CB_D2H)
    snprintf(buf, len, "device %d [%s] %s -> host memory (%s)", me->device, me->pci, me->name, mem);
  else
    snprintf(buf, len, "device %d [%s] -> %s", me->device, me->pci, st->peer_what);
}

static void run_direction(copy_rank *st, cb_copy_dir d) {
  copy_run *run = st->run;
  const cb_copy_options *o = &run->opts;
  cb_copy_report *r = &run->report;
  FILE *out = o->osu ? NULL : stdout; /* --osu prints everything at the end */
  char what[512];                     /* room for the device name (256) and the rest */
  describe_dir(st, d, what, sizeof what);
  if (out) cb_copy_text_dir_header(out, r, d, what);
  size_t nsizes = cb_sweep_count(&o->sweep);
  for (int k = 0; k < run->prog->nkernels; k++) {
    if (!run->runnable[k]) continue;
    const cb_copy_kernel *kd = &run->prog->kernels[k];
    const char *why = cb_copy_kernel_dir_reason(kd, d, o->pageable);
    cb_copy_ctx ctx = make_ctx(st, d, k);
    if (!why && kd->setup) {
      why = kd->setup(&ctx);
      /* Named with -k and able to serve this direction, yet not here: a failure. */
      if (why && run->explicit_pick && !run->failure[0])
        snprintf(run->failure, sizeof run->failure, "kernel %d (%s) could not run %s: %s", kd->id,
                 kd->name, cb_copy_dir_name(d), why);
    }
    if (why) {
      cb_copy_report_kd_skip(r, k, d, why);
      if (out) cb_copy_text_kernel_skip(out, r, k, d, why);
      fflush(stdout);
      continue;
    }
    char protocol[512]; /* llhost's longest is some 350 characters */
    if (kd->describe) kd->describe(&ctx, protocol, sizeof protocol);
    if (out) cb_copy_text_kernel_header(out, r, k, kd->describe ? protocol : NULL);
    for (size_t i = 0; i < nsizes; i++) {
      cb_copy_row row;
      measure(st, k, &ctx, d, (size_t)cb_sweep_size(&o->sweep, i), &row);
      cb_copy_report_add(r, &row);
      if (out) cb_copy_text_row(out, &row);
      if (out) cb_copy_text_overlap(out, r, &row);
      fflush(stdout);
    }
    if (kd->teardown) kd->teardown(&ctx);
  }
}

static void sweep(copy_rank *st, const char *d2d_why) {
  copy_run *run = st->run;
  for (int d = 0; d < CB_NUM_DIRS; d++) {
    if (!(run->opts.dirs & CB_DIR_BIT(d))) continue;
    if (d == CB_D2D && d2d_why) {
      cb_copy_report_dir_note(&run->report, CB_D2D, d2d_why);
      if (!run->opts.osu) cb_copy_text_dir_note(stdout, CB_D2D, d2d_why);
      continue;
    }
    run_direction(st, (cb_copy_dir)d);
  }
}

/* ---- per rank -------------------------------------------------------------------- */

static int rank_main(cb_rank_info *me, void *arg) {
  copy_run *run = arg;
  const cb_copy_options *o = &run->opts;
  copy_rank st = {.me = me, .run = run, .peer_device = -1};
  st.device = me->local_proc * o->gpus + me->thread;
  CB_CUDA(cudaSetDevice(st.device));
  cb_device_info *devices = cb_gather_devices(me, st.device);
  if (devices) run->report.devices = devices;
  int d2d = (o->dirs & CB_DIR_BIT(CB_D2D)) && me->nranks >= 2;
  char why_buf[256];
  const char *d2d_why = NULL;
  if (me->rank == 0) {
    cb_load_beside_open(&st.beside, o->overlap, o->overlap_size); /* first: the buffers' check
                                                                     counts its memory */
    alloc_device(&st, o->sweep.max_bytes);
    alloc_host(&st, o->sweep.max_bytes, o->pageable);
    CB_CUDA(cudaMalloc((void **)&st.counter, sizeof *st.counter));
    CB_CUDA(cudaStreamCreateWithFlags(&st.stream, cudaStreamNonBlocking));
    CB_CUDA(cudaStreamCreateWithFlags(&st.aside, cudaStreamNonBlocking));
  }
  if (d2d) d2d_why = share_peer(&st, why_buf, sizeof why_buf);
  if (me->rank == 0 && (o->dirs & CB_DIR_BIT(CB_D2D)) && me->nranks < 2)
    d2d_why = "needs two GPUs (-g 2, or mpirun -np 2): this run has one rank";
  if (me->rank == 0 && d2d_why && o->dirs_named && (o->dirs & CB_DIR_BIT(CB_D2D)))
    cb_fatal("-D d2d cannot run: %s", d2d_why);
  /* The reference of the host paths, once, before any kernel runs. */
  if (me->rank == 0 && (o->dirs & (CB_DIR_BIT(CB_H2D) | CB_DIR_BIT(CB_D2H))))
    cb_copy_floor_measure(st.device, me->rank, o->iters, o->warmup, o->post_gap_ns, o->timeout_s,
                          &run->report.floor);
  cb_world_barrier(me);
  if (me->rank == 0) {
    cb_copy_text_header(stdout, &run->report);
    cb_copy_text_overlap_header(stdout, &run->report);
    fflush(stdout);
    sweep(&st, d2d_why);
  }
  cb_world_barrier(me); /* rank 1's buffer stays until rank 0 is done with it */
  cb_peer_close(&st.peer);
  cb_world_barrier(me);
  if (st.dev_base) CB_CUDA(cudaFree(st.dev_base));
  if (me->rank == 0) {
    cb_load_beside_close(&st.beside);
    CB_CUDA(cudaFree(st.counter));
    CB_CUDA(cudaStreamDestroy(st.stream));
    CB_CUDA(cudaStreamDestroy(st.aside));
    if (o->pageable)
      free(st.host);
    else
      CB_CUDA(cudaFreeHost(st.host));
  }
  return 0;
}

void cb_copy_stream_complete(cb_copy_ctx *ctx, cudaStream_t s) {
  (void)ctx;
  /* What an application pays to know a copy is done; a copy-engine copy or
   * an SM copy kernel never waits on anything, so this always returns. */
  CB_CUDA(cudaStreamSynchronize(s));
}

/* ---- the program ------------------------------------------------------------------ */

static void fill_report_header(copy_run *run, int nranks, cb_world *w) {
  cb_copy_report *r = &run->report;
  r->program = "copy_perf";
  r->opts = run->opts;
  r->nranks = nranks;
  r->kernels_run = run->runnable;
  cb_run_stamp(w, &r->cuda_runtime, &r->cuda_driver, r->mpi, sizeof r->mpi, r->date,
               sizeof r->date);
}

int cb_copy_main(const cb_copy_program *prog, int argc, char **argv) {
  const char *program = "copy_perf";
  char err[512];
  cb_error_set_program(program);
  cb_load_env_defaults(argc, argv); /* before anything can initialise CUDA (MPI_Init may) */
  cb_world *w = cb_world_init(&argc, &argv);
  int lead = cb_world_proc(w) == 0;
  copy_run run = {.prog = prog};
  cb_copy_report_init(&run.report, prog);
  cb_opts_result parsed = cb_copy_options_parse(argc, argv, &run.opts, err, sizeof err);
  if (lead && parsed == CB_OPTS_HELP) cb_copy_options_usage(stdout, program);
  if (lead && parsed == CB_OPTS_LIST_KERNELS) cb_copy_kernels_print(stdout, prog);
  /* copy_perf's tunables (tunables.h) and CB_ERROR_STACKS, read and checked
   * with the options, whichever kernels run: a bad value is refused like a
   * bad option. */
  if (parsed == CB_OPTS_RUN &&
      (cb_tunables_read(CB_TUNE_COPY, err, sizeof err) || cb_thread_stacks_read(err, sizeof err)))
    parsed = CB_OPTS_ERROR;
  if (!cb_run_after_parse(w, parsed, err, lead)) { /* -h, -k list: done */
    cb_copy_report_free(&run.report);
    return 0;
  }
  char canonical[CB_OPTIONS_LINE_MAX];
  cb_copy_options_canonical(&run.opts, canonical, sizeof canonical);
  cb_world_run(w, 1, cb_refuse_different_options, canonical);
  cb_world_run(w, 1, cb_refuse_different_tunables, NULL);
  int nranks = cb_world_nprocs(w) * run.opts.gpus;
  if (run.opts.dirs_named && (run.opts.dirs & CB_DIR_BIT(CB_D2D)) && nranks < 2)
    CB_REFUSE(lead, "-D d2d needs two GPUs: run with -g 2, or mpirun -np 2 (this run has 1 rank)");
  choose_kernels(&run, lead);
  refuse_unfinishable(&run, lead);
  if (lead) cb_sink_files_check(run.opts.json_path, run.opts.csv_path);
  int visible = cb_run_visible_gpus(w, lead);
  cb_gpu_check_layout(visible, run.opts.gpus, cb_world_local_nprocs(w), cb_world_hostname(w));
  if (lead) fill_report_header(&run, nranks, w);
  cb_world_run(w, run.opts.gpus, rank_main, &run);
  long long wrong = 0;
  if (lead) {
    if (run.opts.osu)
      cb_copy_osu_write(stdout, &run.report);
    else
      cb_copy_text_footer(stdout, &run.report);
    fflush(stdout);
    cb_sink_files_write(&cb_copy_report_json, run.opts.json_path, &cb_copy_report_csv,
                        run.opts.csv_path, &run.report);
    wrong = cb_copy_report_wrong(&run.report);
    if (run.failure[0]) fprintf(stderr, "%s: %s\n", program, run.failure);
  }
  int failed = run.failure[0] != 0;
  cb_copy_report_free(&run.report);
  free(run.runnable);
  cb_world_finalize(w);
  return wrong || failed ? 1 : 0;
}
