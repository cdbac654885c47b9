#define _POSIX_C_SOURCE 200809L /* clock_gettime, localtime_r (clock.h) */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cuda_check.h"
#include "error.h"
#include "liveness.h"
#include "load_options.h"
#include "measure.h"
#include "nccl_kernels.h"
#include "nccl_tests_env.h"
#include "options.h"
#include "peer_mapping.h"
#include "placed_call.h"
#include "placement.h"
#include "plugins.h"
#include "registry.h"
#include "run_env.h"
#include "run_state.h"
#include "run_steps.h"
#include "sizes.h"
#include "sink.h"
#include "stress.h"
#include "tunables.h"
#include "warmup.h"
#include "watchdog.h"

extern char **environ; /* POSIX: the process's environment */

/* Memory left to NCCL and the CUDA context beyond our buffers. */
#define CB_MEM_HEADROOM (1ull << 30)

/* ---- before any GPU work ---------------------------------------------- */

/* What decides whether a collective kernel can run in this world. */
typedef struct {
  const cb_collective *coll;
  int nranks, multi_host, share_gpus;
} world_fit;

static const char *world_reason(const void *arg, int k, char *buf, size_t len) {
  const world_fit *f = arg;
  const cb_serve_question q = {
      .nranks = f->nranks, .multi_host = f->multi_host, .share_gpus = f->share_gpus};
  return cb_kernel_why_not(f->coll->kernels[k], &q, buf, len);
}

/* Marks the kernels to run in runnable; refuses a named kernel that cannot
 * run here, and records in skips why a kernel of -k all cannot. */
static void choose_kernels(cb_run *run, const char *program, int nranks, int multi_host, int lead) {
  const cb_collective *c = run->coll;
  const cb_kernel_menu m = cb_kernels_menu(c, program);
  /* Ranks take the visible GPUs round robin: those of one host share one
   * only when the host has more ranks than GPUs (ranks of different hosts,
   * simulated on one GPU, are NCCL's network peers). */
  const int gpu_shared = run->share_gpus && run->local_ranks > run->visible_gpus;
  const world_fit fit = {c, nranks, multi_host, gpu_shared};
  run->runnable = calloc((size_t)c->nkernels, sizeof *run->runnable);
  run->report.kernel_skips = calloc((size_t)c->nkernels, sizeof *run->report.kernel_skips);
  if (!run->runnable || !run->report.kernel_skips) cb_fatal("out of host memory");
  cb_choose_kernels(&m, run->opts.kernels, run->runnable, run->report.kernel_skips, world_reason,
                    &fit, lead);
}

/* -R and -x set kernel 0 (nccl). Where the NCCL in use cannot do what they
 * ask, the run is refused before any GPU work (nccl-tests falls back to
 * less, which would give the row another meaning). */
static void check_nccl_flags(const cb_run *run, int lead) {
  char why[192];
  cb_nccl_use_flags(run->opts.local_register, run->opts.cta_policy);
  for (int k = 0; k < run->coll->nkernels; k++)
    if (run->runnable[k] && run->coll->kernels[k]->id == CB_KID_NCCL &&
        cb_nccl_flags_problem(run->opts.local_register, run->opts.cta_policy, why, sizeof why))
      CB_REFUSE(lead, "%s", why);
}

/* ---- per rank setup ---------------------------------------------------- */

/* -M: free memory on the current device. */
static long long device_free(void) {
  size_t free_b, total_b;
  CB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  return (long long)free_b;
}

static void note_most(long long *most, long long v) {
  if (v > *most) *most = v;
}

static void allocate_buffers(cb_rank_state *st, int device) {
  const cb_options *o = &st->run->opts;
  const cb_coll_shape *shape = st->run->coll->shape;
  size_t send, recv, free_b, total_b;
  cb_buffers_need(shape, o->sweep.max_bytes, st->me->nranks, o->unalign, &send, &recv);
  CB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  uint64_t avail = free_b > CB_MEM_HEADROOM ? free_b - CB_MEM_HEADROOM : 0;
  if ((uint64_t)send + recv > avail) {
    char need_s[32], free_s[32], fit_s[32];
    cb_format_bytes((uint64_t)send + recv, need_s, sizeof need_s);
    cb_format_bytes(free_b, free_s, sizeof free_s);
    cb_format_bytes(cb_buffers_largest_fit(shape, st->me->nranks, o->unalign, avail), fit_s,
                    sizeof fit_s);
    cb_fatal("-e %llu needs %s of buffers on device %d, which has %s free (1 GiB kept for NCCL "
             "and CUDA): the largest -e that fits is %s",
             (unsigned long long)o->sweep.max_bytes, need_s, device, free_s, fit_s);
  }
  cb_buffers_init(&st->bufs, send, recv, o->unalign);
}

