#define _GNU_SOURCE /* getopt_long */
#include "copy_options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const dir_names[CB_NUM_DIRS] = {"h2d", "d2h", "d2d"};

const char *cb_copy_dir_name(cb_copy_dir d) {
  return (unsigned)d < CB_NUM_DIRS ? dir_names[d] : "?";
}

unsigned cb_copy_dir_mask_parse(const char *list, char *bad, size_t bad_len) {
  if (strcasecmp(list, "all") == 0) return CB_ALL_DIRS;
  unsigned mask = 0;
  const char *p = list;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    int found = -1;
    for (int d = 0; d < CB_NUM_DIRS; d++)
      if (len == strlen(dir_names[d]) && strncasecmp(p, dir_names[d], len) == 0) found = d;
    if (found < 0) {
      snprintf(bad, bad_len, "%.*s", (int)len, p);
      return 0;
    }
    mask |= CB_DIR_BIT(found);
    if (!comma) return mask;
    p = comma + 1;
  }
}

void cb_copy_options_defaults(cb_copy_options *o) {
  memset(o, 0, sizeof *o);
  /* osu_bw's sweep: 1 B to 4 MiB, doubling. */
  o->sweep.min_bytes = 1;
  o->sweep.max_bytes = 4ull << 20;
  o->sweep.step_factor = 2;
  o->sweep.step_bytes = 1ull << 20;
  o->iters = 20;
  o->warmup = 5;
  o->check = 1;
  o->gpus = 1;
  o->timeout_s = 300;
  o->dirs = CB_ALL_DIRS;
  o->window = CB_COPY_WINDOW_DEFAULT;
  snprintf(o->kernels, sizeof o->kernels, "all");
}

static cb_opts_result fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return CB_OPTS_ERROR;
}

/* A whole decimal integer in [lo, hi]; -1 on anything else. */
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
  size_t n = strlen(src);
  if (n == 0 || n >= len) return -1;
  memcpy(dst, src, n + 1);
  return 0;
}

enum { OPT_CSV = 1000, OPT_PAGEABLE, OPT_OSU };

