#define _GNU_SOURCE /* getopt_long */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "load_options.h"
#include "option_parse.h"
#include "peer_mapping.h"
#include "types.h"

void cb_options_defaults(cb_options *o) {
  memset(o, 0, sizeof *o);
  /* nccl-tests' defaults, so a bare command means the same thing in both. */
  o->sweep.min_bytes = 32ull << 20;
  o->sweep.max_bytes = 32ull << 20;
  o->sweep.step_factor = 1;
  o->sweep.step_bytes = 1ull << 20;
  o->iters = 20;
  o->warmup = 5;
  o->all_sizes_warmup = 1; /* nccl-tests warms every size up before it times the first */
  o->check = 1;
  o->dtypes = CB_DTYPE_BIT(CB_FLOAT);
  o->ops = CB_OP_BIT(CB_SUM);
  o->threads = 1;
  o->gpus = 1;
  o->average = CB_AVG_MEAN;
  o->agg_iters = 1;
  o->run_cycles = 1;
  o->timeout_s = 300;
  o->cta_policy = CB_CTA_POLICY_UNSET;
  o->peer_mapping = CB_PEER_AUTO; /* CB_PEER_MAPPING unset (the runner reads the variable) */
  snprintf(o->kernels, sizeof o->kernels, "all");
}

enum {
  OPT_STRESS = CB_OPT_CSV + 1,
  OPT_DATA,
  OPT_TIMER,
  OPT_ALL_SIZES_WARMUP,
  OPT_OVERLAP,
  OPT_OVERLAP_SIZE,
  OPT_PLUGIN
};

/* nccl-tests' -V: the CTAs of its device-API kernels (-D), which collbench
 * does not carry, so no value of it means anything here. */
#define NO_DEVICE_API_KERNELS                                                                      \
  "nccl-tests' device-API kernels (NCCL >= 2.28 device communicators), which collbench does "      \
  "not carry; its own kernels are picked with -k (-k list)"

const char *cb_timer_name(int timer) {
  return timer == CB_TIMER_EVENTS ? "events" : "host";
}

static const struct option long_opts[] = {
    CB_COMMON_LONG_OPTS,
    {"datatype", required_argument, 0, 'd'},
    {"op", required_argument, 0, 'o'},
    {"root", required_argument, 0, 'r'},
    {"nthreads", required_argument, 0, 't'},
    {"ngpus", required_argument, 0, 'g'},
    {"cudagraph", required_argument, 0, 'G'},
    {"average", required_argument, 0, 'a'},
    {"blocking", required_argument, 0, 'z'},
    {"per_iter_timing", required_argument, 0, 'I'},
    {"stress", required_argument, 0, OPT_STRESS},
    {"unalign", required_argument, 0, 'u'},
    {"data", required_argument, 0, OPT_DATA},
    {"local_register", required_argument, 0, 'R'},
    {"cta_policy", required_argument, 0, 'x'},
    {"timer", required_argument, 0, OPT_TIMER},
    {"all_sizes_warmup", required_argument, 0, OPT_ALL_SIZES_WARMUP},
    {"overlap", required_argument, 0, OPT_OVERLAP},
    {"overlap_size", required_argument, 0, OPT_OVERLAP_SIZE},
    {"plugin", required_argument, 0, OPT_PLUGIN},
    {"agg_iters", required_argument, 0, 'm'},
    {"run_cycles", required_argument, 0, 'N'},
    {"parallel_init", required_argument, 0, 'p'},
    {"stream_null", required_argument, 0, 'y'},
    {"report_cputime", required_argument, 0, 'C'},
    {"report_timestamps", required_argument, 0, 'S'},
    {"memory", required_argument, 0, 'M'},
    {"per_iter_skip", required_argument, 0, 'K'},
    {"device_implementation", required_argument, 0, 'D'},
    {"device_cta_count", required_argument, 0, 'V'},
    {0, 0, 0, 0},
};

