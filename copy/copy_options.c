#define _GNU_SOURCE /* getopt_long */
#include "copy_options.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "load_options.h"
#include "option_parse.h"
#include "post_gap.h"

static const char *const dir_names[CB_NUM_DIRS] = {"h2d", "d2h", "d2d"};

const char *cb_copy_dir_name(cb_copy_dir d) {
  return (unsigned)d < CB_NUM_DIRS ? dir_names[d] : "?";
}

static int dir_parse(const char *name) {
  for (int d = 0; d < CB_NUM_DIRS; d++)
    if (strcasecmp(name, dir_names[d]) == 0) return d;
  return -1;
}

unsigned cb_copy_dir_mask_parse(const char *list, char *bad, size_t bad_len, int *twice) {
  return cb_name_mask_parse(list, dir_parse, CB_ALL_DIRS, bad, bad_len, twice);
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

enum { OPT_PAGEABLE = CB_OPT_CSV + 1, OPT_OSU, OPT_OVERLAP, OPT_OVERLAP_SIZE, OPT_POST_GAP };

static const struct option long_opts[] = {
    CB_COMMON_LONG_OPTS,
    {"ngpus", required_argument, 0, 'g'},
    {"direction", required_argument, 0, 'D'},
    {"window", required_argument, 0, 'W'},
    {"pageable", no_argument, 0, OPT_PAGEABLE},
    {"osu", no_argument, 0, OPT_OSU},
    {"cudagraph", required_argument, 0, 'G'},
    {"overlap", required_argument, 0, OPT_OVERLAP},
    {"overlap_size", required_argument, 0, OPT_OVERLAP_SIZE},
    {"post_gap", required_argument, 0, OPT_POST_GAP},
    {0, 0, 0, 0},
};

static const cb_int_opt int_opts[] = {
    CB_COMMON_INT_OPTS(cb_copy_options),
    {'g', "GPUs per process (-g)", 1, 1024, offsetof(cb_copy_options, gpus)},
    {'W', "window (-W: copies in flight per bandwidth iteration)", 1, CB_COPY_WINDOW_MAX,
     offsetof(cb_copy_options, window)},
    {OPT_POST_GAP, "post gap in ns (--post_gap)", 0, CB_POST_GAP_MAX_NS,
     offsetof(cb_copy_options, post_gap_ns)},
};

/* --overlap and --overlap_size (load_options.h); --osu's layout has no place
 * for the bandwidth beside the load. */
static cb_opts_result overlap_opt(cb_copy_options *o, int kind, const char *arg, char *err,
                                  size_t len) {
  if (kind) return cb_load_option_kind(arg, &o->overlap, err, len) ? CB_OPTS_ERROR : CB_OPTS_RUN;
  if (cb_parse_size(arg, &o->overlap_size) != CB_SIZE_OK || o->overlap_size == 0)
    return cb_opts_fail(
        err, len, "bad --overlap_size '%s': a positive whole number, K, M or G for bytes", arg);
  return CB_OPTS_RUN;
}

static cb_opts_result check_overlap(cb_copy_options *o, char *err, size_t len) {
  if (cb_load_options_check(o->overlap, &o->overlap_size, err, len)) return CB_OPTS_ERROR;
  if (o->overlap != CB_LOAD_NONE && o->osu)
    return cb_opts_fail(err, len,
                        "--overlap cannot be combined with --osu: OSU's layout has no place for "
                        "the copies' bandwidth beside the load (the table, -J and --csv have)");
  return CB_OPTS_RUN;
}

static cb_opts_result check_combinations(cb_copy_options *o, const cb_common_opts *co, int f_given,
                                         int i_given, char *err, size_t len) {
  /* The sweep doubles by default (as osu_bw); -i alone means linear steps,
   * as it does in nccl-tests with its default -f 1. */
  if (i_given && !f_given) o->sweep.step_factor = 1;
  if (i_given && f_given && o->sweep.step_factor > 1)
    return cb_opts_fail(err, len,
                        "-i %llu (linear steps) and -f %llu (geometric steps) contradict: give "
                        "one, or -f 1 with -i",
                        (unsigned long long)o->sweep.step_bytes,
                        (unsigned long long)o->sweep.step_factor);
  if (check_overlap(o, err, len) != CB_OPTS_RUN) return CB_OPTS_ERROR;
  return cb_sweep_check(&o->sweep, co, err, len);
}

cb_opts_result cb_copy_options_parse(int argc, char **argv, cb_copy_options *o, char *err,
                                     size_t len) {
  cb_common_opts co = CB_COMMON_OPTS_OF(o, "copy_perf's options", "1, 64K, 1G", int_opts);
  cb_copy_options_defaults(o);
  cb_common_opts_begin(&co, err);
  int f_given = 0, i_given = 0, c;
  while ((c = getopt_long(argc, argv, ":b:e:i:f:n:w:c:g:T:D:W:J:k:G:h", long_opts, NULL)) != -1) {
    cb_opts_result res;
    char bad[64];
    int twice;
    if (cb_common_opt(&co, c, argv, &res, err, len)) {
      if (res != CB_OPTS_RUN) return res;
      f_given |= c == 'f';
      i_given |= c == 'i';
    } else if (c == 'D') {
      if (!(o->dirs = cb_copy_dir_mask_parse(optarg, bad, sizeof bad, &twice)))
        return twice ? cb_opts_fail(err, len, "bad -D '%s': %s is named twice", optarg, bad)
                     : cb_opts_fail(err, len,
                                    "unknown direction '%s' (-D takes h2d d2h d2d, a comma list, "
                                    "or all)",
                                    bad);
      o->dirs_named = strcasecmp(optarg, "all") != 0;
    } else if (c == OPT_PAGEABLE) {
      o->pageable = 1;
    } else if (c == OPT_OSU) {
      o->osu = 1;
    } else if (c == OPT_OVERLAP || c == OPT_OVERLAP_SIZE) {
      if (overlap_opt(o, c == OPT_OVERLAP, optarg, err, len) != CB_OPTS_RUN) return CB_OPTS_ERROR;
    } else if (c == 'G') {
      /* Named so that a sweep passing -G gets a reason, not "unknown option". */
      return cb_opts_fail(err, len,
                          "-G: copy_perf has no CUDA graph mode: a latency sample is one copy "
                          "and its wait on the host clock, and the gdrcopy and llhost paths are "
                          "CPU-driven");
    }
  }
  cb_opts_result res = cb_common_opts_end(&co, argc, argv, err, len);
  return res != CB_OPTS_RUN ? res : check_combinations(o, &co, f_given, i_given, err, len);
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
          "      --post_gap NS      post each latency copy after a random 0..NS ns wait, outside\n"
          "                         the timing (polling paths: docs/copy_perf.md); 0 = back to\n"
          "                         back, as osu_latency (0)\n"
          "      --pageable         host buffers from malloc instead of pinned cudaHostAlloc\n"
          "      --osu              print osu_bw's and osu_latency's layout instead of the table\n"
          "      --overlap LOAD     time the bandwidth copies again beside LOAD on a stream of\n"
          "                         its own: gemm (cuBLAS bf16 GEMM), fma, mem, none (none)\n"
          "      --overlap_size N   the load's unit: gemm M=N=K (8192), fma FMAs a thread\n"
          "                         (16K), mem bytes copied (512M)\n"
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
  char dirs[32] = "";
  size_t at = 0;
  for (int d = 0; d < CB_NUM_DIRS; d++)
    if (o->dirs & CB_DIR_BIT(d))
      at += (size_t)snprintf(dirs + at, sizeof dirs - at, "%s%s", at ? "," : "",
                             cb_copy_dir_name((cb_copy_dir)d));
  snprintf(buf, len,
           "-b %llu; -e %llu; -i %llu; -f %llu; -n %d; -w %d; -c %d; -g %d; -T %d; -D %s; -W %d; "
           "--post_gap %d; --pageable %s; --osu %s; -k %s; --overlap %s; --overlap_size %llu",
           (unsigned long long)o->sweep.min_bytes, (unsigned long long)o->sweep.max_bytes,
           (unsigned long long)o->sweep.step_bytes, (unsigned long long)o->sweep.step_factor,
           o->iters, o->warmup, o->check, o->gpus, o->timeout_s, dirs, o->window, o->post_gap_ns,
           o->pageable ? "given" : "not given", o->osu ? "given" : "not given", o->kernels,
           cb_load_name(o->overlap), (unsigned long long)o->overlap_size);
}