static const struct option long_opts[] = {
    {"minbytes", required_argument, 0, 'b'},
    {"maxbytes", required_argument, 0, 'e'},
    {"stepbytes", required_argument, 0, 'i'},
    {"stepfactor", required_argument, 0, 'f'},
    {"iters", required_argument, 0, 'n'},
    {"warmup_iters", required_argument, 0, 'w'},
    {"check", required_argument, 0, 'c'},
    {"ngpus", required_argument, 0, 'g'},
    {"timeout", required_argument, 0, 'T'},
    {"direction", required_argument, 0, 'D'},
    {"window", required_argument, 0, 'W'},
    {"pageable", no_argument, 0, OPT_PAGEABLE},
    {"osu", no_argument, 0, OPT_OSU},
    {"output_file", required_argument, 0, 'J'},
    {"csv", required_argument, 0, OPT_CSV},
    {"kernel", required_argument, 0, 'k'},
    {"cudagraph", required_argument, 0, 'G'},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* The option getopt just refused, by its letter or its word. */
static const char *opt_name(char **argv) {
  static _Thread_local char letter[3];
  const char *word = argv[optind - 1];
  if (strncmp(word, "--", 2) != 0 && optopt > 0 && optopt < 128) {
    snprintf(letter, sizeof letter, "-%c", optopt);
    return letter;
  }
  return word;
}

typedef struct {
  int letter;
  const char *what;
  int lo, hi;
  size_t offset;
} int_opt;

static const int_opt int_opts[] = {
    {'n', "iterations (-n)", 1, INT_MAX, offsetof(cb_copy_options, iters)},
    {'w', "warm-up iterations (-w)", 0, INT_MAX, offsetof(cb_copy_options, warmup)},
    {'c', "validation rounds (-c)", 0, 1000, offsetof(cb_copy_options, check)},
    {'g', "GPUs per process (-g)", 1, 1024, offsetof(cb_copy_options, gpus)},
    {'T', "timeout in seconds (-T)", 1, 86400, offsetof(cb_copy_options, timeout_s)},
    {'W', "window (-W: copies in flight per bandwidth iteration)", 1, CB_COPY_WINDOW_MAX,
     offsetof(cb_copy_options, window)},
};

static const int_opt *find_int_opt(int letter) {
  for (size_t i = 0; i < sizeof int_opts / sizeof int_opts[0]; i++)
    if (int_opts[i].letter == letter) return &int_opts[i];
  return NULL;
}

/* -b -e -i are byte counts (K/M/G suffixes), -f a whole factor. */
static cb_opts_result parse_size(int c, const char *arg, cb_copy_options *o, char *err,
                                 size_t len) {
  uint64_t v;
  if (c == 'f') {
    int f;
    if (parse_int(arg, 1, 1 << 20, &f))
      return fail(err, len, "bad -f '%s': expected a whole factor >= 1", arg);
    o->sweep.step_factor = (uint64_t)f;
    return CB_OPTS_RUN;
  }
  if (cb_parse_size(arg, &v) || (c != 'i' && v == 0))
    return fail(err, len, "bad -%c '%s': expected a %s", c, arg,
                c == 'i' ? "byte count such as 1M" : "positive byte count such as 1, 64K, 1G");
  if (c == 'b') o->sweep.min_bytes = v;
  if (c == 'e') o->sweep.max_bytes = v;
  if (c == 'i') o->sweep.step_bytes = v;
  return CB_OPTS_RUN;
}

static cb_opts_result check_combinations(cb_copy_options *o, int f_given, int i_given, char *err,
                                         size_t len) {
  /* The sweep doubles by default (as osu_bw); -i alone means linear steps,
   * as it does in nccl-tests with its default -f 1. */
  if (i_given && !f_given) o->sweep.step_factor = 1;
  if (i_given && f_given && o->sweep.step_factor > 1)
    return fail(err, len,
                "-i %llu (linear steps) and -f %llu (geometric steps) contradict: give one, or "
                "-f 1 with -i",
                (unsigned long long)o->sweep.step_bytes, (unsigned long long)o->sweep.step_factor);
  if (o->sweep.min_bytes > o->sweep.max_bytes)
    return fail(err, len, "-b %llu is larger than -e %llu", (unsigned long long)o->sweep.min_bytes,
                (unsigned long long)o->sweep.max_bytes);
  if (o->sweep.step_factor <= 1 && o->sweep.step_bytes == 0 &&
      o->sweep.min_bytes != o->sweep.max_bytes)
    return fail(err, len, "-f 1 with -i 0: the size sweep would never advance");
  return CB_OPTS_RUN;
}

cb_opts_result cb_copy_options_parse(int argc, char **argv, cb_copy_options *o, char *err,
                                     size_t len) {
  cb_copy_options_defaults(o);
  err[0] = '\0';
  opterr = 0; /* we word the messages ourselves */
  optind = 0; /* full re-initialisation, so parsing can run more than once (tests) */
  int list = 0, f_given = 0, i_given = 0, c;
  while ((c = getopt_long(argc, argv, ":b:e:i:f:n:w:c:g:T:D:W:J:k:G:h", long_opts, NULL)) != -1) {
    const int_opt *io = find_int_opt(c);
    char bad[64];
    if (c == 'h') return CB_OPTS_HELP;
    if (c == '?')
      return fail(err, len, "unknown option '%s' (-h lists copy_perf's options)", opt_name(argv));
    if (c == ':') return fail(err, len, "option '%s' needs a value", opt_name(argv));
    if (io) {
      if (parse_int(optarg, io->lo, io->hi, (int *)((char *)o + io->offset)))
        return fail(err, len, "bad %s: '%s' (expected a whole number from %d to %d)", io->what,
                    optarg, io->lo, io->hi);
    } else if (c == 'b' || c == 'e' || c == 'i' || c == 'f') {
      if (parse_size(c, optarg, o, err, len) != CB_OPTS_RUN) return CB_OPTS_ERROR;
      f_given |= c == 'f';
      i_given |= c == 'i';
    } else if (c == 'D') {
      if (!(o->dirs = cb_copy_dir_mask_parse(optarg, bad, sizeof bad)))
        return fail(err, len, "unknown direction '%s' (-D takes h2d d2h d2d, a comma list, or all)",
                    bad);
      o->dirs_named = strcasecmp(optarg, "all") != 0;
    } else if (c == OPT_PAGEABLE) {
      o->pageable = 1;
    } else if (c == OPT_OSU) {
      o->osu = 1;
    } else if (c == 'G') {
      /* Named so that a sweep passing -G gets a reason, not "unknown option". */
      return fail(err, len,
                  "-G: copy_perf has no CUDA graph mode: a latency sample is one copy and its "
                  "wait on the host clock, and the gdrcopy and llhost paths are CPU-driven");
    } else if (c == 'J' || c == OPT_CSV) {
      char *dst = c == 'J' ? o->json_path : o->csv_path;
      if (copy_arg(dst, CB_PATH_MAX, optarg))
        return fail(err, len, "bad %s path '%s'", c == 'J' ? "-J" : "--csv", optarg);
    } else if (c == 'k') {
      if (copy_arg(o->kernels, sizeof o->kernels, optarg))
        return fail(err, len, "bad -k '%s'", optarg);
      list = strcmp(optarg, "list") == 0;
    }
  }
  if (optind < argc)
    return fail(err, len, "unexpected argument '%s' (-h lists copy_perf's options)", argv[optind]);
  if (list) return CB_OPTS_LIST_KERNELS;
  return check_combinations(o, f_given, i_given, err, len);
}

void cb_copy_options_usage(FILE *out, const char *prog) {
  fprintf(out,
          "usage: %s [options]\n"
          "Host<->device and peer copies, each path timed for latency (one copy, then wait)\n"
          "and bandwidth (a window of copies in flight, then one wait), every byte validated.\n"
          "  -b, --minbytes N       smallest copy in bytes, K/M/G suffixes (1)\n"
          "  -e, --maxbytes N       largest copy (4M)\n"
          "  -f, --stepfactor N     multiply the size by N at each step (2)\n"
          "  -i, --stepbytes N      add N at each step instead (alone or with -f 1)\n"
          "  -n, --iters N          timed iterations per size: latency samples and bandwidth\n"
          "                         windows (20)\n"
          "  -w, --warmup_iters N   warm-up iterations per size (5)\n"
          "  -c, --check N          validation rounds after timing, 0 = off (1)\n"
          "  -D, --direction D      h2d, d2h, d2d (to the peer GPU), a comma list, or all (all)\n"
          "  -W, --window N         copies in flight per bandwidth iteration, as osu_bw (64)\n"
          "      --pageable         host buffers from malloc instead of pinned cudaHostAlloc\n"
          "      --osu              print osu_bw's and osu_latency's layout instead of the table\n"
          "  -g, --ngpus N          GPUs driven by this process; d2d needs 2 (-g 2, or mpirun\n"
          "                         -np 2): rank 0 copies to rank 1, other ranks idle (1)\n"
          "  -T, --timeout S        fail, naming what was waited for, after S seconds (300)\n"
          "  -J, --output_file F    write every result as one JSON document to F\n"
          "      --csv F            write one CSV row per measurement to F\n"
          "  -k, --kernel K         kernel id or name, a comma list, all, or list (all)\n"
          "  -h, --help             this text\n",
          prog);
}

void cb_copy_options_canonical(const cb_copy_options *o, char *buf, size_t len) {
  snprintf(buf, len,
           "b=%llu e=%llu i=%llu f=%llu n=%d w=%d c=%d g=%d T=%d D=%x W=%d pageable=%d osu=%d k=%s",
           (unsigned long long)o->sweep.min_bytes, (unsigned long long)o->sweep.max_bytes,
           (unsigned long long)o->sweep.step_bytes, (unsigned long long)o->sweep.step_factor,
           o->iters, o->warmup, o->check, o->gpus, o->timeout_s, o->dirs, o->window, o->pageable,
           o->osu, o->kernels);
}