static const cb_int_opt int_opts[] = {
    CB_COMMON_INT_OPTS(cb_options),
    {'r', "root (-r)", 0, INT_MAX, offsetof(cb_options, root)},
    {'t', "threads per process (-t)", 1, 1024, offsetof(cb_options, threads)},
    {'g', "GPUs per thread (-g)", 1, 1024, offsetof(cb_options, gpus)},
    {'G', "CUDA graph launches (-G)", 0, INT_MAX, offsetof(cb_options, graph_launches)},
    {'a', "average mode (-a: 0 rank0, 1 avg, 2 min, 3 max)", 0, 3, offsetof(cb_options, average)},
    {'z',
     "blocking (-z: 0 none, 1 wait and meet after each operation, 2 wait after each, 3 "
     "wait and meet after each iteration)",
     0, 3, offsetof(cb_options, blocking)},
    {'m', "aggregated operations per iteration (-m)", 1, 65536, offsetof(cb_options, agg_iters)},
    {'N', "run cycles (-N: 0 = until stopped)", 0, INT_MAX, offsetof(cb_options, run_cycles)},
    {'p', "parallel init (-p: 0 or 1)", 0, 1, offsetof(cb_options, parallel_init)},
    {'y', "NULL stream (-y: 0 or 1)", 0, 1, offsetof(cb_options, stream_null)},
    {'C', "CPU time report (-C: 0 or 1)", 0, 1, offsetof(cb_options, report_cputime)},
    {'S', "timestamps (-S: 0 or 1)", 0, 1, offsetof(cb_options, report_timestamps)},
    {'M', "memory report (-M: 0 or 1)", 0, 1, offsetof(cb_options, memory_report)},
    {'K', "per-iteration skip (-K)", 0, INT_MAX, offsetof(cb_options, per_iter_skip)},
    {'I', "per-iteration statistics (-I: 0 or 1)", 0, 1, offsetof(cb_options, per_iter)},
    {OPT_STRESS, "stress iterations (--stress)", 1, INT_MAX, offsetof(cb_options, stress)},
    {OPT_ALL_SIZES_WARMUP, "warm-up for all sizes (--all_sizes_warmup: 0 or 1)", 0, 1,
     offsetof(cb_options, all_sizes_warmup)},
    {'u', "unalign (-u: elements the buffers start in)", 0, 1 << 20, offsetof(cb_options, unalign)},
    {'R', "registration (-R: 0 none, 1 ncclCommRegister, 2 symmetric windows)", 0, 2,
     offsetof(cb_options, local_register)},
    {'x', "CTA policy (-x: 0 default, 1 efficiency, 2 zero)", 0, 2,
     offsetof(cb_options, cta_policy)},
};

/* What -G cannot be combined with: a graph runs its iterations without the
 * host in between, and CUDA cannot capture the legacy NULL stream. */
static cb_opts_result check_graph(const cb_options *o, char *err, size_t len) {
  if (o->graph_launches == 0) return CB_OPTS_RUN;
  if (o->blocking)
    return cb_opts_fail(err, len,
                        "-G (CUDA graph) cannot be combined with -z %d (blocking): a graph "
                        "runs its iterations without the host in between",
                        o->blocking);
  if (o->stream_null)
    return cb_opts_fail(err, len,
                        "-G (CUDA graph) cannot be combined with -y 1: CUDA cannot capture the "
                        "legacy NULL stream into a graph");
  return CB_OPTS_RUN;
}

/* -K leaves out leading samples of -I's statistics (nccl-tests ignores a -K
 * it cannot use, with a message; here it is refused). */