/* ---- the sweep ---------------------------------------------------------- */

/* One size of the sweep for one root: both placements of the case's call
 * (proto) measured, the row printed and (keep) recorded by world rank 0. */
static void sweep_size(cb_rank_state *st, int kidx, const cb_launch *proto, uint64_t size,
                       int keep) {
  cb_run *run = st->run;
  const cb_coll_shape *shape = run->coll->shape;
  const cb_options *o = &run->opts;
  const cb_call *call = &proto->call;
  size_t elem = cb_dtype_size(call->dtype);
  cb_counts c;
  shape->counts((size_t)size, elem, st->me->nranks, st->me->rank, &c);
  cb_row row = {.kernel = kidx,
                .dtype = call->dtype,
                .op = call->op,
                .root = shape->rooted ? call->root : -1,
                .bytes = cb_counts_table_bytes(&c, elem),
                .count = c.param_count};
  cb_launch l = *proto;
  for (int p = 0; p < 2; p++) {
    cb_place_call(st, &c, elem, p == CB_INP, &l.call);
    cb_measure_call(st, &l, &c, &row.m[p]);
  }
  if (st->me->world_rank == 0) {
    if (o->report_timestamps) cb_local_time(row.stamp, sizeof row.stamp); /* -S */
    const cb_row *shown = keep ? cb_report_add(&run->report, &row) : &row;
    cb_text_resources(stdout, shown, st->shown_resources, sizeof st->shown_resources);
    cb_text_row(stdout, &run->report, shown);
    cb_text_overlap(stdout, &run->report, shown);
    fflush(stdout);
  }
  if (!keep || st->me->world_rank != 0)
    for (int p = 0; p < 2; p++) cb_measure_free(&row.m[p]);
}

/* Every size of the sweep for one root, -N times (0: until the program is stopped, the
 * rows printed but not kept, so memory does not grow), as nccl-tests
 * repeats its sweep; first, unless --all_sizes_warmup 0, nccl-tests' warm-up
 * of every size, once for all the cycles as nccl-tests does it. */
static void sweep_case(cb_rank_state *st, int kidx, cb_kernel_ctx *ctx, cb_dtype t, cb_redop op,
                       int root) {
  const cb_options *o = &st->run->opts;
  const cb_launch proto = {st->run->coll->kernels[kidx],
                           ctx,
                           {.dtype = t, .op = op, .root = root},
                           st->me->rank == st->run->fault_skip_rank};
  if (o->all_sizes_warmup) cb_warm_up_sizes(st, &proto);
  size_t nsizes = cb_sweep_count(&o->sweep);
  int forever = o->run_cycles == 0;
  for (int cycle = 0; forever || cycle < o->run_cycles; cycle++)
    for (size_t i = 0; i < nsizes; i++)
      sweep_size(st, kidx, &proto, cb_sweep_size(&o->sweep, i), !forever);
}

/* Every datatype, op, root and size of the sweep, for one kernel, in
 * nccl-tests' order: with -r all a rooted collective sweeps every size for
 * root 0, then for root 1, ... (a row per root and size). */
static void sweep_cases(cb_rank_state *st, int kidx, cb_kernel_ctx *ctx) {
  cb_run *run = st->run;
  const cb_options *o = &run->opts;
  const int every_root = run->coll->shape->rooted && o->root == CB_ROOT_ALL;
  const int first = o->root == CB_ROOT_ALL ? 0 : o->root;
  const int last = every_root ? st->me->nranks - 1 : first;
  if (st->me->world_rank == 0) cb_text_kernel_header(stdout, &run->report, kidx);
  st->shown_resources[0] = '\0'; /* the kernel's first row shows its resources */
  for (int t = 0; t < CB_NUM_DTYPES; t++) {
    if (!(o->dtypes & CB_DTYPE_BIT(t))) continue;
    for (int op = 0; op < CB_NUM_OPS; op++) {
      /* Collectives without an op run once per datatype. */
      if (cb_shape_loops_ops(run->coll->shape) ? !(o->ops & CB_OP_BIT(op)) : op != CB_SUM) continue;
      for (int root = first; root <= last; root++)
        sweep_case(st, kidx, ctx, (cb_dtype)t, (cb_redop)op, root);
    }
  }
}

