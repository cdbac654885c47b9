#define _GNU_SOURCE /* getopt_long */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "option_parse.h"
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
  o->check = 1;
  o->dtypes = CB_DTYPE_BIT(CB_FLOAT);
  o->ops = CB_OP_BIT(CB_SUM);
  o->threads = 1;
  o->gpus = 1;
  o->average = CB_AVG_MEAN;
  o->timeout_s = 300;
  o->cta_policy = CB_CTA_POLICY_UNSET;
  snprintf(o->kernels, sizeof o->kernels, "all");
}

enum { OPT_STRESS = CB_OPT_CSV + 1, OPT_DATA, OPT_TIMER };

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
    {0, 0, 0, 0},
};

static const cb_int_opt int_opts[] = {
    CB_COMMON_INT_OPTS(cb_options),
    {'r', "root (-r)", 0, INT_MAX, offsetof(cb_options, root)},
    {'t', "threads per process (-t)", 1, 1024, offsetof(cb_options, threads)},
    {'g', "GPUs per thread (-g)", 1, 1024, offsetof(cb_options, gpus)},
    {'G', "CUDA graph launches (-G)", 0, INT_MAX, offsetof(cb_options, graph_launches)},
    {'a', "average mode (-a: 0 rank0, 1 avg, 2 min, 3 max)", 0, 3, offsetof(cb_options, average)},
    {'z', "blocking (-z: 0 or 1)", 0, 1, offsetof(cb_options, blocking)},
    {'I', "per-iteration statistics (-I: 0 or 1)", 0, 1, offsetof(cb_options, per_iter)},
    {OPT_STRESS, "stress iterations (--stress)", 1, INT_MAX, offsetof(cb_options, stress)},
    {'u', "unalign (-u: elements the buffers start in)", 0, 1 << 20, offsetof(cb_options, unalign)},
    {'R', "registration (-R: 0 none, 1 ncclCommRegister, 2 symmetric windows)", 0, 2,
     offsetof(cb_options, local_register)},
    {'x', "CTA policy (-x: 0 default, 1 efficiency, 2 zero)", 0, 2,
     offsetof(cb_options, cta_policy)},
};

static cb_opts_result check_combinations(cb_options *o, char *err, size_t len) {
  if (cb_sweep_check(&o->sweep, err, len) != CB_OPTS_RUN) return CB_OPTS_ERROR;
  if (o->graph_launches > 0 && o->blocking)
    return cb_opts_fail(err, len,
                        "-G (CUDA graph) cannot be combined with -z 1 (blocking): a graph "
                        "runs its iterations without the host in between");
  /* The default timer depends on the mode, whatever order the options came in. */
  if (!o->timer) o->timer = o->graph_launches > 0 || o->blocking ? CB_TIMER_EVENTS : CB_TIMER_HOST;
  return CB_OPTS_RUN;
}

cb_opts_result cb_options_parse(int argc, char **argv, cb_options *o, char *err, size_t len) {
  cb_common_opts co = CB_COMMON_OPTS_OF(o, "the options", "8, 64K, 1G", int_opts);
  cb_options_defaults(o);
  cb_common_opts_begin(&co, err);
  int c;
  while ((c = getopt_long(argc, argv, ":b:e:i:f:n:w:c:d:o:r:t:g:G:a:z:T:I:J:k:u:R:x:h", long_opts,
                          NULL)) != -1) {
    cb_opts_result res;
    char bad[64];
    if (c == 'r' && (strcmp(optarg, "all") == 0 || strcmp(optarg, "-1") == 0)) {
      o->root = CB_ROOT_ALL; /* nccl-tests' README says "all", its parser takes -1 */
    } else if (cb_common_opt(&co, c, argv, &res, err, len)) {
      if (res != CB_OPTS_RUN) return res;
    } else if (c == 'd') {
      char names[160];
      if (!(o->dtypes = cb_dtype_mask_parse(optarg, bad, sizeof bad)))
        return cb_opts_fail(err, len, "unknown datatype '%s' (-d takes %s, a comma list, or all)",
                            bad, cb_dtype_names(names, sizeof names));
    } else if (c == 'o') {
      char names[80];
      if (!(o->ops = cb_redop_mask_parse(optarg, bad, sizeof bad)))
        return cb_opts_fail(err, len, "unknown op '%s' (-o takes %s, a comma list, or all)", bad,
                            cb_redop_names(names, sizeof names));
    } else if (c == OPT_DATA) {
      int kind = cb_data_kind_parse(optarg);
      if (kind < 0)
        return cb_opts_fail(err, len, "unknown --data '%s' (it takes exact or random)", optarg);
      o->data = (cb_data_kind)kind;
    } else if (c == OPT_TIMER) {
      if (strcmp(optarg, "host") == 0)
        o->timer = CB_TIMER_HOST;
      else if (strcmp(optarg, "events") == 0)
        o->timer = CB_TIMER_EVENTS;
      else
        return cb_opts_fail(err, len, "unknown timer '%s' (--timer takes host or events)", optarg);
    }
  }
  cb_opts_result res = cb_common_opts_end(&co, argc, argv, err, len);
  return res != CB_OPTS_RUN ? res : check_combinations(o, err, len);
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
          "  -z, --blocking N       1 = wait for each iteration before the next (0)\n"
          "  -T, --timeout S        fail, naming who waited for whom, after S seconds (300)\n"
          "  -I, --per_iter_timing N  1 = per-iteration min/p50/p99/max/cv%% in JSON and CSV (0)\n"
          "      --timer T          host: the host clock around the -n launches and a stream\n"
          "                         sync (nccl-tests' method); events: CUDA events on the\n"
          "                         stream (host in stream mode, events with -G or -z 1)\n"
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
          "  -k, --kernel K         kernel id or name, a comma list, all, or list (all)\n"
          "  -h, --help             this text\n",
          prog);
}

void cb_options_canonical(const cb_options *o, char *buf, size_t len) {
  snprintf(buf, len,
           "b=%llu e=%llu i=%llu f=%llu n=%d w=%d c=%d d=%x o=%x r=%d t=%d g=%d G=%d a=%d z=%d "
           "T=%d I=%d k=%s stress=%d u=%d data=%s R=%d x=%d timer=%d",
           (unsigned long long)o->sweep.min_bytes, (unsigned long long)o->sweep.max_bytes,
           (unsigned long long)o->sweep.step_bytes, (unsigned long long)o->sweep.step_factor,
           o->iters, o->warmup, o->check, o->dtypes, o->ops, o->root, o->threads, o->gpus,
           o->graph_launches, o->average, o->blocking, o->timeout_s, o->per_iter, o->kernels,
           o->stress, o->unalign, cb_data_kind_name(o->data), o->local_register, o->cta_policy,
           o->timer);
}