static cb_opts_result check_per_iter_skip(const cb_options *o, char *err, size_t len) {
  if (o->per_iter_skip && !o->per_iter)
    return cb_opts_fail(err, len,
                        "-K %d leaves samples out of -I's per-iteration statistics: give -I 1 "
                        "too",
                        o->per_iter_skip);
  if (o->per_iter_skip >= o->iters)
    return cb_opts_fail(err, len,
                        "-K %d would leave none of the -n %d samples: it must be below -n",
                        o->per_iter_skip, o->iters);
  /* In graph mode -I takes one sample per graph launch. */
  if (o->graph_launches && o->per_iter_skip >= o->graph_launches)
    return cb_opts_fail(err, len,
                        "-K %d would leave none of the -G %d samples (one per graph launch): it "
                        "must be below -G",
                        o->per_iter_skip, o->graph_launches);
  return CB_OPTS_RUN;
}

/* --overlap: a load this build runs, of a size it takes, beside timed calls
 * that run back to back (the -z modes' waits would leave the load alone in
 * the window it is measured in, docs/overlap.md). */
static cb_opts_result check_overlap(cb_options *o, char *err, size_t len) {
  if (cb_load_options_check(o->overlap, &o->overlap_size, err, len)) return CB_OPTS_ERROR;
  if (o->overlap == CB_LOAD_NONE) return CB_OPTS_RUN;
  if (o->stress)
    return cb_opts_fail(err, len, "--overlap times calls beside a load, and --stress times none");
  if (o->blocking)
    return cb_opts_fail(err, len,
                        "--overlap cannot be combined with -z %d: the load's rate beside the call "
                        "is measured over the timed launches, which the host's waits would leave "
                        "gaps in",
                        o->blocking);
  return CB_OPTS_RUN;
}

/* --stress times nothing and runs no sweep; -N 0 never ends. */
static cb_opts_result check_run_shape(const cb_options *o, char *err, size_t len) {
  if (o->stress && o->run_cycles != 1)
    return cb_opts_fail(err, len, "-N repeats the sweep, and --stress runs none");
  if (o->stress && o->agg_iters != 1)
    return cb_opts_fail(err, len, "-m aggregates timed operations, and --stress times none");
  if (o->run_cycles == 0 && (o->json_path[0] || o->csv_path[0]))
    return cb_opts_fail(err, len,
                        "-N 0 runs until it is stopped, so the %s file, written at the end, "
                        "would never be written",
                        o->json_path[0] ? "-J" : "--csv");
  return CB_OPTS_RUN;
}

static cb_opts_result check_combinations(cb_options *o, const cb_common_opts *co, char *err,
                                         size_t len) {
  if (cb_sweep_check(&o->sweep, co, err, len) != CB_OPTS_RUN) return CB_OPTS_ERROR;
  if (check_graph(o, err, len) != CB_OPTS_RUN || check_per_iter_skip(o, err, len) != CB_OPTS_RUN ||
      check_run_shape(o, err, len) != CB_OPTS_RUN || check_overlap(o, err, len) != CB_OPTS_RUN)
    return CB_OPTS_ERROR;
  /* The default timer depends on the mode, whatever order the options came in. */
  if (!o->timer) o->timer = o->graph_launches > 0 || o->blocking ? CB_TIMER_EVENTS : CB_TIMER_HOST;
  return CB_OPTS_RUN;
}

/* --overlap_size: a byte count (K, M, G), never 0. */
static cb_opts_result overlap_size_opt(const char *arg, uint64_t *size, char *err, size_t len) {
  if (cb_parse_size(arg, size) != CB_SIZE_OK || *size == 0)
    return cb_opts_fail(
        err, len, "bad --overlap_size '%s': a positive whole number, K, M or G for bytes", arg);
  return CB_OPTS_RUN;
}

/* nccl-tests' -D: 0 is NCCL's host API, which kernel 0 calls; its other
 * values pick nccl-tests' own device-API kernels. */
static cb_opts_result device_impl_opt(const char *arg, char *err, size_t len) {
  if (strcmp(arg, "0") == 0) return CB_OPTS_RUN;
  return cb_opts_fail(err, len, "-D %s is refused: it selects " NO_DEVICE_API_KERNELS, arg);
}