/* "reason (rank r)", or the reason alone for rank < 0; allocated. */
static char *naming_rank(const char *text, int rank) {
  size_t len = strlen(text) + 32;
  char *s = malloc(len);
  if (!s) cb_fatal("out of host memory");
  if (rank < 0)
    snprintf(s, len, "%s", text);
  else
    snprintf(s, len, "%s (rank %d)", text, rank);
  return s;
}

/* Whether every rank's setup refused in the same words: a refusal of the
 * run as a whole (ranks sharing GPUs, a peer mapping that cannot serve,
 * whose reason names the rank it concerns), where naming the first rank
 * would only repeat a rank or mislead. */
static int refused_alike(const cb_setup_reply *all, int n) {
  for (int r = 1; r < n; r++)
    if (strcmp(all[r].refused, all[0].refused) != 0) return 0;
  return 1;
}

/* Collective, after every rank's setup: a kernel that one rank's setup
 * refused is skipped on every rank; rank 0 records and prints the first
 * refusal's reason, naming the rank unless every rank refused alike, or
 * else the first note. Returns whether the kernel is out. */
static int refused_anywhere(cb_rank_state *st, int kidx, const cb_setup_reply *mine) {
  int n = st->me->world_nranks; /* every group runs the same kernels */
  cb_setup_reply *all = malloc((size_t)n * sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather_all(st->me, mine, sizeof *mine, all);
  int who = -1, noted = -1;
  for (int r = 0; r < n; r++) {
    if (who < 0 && all[r].refused[0]) who = r;
    if (noted < 0 && all[r].note[0]) noted = r;
  }
  if (st->me->world_rank == 0) {
    cb_run *run = st->run;
    const cb_kernel *k = run->coll->kernels[kidx];
    if (who >= 0) {
      run->runnable[kidx] = 0;
      free(run->report.kernel_skips[kidx]);
      run->report.kernel_skips[kidx] =
          naming_rank(all[who].refused, refused_alike(all, n) ? -1 : who);
      cb_text_kernel_skipped(stdout, k->id, k->name, run->report.kernel_skips[kidx]);
    } else if (noted >= 0) {
      char *note = naming_rank(all[noted].note, noted);
      printf("#\n# kernel %d (%s): note: %s\n", k->id, k->name, note);
      free(note);
    }
    fflush(stdout);
  }
  free(all);
  cb_world_barrier_all(st->me);
  return who >= 0;
}

static void run_kernel(cb_rank_state *st, int kidx) {
  cb_run *run = st->run;
  const cb_kernel *k = run->coll->kernels[kidx];
  const cb_options *o = &run->opts;
  int device;
  CB_CUDA(cudaGetDevice(&device));
  /* A kernel that maps peer memory cannot run where the run's mapping is
   * unavailable: skipped like a setup's refusal, without its setup. */
  const char *no_mapping = cb_kernel_uses_peer_memory(k) ? st->peer_mapping_why : NULL;
  if (!no_mapping) cb_buffers_provide(&st->bufs, k->memory);
  cb_kernel_ctx ctx = {.rank = st->me->rank,
                       .nranks = st->me->nranks,
                       .device = device,
                       .timeout_s = o->timeout_s,
                       .max_bytes = o->sweep.max_bytes,
                       .kernel_id = k->id,
                       .kernel_name = k->name,
                       .world = st->me,
                       .send_buf = st->bufs.send,
                       .recv_buf = st->bufs.recv,
                       .send_buf_bytes = st->bufs.send_bytes,
                       .recv_buf_bytes = st->bufs.recv_bytes};
  ctx.ranks_on_device = st->ranks_on_gpu;
  cb_mem_probe *mem = &st->mem;
  long long before_setup = o->memory_report ? device_free() : 0;
  if (o->memory_report) note_most(&mem->use.user, mem->base_free - before_setup);
  cb_setup_reply reply = {{0}, {0}};
  if (no_mapping)
    cb_kernel_refuse(&reply, "%s", no_mapping);
  else if (k->setup)
    k->setup(&ctx, &reply);
  long long after_setup = o->memory_report ? device_free() : 0;
  if (refused_anywhere(st, kidx, &reply)) {
    if (k->teardown && !no_mapping) k->teardown(&ctx);
    return;
  }
  if (o->stress)
    cb_stress_kernel(st, kidx, &ctx);
  else
    sweep_cases(st, kidx, &ctx);
  if (o->memory_report) {
    note_most(&mem->use.init, before_setup - after_setup);
    note_most(&mem->use.coll, after_setup - device_free());
  }
  cb_world_barrier_all(st->me);
  if (k->teardown) k->teardown(&ctx);
}

/* -M: the most any rank took, into world rank 0's report. */
static void gather_memory(cb_rank_state *st) {
  int n = st->me->world_nranks;
  cb_mem_use *all = malloc((size_t)n * sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather_all(st->me, &st->mem.use, sizeof st->mem.use, all);
  if (st->me->world_rank == 0) {
    cb_report *r = &st->run->report;
    r->has_mem = 1;
    for (int i = 0; i < n; i++) {
      note_most(&r->mem.init, all[i].init);
      note_most(&r->mem.user, all[i].user);
      note_most(&r->mem.coll, all[i].coll);
    }
  }
  free(all);
}

/* Whether a kernel of ours that maps peer memory is to run: the same on
 * every rank, since every group runs the same kernels. */
static int uses_peer_memory(const cb_run *run) {
  int uses = 0;
  for (int k = 0; k < run->coll->nkernels; k++)
    uses |= run->runnable[k] && cb_kernel_uses_peer_memory(run->coll->kernels[k]);
  return uses;
}

/* Collective: settles the run's peer mapping (CB_PEER_MAPPING) before any
 * buffer of our kernels is allocated, since the allocator follows it. auto
 * is resolved to cumem or ipc (world rank 0 keeps the pick for the
 * report); a mapping named in the variable is checked, and the reason it
 * cannot serve the kernels that use peer memory returned (NULL: it can).
 * Nothing is probed when no such kernel runs (auto then stays unresolved)
 * or under ipc, which needs nothing checked. */
static const char *peer_mapping_problem(cb_rank_state *st, int device) {
  cb_run *run = st->run;
  if (!uses_peer_memory(run)) return NULL;
  if (run->opts.peer_mapping != CB_PEER_AUTO)
    return cb_peer_mapping_check(st->me, device, st->peer_mapping_buf, sizeof st->peer_mapping_buf);
  cb_peer_mapping_auto pick;
  cb_peer_mapping_resolve_auto(st->me, device, &pick);
  if (st->me->world_rank == 0) run->report.peer_auto = pick; /* before the header */
  return NULL;
}

/* The rank's device, whose context this call makes: a failure is one line,
 * which under MPS names the pool of hardware queues and the fix
 * (cb_run_env_context_failure). */
static void set_device(const cb_run *run, int device) {
  cudaError_t rc = cudaSetDevice(device);
  char why[400];
  if (rc == cudaSuccess) return;
  const char *hint = cb_run_env_context_failure(rc, run->share_gpus, why, sizeof why);
  cb_die(__FILE__, __LINE__, "cudaSetDevice(device)", hint ? hint : cudaGetErrorString(rc));
}

static int rank_main(cb_rank_info *me, void *arg) {
  cb_run *run = arg;
  const cb_options *o = &run->opts;
  int device = cb_device_of(run, me);
  set_device(run, device);
  cb_rank_state st = {.me = me, .run = run};
  st.timing = (cb_timing_opts){.iters = o->iters,
                               .warmup = o->warmup,
                               .graph_launches = o->graph_launches,
                               .blocking = o->blocking,
                               .per_iter = o->per_iter,
                               .timeout_s = o->timeout_s,
                               .host_timer = o->timer == CB_TIMER_HOST,
                               .agg = o->agg_iters,
                               .lockstep = run->share_gpus && cb_options_ranks_per_proc(o) > 1};
  cb_device_info *devices = cb_gather_devices(me, device);
  if (devices) run->report.devices = devices;
  st.ranks_on_gpu = cb_ranks_on_gpu(me, device);
  /* The load first: the buffers' check counts its memory, -M does not. */
  cb_load_beside_open(&st.beside, o->overlap, o->overlap_size);
  if (o->memory_report) st.mem.base_free = device_free();
  st.peer_mapping_why = peer_mapping_problem(&st, device);
  allocate_buffers(&st, device);
  /* -y 1: the legacy NULL stream, as nccl-tests' stream_null. */
  if (!o->stream_null) CB_CUDA(cudaStreamCreateWithFlags(&st.stream, cudaStreamNonBlocking));
  if (me->world_rank == 0) cb_text_header(stdout, &run->report);
  for (int k = 0; k < run->coll->nkernels; k++)
    if (run->runnable[k]) run_kernel(&st, k);
  if (o->memory_report) gather_memory(&st);
  if (st.stream) CB_CUDA(cudaStreamDestroy(st.stream));
  cb_load_beside_close(&st.beside);
  cb_buffers_free(&st.bufs);
  return 0;
}

/* ---- the program -------------------------------------------------------- */

static void fill_report_header(cb_run *run, const char *program, int nranks, cb_world *w,
                               double min_bw, int argc, char **argv) {
  cb_report *r = &run->report;
  r->program = program;
  r->ngroups = cb_world_ngroups(w);
  r->check_min_bw = min_bw >= 0;
  r->min_bw = min_bw;
  r->argc = argc;
  r->argv = (const char *const *)argv;
  r->envp = environ;
  cb_local_time(r->start_time, sizeof r->start_time);
  r->coll = run->coll;
  r->plugins = run->plugins;
  r->opts = run->opts;
  r->nranks = nranks;
  r->kernels_run = run->runnable;
  r->nccl_header = cb_nccl_header_version();
  r->nccl_library = cb_nccl_unavailable() ? 0 : cb_nccl_library_version();
  cb_run_stamp(w, &r->cuda_runtime, &r->cuda_driver, r->mpi, sizeof r->mpi, r->date,
               sizeof r->date);
  const int hosts = cb_world_simulated_hosts(w);
  if (hosts || run->share_gpus)
    snprintf(r->times_void, sizeof r->times_void, "%s%s%s",
             hosts ? "hosts simulated on one machine (CB_HOSTS or NCCL_HOSTID)" : "",
             hosts && run->share_gpus ? "; " : "",
             run->share_gpus ? "ranks share GPUs (CB_SHARE_GPUS=1)" : "");
}

/* A process-level step: every process maps the liveness board, and its
 * watchdog thread beats there. */
static int join_liveness(cb_rank_info *me, void *arg) {
  if (cb_liveness_join(me, *(const int *)arg)) cb_watchdog_start();
  return 0;
}

static int is_collective(const char *name) {
  return cb_registry_collective(name) != NULL;
}

/* The program's table: its rows of ours, then the plugins' rows for it. A
 * table that cannot be made is a bug of this build. */
static void table_of(const cb_coll_shape *shape, const cb_plugin_set *plugins, cb_collective *t) {
  char why[512];
  const cb_kernel **extra = calloc((size_t)plugins->nrows + 1, sizeof *extra);
  if (!extra) cb_fatal("out of host memory");
  int n = cb_plugins_rows_of(plugins, shape->name, extra);
  if (cb_collective_collect(shape, extra, n, t, why, sizeof why))
    cb_fatal("the kernel table cannot be made: %s", why);
  free(extra);
}

int cb_main(const cb_coll_shape *shape, int argc, char **argv) {
  char program[64], err[512];
  snprintf(program, sizeof program, "%s_perf", shape->name);
  cb_error_set_program(program);
  cb_run_env_cuda_defaults(); /* before anything can initialise CUDA (MPI_Init may) */
  cb_load_env_defaults(argc, argv);
  cb_world *w = cb_world_init(&argc, &argv);
  cb_run_env_queues_for(cb_world_machine_nprocs(w)); /* before any CUDA context */
  int lead = cb_world_proc(w) == 0;                  /* only the first process prints */
  cb_run run = {.fault_skip_rank = -1};
  /* Fault injection for tests/gpu: one rank that never launches a kernel
   * stands for a lost peer; the others must stop with a timeout naming it. */
  const char *skip = getenv("CB_FAULT_SKIP_RANK");
  if (skip) run.fault_skip_rank = atoi(skip);
  cb_opts_result parsed = cb_options_parse(argc, argv, &run.opts, err, sizeof err);
  /* The kernels: ours, registered in the library, and the plugins' (loaded
   * and checked now, before anything else can refuse the run for them). */
  static cb_plugin_set plugins; /* held to the end, whichever return ends the run */
  static cb_collective table;
  if ((parsed == CB_OPTS_RUN || parsed == CB_OPTS_LIST_KERNELS) &&
      cb_plugins_load(run.opts.plugins, run.opts.nplugins, getenv(CB_PLUGINS_ENV), is_collective,
                      &plugins, err, sizeof err))
    parsed = CB_OPTS_ERROR;
  table_of(shape, &plugins, &table);
  const cb_collective *coll = run.coll = &table;
  run.plugins = plugins.n ? &plugins : NULL;
  if (lead && parsed == CB_OPTS_HELP) cb_options_usage(stdout, program);
  if (lead && parsed == CB_OPTS_LIST_KERNELS) cb_kernels_print(stdout, coll);
  cb_nccl_tests_vars vars;
  parsed = cb_run_env_read(w, parsed, &run.opts, &vars, err, sizeof err);
  if (!cb_run_after_parse(w, parsed, err, lead)) return 0;
  const char *bad_env = coll->shape->environment ? coll->shape->environment(err, sizeof err) : NULL;
  if (bad_env) CB_REFUSE(lead, "%s", bad_env);
  cb_watchdog_set_default(run.opts.timeout_s); /* bounds the MPI waits from here on */
  char canonical[CB_OPTIONS_LINE_MAX];
  cb_options_canonical(&run.opts, canonical, sizeof canonical);
  /* The plugins too, where any was loaded: every process must have the same kernels. */
  size_t used = strlen(canonical);
  if (plugins.n)
    snprintf(canonical + used, sizeof canonical - used, " plugins=%016llx",
             (unsigned long long)plugins.digest);
  cb_world_run(w, 1, cb_refuse_different_options, canonical); /* a process-level check */
  cb_world_run(w, 1, cb_refuse_different_tunables, NULL);
  cb_place_hosts(w, lead);
  cb_split_world(w, vars.color, lead);
  run.first_device = vars.first_device;
  int rpp = cb_options_ranks_per_proc(&run.opts);
  cb_world_run(w, 1, join_liveness, &rpp);     /* lets a -T timeout name a stopped peer */
  int nranks = cb_world_group_nprocs(w) * rpp; /* a group's: what every kernel works with */
  if (coll->shape->rooted && run.opts.root >= nranks)
    CB_REFUSE(lead, "-r %d: the root must be a rank from 0 to %d, or all", run.opts.root,
              nranks - 1);
  if (coll->shape->pow2_ranks && (nranks & (nranks - 1))) {
    /* nccl-tests' hypercube says this and measures nothing, with success:
     * a script that runs every program on any rank count goes on. */
    if (lead) printf("nRanks %d is not a power of 2, skipping\n", nranks);
    cb_world_finalize(w);
    return 0;
  }
  run.share_gpus = (int)cb_tunable("CB_SHARE_GPUS");
  run.local_ranks = cb_world_local_nprocs(w) * rpp;
  /* With CB_SHARE_GPUS=1 (GPU nodes only) whether ranks of one host share a
   * GPU, which NCCL refuses, depends on the GPUs visible: they are counted
   * before the kernels are chosen. Otherwise the count waits until every
   * refusal that needs no GPU has been said. */
  if (run.share_gpus) run.visible_gpus = cb_run_visible_gpus(w, lead);
  choose_kernels(&run, program, nranks, cb_world_multi_host(w), lead);
  check_nccl_flags(&run, lead);
  if (lead) cb_sink_files_check(run.opts.json_path, run.opts.csv_path);
  if (!run.share_gpus) run.visible_gpus = cb_run_visible_gpus(w, lead);
  cb_check_devices(w, &run, rpp, lead);
  if (lead) fill_report_header(&run, program, nranks, w, vars.min_bw, argc, argv);
  cb_world_run(w, rpp, rank_main, &run);
  int failed = 0;
  if (lead) {
    cb_text_footer(stdout, &run.report);
    fflush(stdout);
    cb_sink_files_write(&cb_report_json, run.opts.json_path, &cb_report_csv, run.opts.csv_path,
                        &run.report);
    /* Wrong values, or NCCL_TESTS_MIN_BW not met: nccl-tests' failures. */
    failed = cb_report_wrong(&run.report) ||
             cb_min_bw_failed(cb_report_headline_busbw(&run.report), vars.min_bw);
  }
  for (int k = 0; k < coll->nkernels; k++) free(run.report.kernel_skips[k]);
  free(run.report.kernel_skips);
  cb_report_free(&run.report);
  free(run.runnable);
  cb_collective_free(&table);
  cb_world_finalize(w);
  return failed ? 1 : 0;
}
