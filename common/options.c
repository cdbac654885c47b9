#define _GNU_SOURCE /* getopt_long */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
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
  snprintf(o->kernels, sizeof o->kernels, "all");
}

static cb_opts_result fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return CB_OPTS_ERROR;
}

/* Parses a whole decimal integer in [lo, hi]; -1 on anything else. */
static int parse_int(const char *text, int lo, int hi, int *out) {
  if (!text || !*text) return -1;
  errno = 0;
  char *end;
  long v = strtol(text, &end, 10);
  if (errno || *end != '\0' || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

static int copy_arg(char *dst, size_t len, const char *src) {
  if (strlen(src) >= len) return -1;
  memcpy(dst, src, strlen(src) + 1);
  return 0;
}

enum { OPT_CSV = 1000, OPT_STRESS };

/* The option getopt just refused: a short one by its letter (it may sit in
 * a group such as -qz, where argv[optind - 1] is not it), a long one by its
 * word. */
static const char *opt_name(char **argv) {
  static _Thread_local char letter[3];
  const char *word = argv[optind - 1];
  if (strncmp(word, "--", 2) != 0 && optopt > 0 && optopt < 128) {
    snprintf(letter, sizeof letter, "-%c", optopt);
    return letter;
  }
  return word;
}

static const struct option long_opts[] = {
    {"minbytes", required_argument, 0, 'b'},
    {"maxbytes", required_argument, 0, 'e'},
    {"stepbytes", required_argument, 0, 'i'},
    {"stepfactor", required_argument, 0, 'f'},
    {"iters", required_argument, 0, 'n'},
    {"warmup_iters", required_argument, 0, 'w'},
    {"check", required_argument, 0, 'c'},
    {"datatype", required_argument, 0, 'd'},
    {"op", required_argument, 0, 'o'},
    {"root", required_argument, 0, 'r'},
    {"nthreads", required_argument, 0, 't'},
    {"ngpus", required_argument, 0, 'g'},
    {"cudagraph", required_argument, 0, 'G'},
    {"average", required_argument, 0, 'a'},
    {"blocking", required_argument, 0, 'z'},
    {"timeout", required_argument, 0, 'T'},
    {"per_iter_timing", required_argument, 0, 'I'},
    {"output_file", required_argument, 0, 'J'},
    {"csv", required_argument, 0, OPT_CSV},
    {"stress", required_argument, 0, OPT_STRESS},
    {"kernel", required_argument, 0, 'k'},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* A numeric option: its letter, where it goes and its range. */
typedef struct {
  int letter;
  const char *what;
  int lo, hi;
  size_t offset;
} int_opt;

static const int_opt int_opts[] = {
    {'n', "iterations (-n)", 1, INT_MAX, offsetof(cb_options, iters)},
    {'w', "warm-up iterations (-w)", 0, INT_MAX, offsetof(cb_options, warmup)},
    {'c', "validation rounds (-c)", 0, 1000, offsetof(cb_options, check)},
    {'r', "root (-r)", 0, INT_MAX, offsetof(cb_options, root)},
    {'t', "threads per process (-t)", 1, 1024, offsetof(cb_options, threads)},
    {'g', "GPUs per thread (-g)", 1, 1024, offsetof(cb_options, gpus)},
    {'G', "CUDA graph launches (-G)", 0, INT_MAX, offsetof(cb_options, graph_launches)},
    {'a', "average mode (-a: 0 rank0, 1 avg, 2 min, 3 max)", 0, 3, offsetof(cb_options, average)},
    {'z', "blocking (-z: 0 or 1)", 0, 1, offsetof(cb_options, blocking)},
    {'T', "timeout in seconds (-T)", 1, 86400, offsetof(cb_options, timeout_s)},
    {'I', "per-iteration statistics (-I: 0 or 1)", 0, 1, offsetof(cb_options, per_iter)},
    {OPT_STRESS, "stress iterations (--stress)", 1, INT_MAX, offsetof(cb_options, stress)},
};

static const int_opt *find_int_opt(int letter) {
  for (size_t i = 0; i < sizeof int_opts / sizeof int_opts[0]; i++)
    if (int_opts[i].letter == letter) return &int_opts[i];
  return NULL;
}

/* Size options: -b -e -i are byte counts, -f a plain factor. */
static int parse_size_opt(int c, const char *arg, cb_options *o) {
  uint64_t v;
  if (c == 'f') {
    int f;
    if (parse_int(arg, 1, 1 << 20, &f)) return -1;
    o->sweep.step_factor = (uint64_t)f;
    return 0;
  }
  if (cb_parse_size(arg, &v)) return -1;
  if (c == 'i') {
    o->sweep.step_bytes = v;
    return 0;
  }
  if (v == 0) return -1;
  if (c == 'b') o->sweep.min_bytes = v;
  if (c == 'e') o->sweep.max_bytes = v;
  return 0;
}

static cb_opts_result check_combinations(const cb_options *o, char *err, size_t len) {
  if (o->sweep.min_bytes > o->sweep.max_bytes)
    return fail(err, len, "-b %llu is larger than -e %llu", (unsigned long long)o->sweep.min_bytes,
                (unsigned long long)o->sweep.max_bytes);
  if (o->sweep.step_factor <= 1 && o->sweep.step_bytes == 0 &&
      o->sweep.min_bytes != o->sweep.max_bytes)
    return fail(err, len, "-f 1 with -i 0: the size sweep would never advance");
  if (o->graph_launches > 0 && o->blocking)
    return fail(err, len,
                "-G (CUDA graph) cannot be combined with -z 1 (blocking): a graph "
                "runs its iterations without the host in between");
  return CB_OPTS_RUN;
}

cb_opts_result cb_options_parse(int argc, char **argv, cb_options *o, char *err, size_t len) {
  cb_options_defaults(o);
  err[0] = '\0';
  opterr = 0; /* we word the messages ourselves */
  optind = 0; /* full re-initialisation, so parsing can run more than once (tests) */
  int list = 0, c;
  while ((c = getopt_long(argc, argv, ":b:e:i:f:n:w:c:d:o:r:t:g:G:a:z:T:I:J:k:h", long_opts,
                          NULL)) != -1) {
    const int_opt *io = find_int_opt(c);
    char bad[64];
    if (c == 'h') return CB_OPTS_HELP;
    if (c == '?')
      return fail(err, len, "unknown option '%s' (-h lists the options)", opt_name(argv));
    if (c == ':') return fail(err, len, "option '%s' needs a value", opt_name(argv));
    if (io) {
      if (parse_int(optarg, io->lo, io->hi, (int *)((char *)o + io->offset)))
        return fail(err, len, "bad %s: '%s' (expected a whole number from %d to %d)", io->what,
                    optarg, io->lo, io->hi);
    } else if (c == 'b' || c == 'e' || c == 'i' || c == 'f') {
      if (parse_size_opt(c, optarg, o))
        return fail(err, len, "bad -%c '%s': expected a %s", c, optarg,
                    c == 'f'   ? "whole factor >= 1"
                    : c == 'i' ? "byte count such as 1M"
                               : "positive byte count such as 8, 64K, 1G");
    } else if (c == 'd') {
      if (!(o->dtypes = cb_dtype_mask_parse(optarg, bad, sizeof bad)))
        return fail(err, len,
                    "unknown datatype '%s' (-d takes int8 uint8 int32 uint32 int64 "
                    "uint64 half float double bfloat16, a comma list, or all)",
                    bad);
    } else if (c == 'o') {
      if (!(o->ops = cb_redop_mask_parse(optarg, bad, sizeof bad)))
        return fail(err, len,
                    "unknown op '%s' (-o takes sum prod min max avg, a comma list, "
                    "or all)",
                    bad);
    } else if (c == 'J' || c == OPT_CSV) {
      char *dst = c == 'J' ? o->json_path : o->csv_path;
      if (!*optarg || copy_arg(dst, CB_PATH_MAX, optarg))
        return fail(err, len, "bad %s path '%s'", c == 'J' ? "-J" : "--csv", optarg);
    } else if (c == 'k') {
      if (!*optarg || copy_arg(o->kernels, sizeof o->kernels, optarg))
        return fail(err, len, "bad -k '%s'", optarg);
      list = strcmp(optarg, "list") == 0;
    }
  }
  if (optind < argc)
    return fail(err, len, "unexpected argument '%s' (-h lists the options)", argv[optind]);
  if (list) return CB_OPTS_LIST_KERNELS;
  return check_combinations(o, err, len);
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
          "                         bfloat16, a comma list, or all (float)\n"
          "  -o, --op OP            sum prod min max avg, a comma list, or all (sum)\n"
          "  -r, --root N           root rank of rooted collectives (0)\n"
          "  -t, --nthreads N       host threads per process (1)\n"
          "  -g, --ngpus N          GPUs per thread; every GPU gets its own host thread (1)\n"
          "  -G, --cudagraph N      capture the -n iterations in a CUDA graph, launch it N times\n"
          "                         (0 = stream mode)\n"
          "  -a, --average N        time across ranks: 0 rank 0, 1 mean, 2 min, 3 max (1)\n"
          "  -z, --blocking N       1 = wait for each iteration before the next (0)\n"
          "  -T, --timeout S        fail, naming who waited for whom, after S seconds (300)\n"
          "  -I, --per_iter_timing N  1 = per-iteration min/p50/p99/max/cv%% in JSON and CSV (0)\n"
          "  -J, --output_file F    write every result as one JSON document to F\n"
          "      --csv F            write one CSV row per measurement to F\n"
          "      --stress N         instead of the sweep: N calls per kernel, each a random size\n"
          "                         in -b..-e, type, op and placement, launched 1-4 times back to\n"
          "                         back, every one validated\n"
          "  -k, --kernel K         kernel id or name, a comma list, all, or list (all)\n"
          "  -h, --help             this text\n",
          prog);
}

long cb_env_long(const char *name, long fallback, long lo, long hi) {
  const char *v = getenv(name);
  if (!v) return fallback;
  errno = 0;
  char *end;
  long x = strtol(v, &end, 10);
  if (errno || !*v || *end || x < lo || x > hi)
    cb_fatal("%s=%s: expected a whole number from %ld to %ld", name, v, lo, hi);
  return x;
}

void cb_options_canonical(const cb_options *o, char *buf, size_t len) {
  snprintf(buf, len,
           "b=%llu e=%llu i=%llu f=%llu n=%d w=%d c=%d d=%x o=%x r=%d t=%d g=%d G=%d a=%d z=%d "
           "T=%d I=%d k=%s stress=%d",
           (unsigned long long)o->sweep.min_bytes, (unsigned long long)o->sweep.max_bytes,
           (unsigned long long)o->sweep.step_bytes, (unsigned long long)o->sweep.step_factor,
           o->iters, o->warmup, o->check, o->dtypes, o->ops, o->root, o->threads, o->gpus,
           o->graph_launches, o->average, o->blocking, o->timeout_s, o->per_iter, o->kernels,
           o->stress);
}