cb_opts_result cb_options_parse(int argc, char **argv, cb_options *o, char *err, size_t len) {
  cb_common_opts co = CB_COMMON_OPTS_OF(o, "the options", "8, 64K, 1G", int_opts);
  cb_options_defaults(o);
  cb_common_opts_begin(&co, err);
  int c;
  while ((c = getopt_long(argc, argv,
                          ":b:e:i:f:n:w:c:d:o:r:t:g:G:a:z:T:I:J:k:u:R:x:m:N:p:y:C:S:M:K:D:V:h",
                          long_opts, NULL)) != -1) {
    cb_opts_result res;
    char bad[64];
    int twice;
    if (c == 'r' && (strcasecmp(optarg, "all") == 0 || strcmp(optarg, "-1") == 0)) {
      o->root = CB_ROOT_ALL; /* nccl-tests' README says "all", its parser takes -1 */
    } else if (cb_common_opt(&co, c, argv, &res, err, len)) {
      if (res != CB_OPTS_RUN) return res;
    } else if (c == 'd') {
      char names[160];
      if (!(o->dtypes = cb_dtype_mask_parse(optarg, bad, sizeof bad, &twice)))
        return twice ? cb_opts_fail(err, len, "bad -d '%s': %s is named twice", optarg, bad)
                     : cb_opts_fail(err, len,
                                    "unknown datatype '%s' (-d takes %s, a comma list, or all)",
                                    bad, cb_dtype_names(names, sizeof names));
    } else if (c == 'o') {
      char names[80];
      if (!(o->ops = cb_redop_mask_parse(optarg, bad, sizeof bad, &twice)))
        return twice ? cb_opts_fail(err, len, "bad -o '%s': %s is named twice", optarg, bad)
                     : cb_opts_fail(err, len, "unknown op '%s' (-o takes %s, a comma list, or all)",
                                    bad, cb_redop_names(names, sizeof names));
    } else if (c == OPT_DATA) {
      int kind = cb_data_kind_parse(optarg);
      if (kind < 0)
        return cb_opts_fail(err, len, "unknown --data '%s' (it takes exact or random)", optarg);
      o->data = (cb_data_kind)kind;
    } else if (c == 'D') {
      if (device_impl_opt(optarg, err, len) != CB_OPTS_RUN) return CB_OPTS_ERROR;
    } else if (c == 'V') {
      return cb_opts_fail(err, len, "-V %s is refused: it sets the CTAs of " NO_DEVICE_API_KERNELS,
                          optarg);
    } else if (c == OPT_OVERLAP) {
      if (cb_load_option_kind(optarg, &o->overlap, err, len)) return CB_OPTS_ERROR;
    } else if (c == OPT_OVERLAP_SIZE) {
      if (overlap_size_opt(optarg, &o->overlap_size, err, len) != CB_OPTS_RUN) return CB_OPTS_ERROR;
    } else if (c == OPT_PLUGIN) {
      if (o->nplugins == CB_MAX_PLUGINS)
        return cb_opts_fail(err, len, "--plugin %s: at most %d plugins", optarg, CB_MAX_PLUGINS);
      o->plugins[o->nplugins++] = optarg;
    } else if (c == OPT_TIMER) {
      if (strcasecmp(optarg, "host") == 0)
        o->timer = CB_TIMER_HOST;
      else if (strcasecmp(optarg, "events") == 0)
        o->timer = CB_TIMER_EVENTS;
      else
        return cb_opts_fail(err, len, "unknown timer '%s' (--timer takes host or events)", optarg);
    }
  }
  cb_opts_result res = cb_common_opts_end(&co, argc, argv, err, len);
  return res != CB_OPTS_RUN ? res : check_combinations(o, &co, err, len);
}

void cb_options_usage(FILE *out, const char *prog) {
  fprintf(out,
          "usage: %s [options]\n"
          "  -b, --minbytes N       smallest message size in bytes, K/M/G suffixes (32M)\n"
          "  -e, --maxbytes N       largest message size (32M)\n"
          "  -i, --stepbytes N      linear increment when -f is 1 (1M)\n"
          "  -f, --stepfactor N     multiply the size by N at each step (1 = use -i)\n"
          "  -n, --iters N          timed iterations per size (20)\n"
          "  -w, --warmup_iters N   warm-up iterations per size (5)\n"
          "      --all_sizes_warmup N  1 = before the first size is timed, -w calls at\n"
          "                         every size from -b to -e by a factor of 2, as\n"
          "                         nccl-tests; 0 = only -w calls before each size (1)\n"
          "  -c, --check N          validation rounds after timing, 0 = off (1)\n"
          "  -d, --datatype T       int8 uint8 int32 uint32 int64 uint64 half float double\n"
          "                         bfloat16 f8e4m3 f8e5m2, a comma list, or all (float)\n"
          "  -o, --op OP            sum prod min max avg mulsum, a comma list, or all (sum)\n"
          "  -r, --root N           root rank of rooted collectives, or all (-1): a row\n"
          "                         per root (0)\n"
          "  -t, --nthreads N       host threads per process (1)\n"
          "  -g, --ngpus N          GPUs per thread; every GPU gets its own host thread (1)\n"
          "  -G, --cudagraph N      capture the -n iterations in a CUDA graph, launch it N times\n"
          "                         (0 = stream mode)\n"
          "  -a, --average N        time across ranks: 0 rank 0, 1 mean, 2 min, 3 max (1)\n"
          "  -m, --agg_iters N      operations per timed iteration; NCCL's in one group (1)\n"
          "  -N, --run_cycles N     run the sweep N times, printing each; 0 = until stopped (1)\n"
          "  -z, --blocking N       0 launch back to back; 1 wait and barrier after each\n"
          "                         operation (-m); 2 wait after each, no barrier; 3 wait and\n"
          "                         barrier after each iteration, time without the barrier (0)\n"
          "  -y, --stream_null N    1 = run on the legacy NULL stream (0)\n"
          "  -p, --parallel_init N  accepted: every rank's own thread always sets up its\n"
          "                         communicators, in parallel (0)\n"
          "  -C, --report_cputime N 1 = the time column is the host's time to launch (0)\n"
          "  -S, --report_timestamps N  1 = each row ends with the local time (0)\n"
          "  -M, --memory N         1 = report GPU memory usage (0)\n"
          "  -T, --timeout S        fail, naming who waited for whom, after S seconds (300)\n"
          "  -I, --per_iter_timing N  1 = per-iteration min/max/p99/cv%% in the table, JSON and\n"
          "                         CSV (0)\n"
          "  -K, --per_iter_skip N  leading samples -I's statistics leave out (0)\n"
          "  -D, --device_implementation N  0 only (NCCL's host API); nccl-tests' device-API\n"
          "                         kernels are not carried\n"
          "      --timer T          host: the host clock around the -n launches and a stream\n"
          "                         sync (nccl-tests' method); events: CUDA events on the\n"
          "                         stream (host in stream mode, events with -G or -z 1..3)\n"
          "  -R, --local_register N kernel 0 (nccl) as nccl-tests' -R: 0 plain buffers,\n"
          "                         1 ncclCommRegister, 2 symmetric windows (NCCL >= 2.27) (0)\n"
          "  -x, --cta_policy N     kernel 0's CTA policy: 0 default, 1 efficiency, 2 zero\n"
          "                         (NCCL >= 2.28) (not set)\n"
          "  -J, --output_file F    write every result as one JSON document to F\n"
          "      --csv F            write one CSV row per measurement to F\n"
          "      --stress N         instead of the sweep: N calls per kernel, each a random size\n"
          "                         in -b..-e, type, op and placement, on fresh data, back to\n"
          "                         back with no host wait between them, every one validated\n"
          "  -u, --unalign N        every call's buffers start N elements into them (0)\n"
          "      --data KIND        exact: small integers, every result bit for bit (default);\n"
          "                         random: random values, floating reductions checked against\n"
          "                         a float64 reference within a tolerance\n"
          "      --overlap LOAD     run LOAD on a stream of its own beside every timed call\n"
          "                         and report the call's time with it and the load's rate\n"
          "                         alone and beside the call: gemm (cuBLAS bf16 GEMM), fma\n"
          "                         (FMA-bound kernel), mem (memory-bound kernel), none (none)\n"
          "      --overlap_size N   the load's unit: gemm M=N=K (8192), fma FMAs a thread\n"
          "                         (16K), mem bytes copied (512M)\n"
          "  -k, --kernel K         kernel id or name, a comma list, all, or list (all)\n"
          "      --plugin PATH      load kernels from a plugin, a shared object built against\n"
          "                         collbench's kernel API; repeatable (CB_PLUGINS: more,\n"
          "                         paths separated by colons)\n"
          "  -h, --help             this text\n",
          prog);
}

/* The names of a mask's bits (name(i) for each bit set), a comma list, into buf. */
static const char *mask_names(uint32_t mask, int n, const char *(*name)(int), char *buf,
                              size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; i++)
    if (mask & (1u << i) && at < len)
      at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", name(i));
  return buf;
}
static const char *dtype_name_of(int t) {
  return cb_dtype_name((cb_dtype)t);
}
static const char *redop_name_of(int op) {
  return cb_redop_name((cb_redop)op);
}

void cb_options_canonical(const cb_options *o, char *buf, size_t len) {
  char dtypes[160], ops[64], root[16], cta[16];
  snprintf(root, sizeof root, "%d", o->root);
  snprintf(cta, sizeof cta, "%d", o->cta_policy);
  snprintf(buf, len,
           "-b %llu; -e %llu; -i %llu; -f %llu; -n %d; -w %d; -c %d; -d %s; -o %s; -r %s; -t %d; "
           "-g %d; -G %d; -a %d; -z %d; -T %d; -I %d; -k %s; --stress %d; -u %d; --data %s; "
           "-R %d; -x %s; --timer %s; -m %d; -N %d; -y %d; -C %d; -S %d; -M %d; -K %d; -p %d; "
           "CB_PEER_MAPPING=%s; --all_sizes_warmup %d; --overlap %s; --overlap_size %llu",
           (unsigned long long)o->sweep.min_bytes, (unsigned long long)o->sweep.max_bytes,
           (unsigned long long)o->sweep.step_bytes, (unsigned long long)o->sweep.step_factor,
           o->iters, o->warmup, o->check,
           mask_names(o->dtypes, CB_NUM_DTYPES, dtype_name_of, dtypes, sizeof dtypes),
           mask_names(o->ops, CB_NUM_OPS, redop_name_of, ops, sizeof ops),
           o->root == CB_ROOT_ALL ? "all" : root, o->threads, o->gpus, o->graph_launches,
           o->average, o->blocking, o->timeout_s, o->per_iter, o->kernels, o->stress, o->unalign,
           cb_data_kind_name(o->data), o->local_register,
           o->cta_policy == CB_CTA_POLICY_UNSET ? "unset" : cta,
           o->timer ? cb_timer_name(o->timer) : "default", o->agg_iters, o->run_cycles,
           o->stream_null, o->report_cputime, o->report_timestamps, o->memory_report,
           o->per_iter_skip, o->parallel_init,
           cb_peer_mapping_name((cb_peer_mapping)o->peer_mapping), o->all_sizes_warmup,
           cb_load_name(o->overlap), (unsigned long long)o->overlap_size);
}
