/* cb_options_parse, cb_options_defaults, cb_options_canonical. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "load_options.h"
#include "options.h"
#include "opts_check.h"
#include "types.h"

static char err[512];

/* Parses a command line given as one string of blank-separated words
 * (the program name is added in front). */
static cb_opts_result parse(const char *line, cb_options *o) {
  char *argv[64];
  int argc = opts_argv("prog", line, argv, 64);
  memset(err, 0, sizeof err);
  return cb_options_parse(argc, argv, o, err, sizeof err);
}

/* Parses argv given word by word (for values with blanks or empty ones). */
static cb_opts_result parse_argv(int argc, char **argv, cb_options *o) {
  memset(err, 0, sizeof err);
  return cb_options_parse(argc, argv, o, err, sizeof err);
}

#define CHECK_RUN(line, o)                                                                         \
  CHECKF(parse(line, o) == CB_OPTS_RUN, "'%s' should parse, got error '%s'", line, err)

/* A bad command line: CB_OPTS_ERROR with a message that names the problem. */
static void check_error(const char *line, const char *mention) {
  cb_options o;
  cb_opts_result r = parse(line, &o);
  check_refused(line, r, err, mention);
}

static void test_defaults(void) {
  cb_options o;
  memset(&o, 0x5a, sizeof o);
  cb_options_defaults(&o);
  CHECK_EQ_U64(o.sweep.min_bytes, 32ull << 20);
  CHECK_EQ_U64(o.sweep.max_bytes, 32ull << 20);
  CHECK_EQ_U64(o.sweep.step_factor, 1);
  CHECK_EQ_U64(o.sweep.step_bytes, 1ull << 20);
  CHECK_EQ_INT(o.iters, 20);
  CHECK_EQ_INT(o.warmup, 5);
  CHECK_EQ_INT(o.all_sizes_warmup, 1); /* nccl-tests' warm-up of every size, first */
  CHECK_EQ_INT(o.check, 1);
  CHECK_EQ_U64(o.dtypes, CB_DTYPE_BIT(CB_FLOAT));
  CHECK_EQ_U64(o.ops, CB_OP_BIT(CB_SUM));
  CHECK_EQ_INT(o.root, 0);
  CHECK_EQ_INT(o.threads, 1);
  CHECK_EQ_INT(o.gpus, 1);
  CHECK_EQ_INT(o.graph_launches, 0);
  CHECK_EQ_INT(o.average, CB_AVG_MEAN);
  CHECK_EQ_INT(o.blocking, 0);
  CHECK_EQ_INT(o.timeout_s, 300);
  CHECK_EQ_INT(o.per_iter, 0);
  CHECK_STR(o.kernels, "all");
  CHECK_EQ_INT(o.local_register, 0);
  CHECK_EQ_INT(o.cta_policy, CB_CTA_POLICY_UNSET);
  /* nccl-tests' defaults of its other options (docs/options.md's table of
   * differences lists where collbench's differ: -w, -T, -k, the timer). */
  CHECK_EQ_INT(o.agg_iters, 1);
  CHECK_EQ_INT(o.run_cycles, 1);
  CHECK_EQ_INT(o.parallel_init, 0);
  CHECK_EQ_INT(o.blocking, CB_BLOCK_NONE);
  CHECK_EQ_INT(o.stream_null, 0);
  CHECK_EQ_INT(o.report_cputime, 0);
  CHECK_EQ_INT(o.report_timestamps, 0);
  CHECK_EQ_INT(o.memory_report, 0);
  CHECK_EQ_INT(o.per_iter_skip, 0);
  CHECK_STR(o.json_path, "");
  CHECK_STR(o.csv_path, "");
  CHECK_EQ_INT(cb_options_ranks_per_proc(&o), 1);

  /* An empty command line is the defaults. */
  cb_options p;
  CHECK_RUN("", &p);
  CHECK(memcmp(&o.sweep, &p.sweep, sizeof o.sweep) == 0);
  CHECK_EQ_INT(p.iters, 20);
  CHECK_EQ_INT(p.timer, CB_TIMER_HOST); /* stream mode: nccl-tests' clock */
}

/* nccl-tests' -R and -x (kernel 0's registration and CTA policy) and the
 * timer, whose default follows the mode whatever the order of the options. */
static void test_nccl_flags_and_timer(void) {
  cb_options o;
  for (int r = 0; r <= 2; r++) {
    char line[32];
    snprintf(line, sizeof line, "-R %d", r);
    CHECK_RUN(line, &o);
    CHECK_EQ_INT(o.local_register, r);
    CHECK_EQ_INT(o.cta_policy, CB_CTA_POLICY_UNSET);
    snprintf(line, sizeof line, "-x %d", r);
    CHECK_RUN(line, &o);
    CHECK_EQ_INT(o.cta_policy, r);
    CHECK_EQ_INT(o.local_register, 0);
  }
  CHECK_RUN("--local_register 2 --cta_policy=2", &o);
  CHECK_EQ_INT(o.local_register, 2);
  CHECK_EQ_INT(o.cta_policy, 2);
  CHECK_RUN("-R2 -x1", &o);
  CHECK_EQ_INT(o.local_register, 2);
  CHECK_EQ_INT(o.cta_policy, 1);

  static const struct {
    const char *line;
    int timer;
  } timers[] = {
      {"", CB_TIMER_HOST},
      {"--timer host", CB_TIMER_HOST},
      {"--timer events", CB_TIMER_EVENTS},
      {"--timer=events", CB_TIMER_EVENTS},
      {"-G 5", CB_TIMER_EVENTS},
      {"-G 5 --timer host", CB_TIMER_HOST},
      {"--timer host -G 5", CB_TIMER_HOST},
      {"-G 0", CB_TIMER_HOST},
      {"-z 1", CB_TIMER_EVENTS},
      {"--timer host -z 1", CB_TIMER_HOST},
      {"--timer events -G 0", CB_TIMER_EVENTS},
  };
  for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
    CHECK_RUN(timers[i].line, &o);
    CHECKF(o.timer == timers[i].timer, "'%s': timer %s, expected %s", timers[i].line,
           cb_timer_name(o.timer), cb_timer_name(timers[i].timer));
  }
  CHECK_STR(cb_timer_name(CB_TIMER_HOST), "host");
  CHECK_STR(cb_timer_name(CB_TIMER_EVENTS), "events");

  check_error("-R 3", "-R");
  check_error("-R -1", "-R");
  check_error("-R two", "two");
  check_error("-R", "-R");
  check_error("-x 3", "-x");
  check_error("-x -1", "-x");
  check_error("--cta_policy 9", "-x");
  check_error("--local_register 5", "-R");
  check_error("--timer clock", "clock");
  check_error("--timer", "--timer");
  check_error("--timer Hst", "Hst");
}

/* --all_sizes_warmup 0|1: nccl-tests' warm-up of every size before the
 * first is timed, on by default. A long option only: nccl-tests has no such
 * flag, and no letter of its own is taken for one. Its name shares no
 * prefix with nccl-tests' names, so their abbreviations (getopt_long takes
 * any unambiguous one, as nccl-tests' parser does) keep their meaning:
 * --warmup is still -w. */
static void test_all_sizes_warmup(void) {
  cb_options o;
  CHECK_RUN("--all_sizes_warmup 0", &o);
  CHECK_EQ_INT(o.all_sizes_warmup, 0);
  CHECK_EQ_INT(o.warmup, 5); /* -w is its own */
  CHECK_RUN("--all_sizes_warmup=1", &o);
  CHECK_EQ_INT(o.all_sizes_warmup, 1);
  CHECK_RUN("-w 3 --all_sizes_warmup 0 -w 0", &o);
  CHECK_EQ_INT(o.all_sizes_warmup, 0);
  CHECK_EQ_INT(o.warmup, 0);
  CHECK_RUN("--all_sizes_warmup 0 --all_sizes_warmup 1", &o); /* the last one counts */
  CHECK_EQ_INT(o.all_sizes_warmup, 1);
  /* Taken with the stress mode, which warms up nothing, and with -G, -z and -N. */
  CHECK_RUN("--stress 5 --all_sizes_warmup 0", &o);
  CHECK_RUN("-G 5 --all_sizes_warmup 1 -z 0 -N 3", &o);
  CHECK_EQ_INT(o.all_sizes_warmup, 1);
  /* nccl-tests' abbreviations of --warmup_iters still mean -w. */
  CHECK_RUN("--warmup 3", &o);
  CHECK_EQ_INT(o.warmup, 3);
  CHECK_EQ_INT(o.all_sizes_warmup, 1);
  CHECK_RUN("--warmup_ 4", &o);
  CHECK_EQ_INT(o.warmup, 4);
  CHECK_RUN("--all_sizes 0", &o);
  CHECK_EQ_INT(o.all_sizes_warmup, 0);
  check_error("--all_sizes_warmup 2", "--all_sizes_warmup");
  check_error("--all_sizes_warmup -1", "--all_sizes_warmup");
  check_error("--all_sizes_warmup yes", "yes");
  check_error("--all_sizes_warmup", "--all_sizes_warmup");
  check_error("--warmup_sizes 0", "--warmup_sizes");
  /* -h lists it with no letter. */
  FILE *f = check_tmpfile();
  cb_options_usage(f, "all_reduce_perf");
  char *text = check_slurp(f);
  fclose(f);
  CHECK_CONTAINS(text, "\n      --all_sizes_warmup N  ");
  free(text);
}

static void test_valid_short(void) {
  cb_options o;
  CHECK_RUN("-b 8 -e 1G -f 2", &o);
  CHECK_EQ_U64(o.sweep.min_bytes, 8);
  CHECK_EQ_U64(o.sweep.max_bytes, 1ull << 30);
  CHECK_EQ_U64(o.sweep.step_factor, 2);

  CHECK_RUN("-b 1K -e 64k -i 512", &o);
  CHECK_EQ_U64(o.sweep.min_bytes, 1024);
  CHECK_EQ_U64(o.sweep.max_bytes, 65536);
  CHECK_EQ_U64(o.sweep.step_bytes, 512);
  CHECK_EQ_U64(o.sweep.step_factor, 1);

  CHECK_RUN("-b 1M -e 2G", &o);
  CHECK_EQ_U64(o.sweep.min_bytes, 1ull << 20);
  CHECK_EQ_U64(o.sweep.max_bytes, 2ull << 30);

  /* Values glued to the letter, as getopt allows. */
  CHECK_RUN("-b64 -e128 -f4", &o);
  CHECK_EQ_U64(o.sweep.min_bytes, 64);
  CHECK_EQ_U64(o.sweep.max_bytes, 128);
  CHECK_EQ_U64(o.sweep.step_factor, 4);

  CHECK_RUN("-n 7 -w 0 -c 0 -r 3 -t 2 -g 4", &o);
  CHECK_EQ_INT(o.iters, 7);
  CHECK_EQ_INT(o.warmup, 0);
  CHECK_EQ_INT(o.check, 0);
  CHECK_EQ_INT(o.root, 3);
  CHECK_EQ_INT(o.threads, 2);
  CHECK_EQ_INT(o.gpus, 4);
  CHECK_EQ_INT(cb_options_ranks_per_proc(&o), 8);

  CHECK_RUN("-G 10 -a 0 -z 0 -T 60 -I 1", &o);
  CHECK_EQ_INT(o.graph_launches, 10);
  CHECK_EQ_INT(o.average, CB_AVG_RANK0);
  CHECK_EQ_INT(o.blocking, 0);
  CHECK_EQ_INT(o.timeout_s, 60);
  CHECK_EQ_INT(o.per_iter, 1);

  for (int a = 0; a <= 3; a++) {
    char line[32];
    snprintf(line, sizeof line, "-a %d", a);
    CHECK_RUN(line, &o);
    CHECK_EQ_INT(o.average, a);
  }
  CHECK_RUN("-z 1", &o);
  CHECK_EQ_INT(o.blocking, 1);
  CHECK_RUN("-c 1000", &o);
  CHECK_EQ_INT(o.check, 1000);

  CHECK_RUN("-J /tmp/out.json --csv /tmp/out.csv", &o);
  CHECK_STR(o.json_path, "/tmp/out.json");
  CHECK_STR(o.csv_path, "/tmp/out.csv");

  CHECK_RUN("-k 1", &o);
  CHECK_STR(o.kernels, "1");
  CHECK_RUN("-k nccl,ring", &o);
  CHECK_STR(o.kernels, "nccl,ring");
}

static void test_valid_long(void) {
  cb_options o;
  CHECK_RUN("--minbytes 16 --maxbytes=4M --stepfactor 8", &o);
  CHECK_EQ_U64(o.sweep.min_bytes, 16);
  CHECK_EQ_U64(o.sweep.max_bytes, 4ull << 20);
  CHECK_EQ_U64(o.sweep.step_factor, 8);
  CHECK_RUN("--minbytes=1M --maxbytes=3M --stepbytes=1M", &o);
  CHECK_EQ_U64(o.sweep.step_bytes, 1ull << 20);
  CHECK_RUN("--iters 3 --warmup_iters 2 --check 4 --root 1 --nthreads 2 --ngpus 3", &o);
  CHECK_EQ_INT(o.iters, 3);
  CHECK_EQ_INT(o.warmup, 2);
  CHECK_EQ_INT(o.check, 4);
  CHECK_EQ_INT(o.root, 1);
  CHECK_EQ_INT(o.threads, 2);
  CHECK_EQ_INT(o.gpus, 3);
  CHECK_RUN("--cudagraph 5 --average 3 --timeout 9 --per_iter_timing 1", &o);
  CHECK_EQ_INT(o.graph_launches, 5);
  CHECK_EQ_INT(o.average, CB_AVG_MAX);
  CHECK_EQ_INT(o.timeout_s, 9);
  CHECK_EQ_INT(o.per_iter, 1);
  CHECK_RUN("--blocking 1", &o);
  CHECK_EQ_INT(o.blocking, 1);
  CHECK_RUN("--datatype double --op min --kernel 2", &o);
  CHECK_EQ_U64(o.dtypes, CB_DTYPE_BIT(CB_DOUBLE));
  CHECK_EQ_U64(o.ops, CB_OP_BIT(CB_MIN));
  CHECK_STR(o.kernels, "2");
  CHECK_RUN("--output_file a.json --csv=b.csv", &o);
  CHECK_STR(o.json_path, "a.json");
  CHECK_STR(o.csv_path, "b.csv");
  CHECK(parse("--help", &o) == CB_OPTS_HELP);
}

static void test_dtypes_and_ops(void) {
  cb_options o;
  CHECK_RUN("-d all", &o);
  CHECK_EQ_U64(o.dtypes, CB_ALL_DTYPES);
  CHECK_RUN("-d ALL", &o);
  CHECK_EQ_U64(o.dtypes, CB_ALL_DTYPES);
  CHECK_RUN("-d float,bf16,int8", &o);
  CHECK_EQ_U64(o.dtypes,
               CB_DTYPE_BIT(CB_FLOAT) | CB_DTYPE_BIT(CB_BFLOAT16) | CB_DTYPE_BIT(CB_INT8));
  CHECK_RUN("-d half,double", &o);
  CHECK_EQ_U64(o.dtypes, CB_DTYPE_BIT(CB_HALF) | CB_DTYPE_BIT(CB_DOUBLE));

  /* Every canonical name, and the aliases of nccl-tests. */
  static const struct {
    const char *name;
    cb_dtype t;
  } names[] = {
      {"int8", CB_INT8},         {"uint8", CB_UINT8},   {"int32", CB_INT32},
      {"uint32", CB_UINT32},     {"int64", CB_INT64},   {"uint64", CB_UINT64},
      {"half", CB_HALF},         {"float", CB_FLOAT},   {"double", CB_DOUBLE},
      {"bfloat16", CB_BFLOAT16}, {"bf16", CB_BFLOAT16}, {"bfloat", CB_BFLOAT16},
      {"fp16", CB_HALF},         {"float16", CB_HALF},  {"fp32", CB_FLOAT},
      {"float32", CB_FLOAT},     {"fp64", CB_DOUBLE},   {"float64", CB_DOUBLE},
      {"char", CB_INT8},         {"int", CB_INT32},     {"uint", CB_UINT32},
      {"BF16", CB_BFLOAT16},     {"f8e4m3", CB_F8E4M3}, {"f8e5m2", CB_F8E5M2},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char line[64];
    snprintf(line, sizeof line, "-d %s", names[i].name);
    CHECK_RUN(line, &o);
    CHECKF(o.dtypes == CB_DTYPE_BIT(names[i].t), "-d %s gave mask %#x, expected %#x", names[i].name,
           o.dtypes, CB_DTYPE_BIT(names[i].t));
  }

  CHECK_RUN("-o all", &o);
  CHECK_EQ_U64(o.ops, CB_ALL_OPS);
  CHECK_RUN("-o sum,prod,min,max,avg,mulsum", &o);
  CHECK_EQ_U64(o.ops, CB_ALL_OPS);
  CHECK_RUN("-o mulsum", &o);
  CHECK_EQ_U64(o.ops, CB_OP_BIT(CB_MULSUM));
  CHECK_RUN("-d f8e4m3,f8e5m2", &o);
  CHECK_EQ_U64(o.dtypes, CB_DTYPE_BIT(CB_F8E4M3) | CB_DTYPE_BIT(CB_F8E5M2));
  CHECK_RUN("-o max", &o);
  CHECK_EQ_U64(o.ops, CB_OP_BIT(CB_MAX));
  CHECK_RUN("-o prod,avg", &o);
  CHECK_EQ_U64(o.ops, CB_OP_BIT(CB_PROD) | CB_OP_BIT(CB_AVG));
}

static void test_help_and_list(void) {
  cb_options o;
  CHECK(parse("-h", &o) == CB_OPTS_HELP);
  CHECK(parse("-n 5 -h", &o) == CB_OPTS_HELP);
  CHECK(parse("-k list", &o) == CB_OPTS_LIST_KERNELS);
  CHECK(parse("-b 8 -e 64 -k list", &o) == CB_OPTS_LIST_KERNELS);
  CHECK(parse("--kernel list", &o) == CB_OPTS_LIST_KERNELS);
  /* A later -k replaces "list". */
  CHECK(parse("-k list -k 0", &o) == CB_OPTS_RUN);
  CHECK_STR(o.kernels, "0");
}

/* The same refusal, word for word. */
static void check_error_is(const char *line, const char *expected) {
  cb_options o;
  cb_opts_result r = parse(line, &o);
  check_refused_with(line, r, err, expected);
}

/* One spelling, one rule (docs/options.md, Case and units). */
static void test_one_spelling(void) {
  /* Names in any case, as -d and -o always took them (docs/options.md, Case and units). */
  cb_options o;
  CHECK_RUN("--timer HOST --data RANDOM --overlap FMA -r ALL -d FLOAT,Half -o SUM", &o);
  CHECK(o.timer == CB_TIMER_HOST && o.data == CB_DATA_RANDOM && o.root == CB_ROOT_ALL);
  CHECK(o.dtypes == ((1u << CB_FLOAT) | (1u << CB_HALF)) && o.ops == 1u << CB_SUM);
  /* A name twice in one list is refused, not merged. */
  check_error_is("-d float,FLOAT", "bad -d 'float,FLOAT': FLOAT is named twice");
  check_error_is("-o sum,max,sum", "bad -o 'sum,max,sum': sum is named twice");
  /* -T 0 (nccl-tests: no timeout) says why it cannot be had. */
  check_error_is("-T 0", "bad timeout in seconds (-T): '0' (expected a whole number from 1 to "
                         "86400: nccl-tests' -T 0 turns its timeout off, but here every wait is "
                         "bounded, so that a lost peer ends the run naming it instead of hanging)");
}

/* -k's shape, refused while parsing (before any GPU work), and -b/-e named
 * as the defaults they were left at. */
static void test_kernel_shape_and_sweep_defaults(void) {
  check_error_is("-k all,1", "bad -k 'all,1': all (every kernel) cannot be combined with other "
                             "kernels: give -k all alone, or a comma list of ids and names");
  check_error("-k 1,all", "all (every kernel) cannot be combined");
  check_error("-k ring,all,ll", "cannot be combined");
  check_error_is("-k list,1", "bad -k 'list,1': list (print the kernels, run none) cannot be "
                              "combined with kernels: give -k list alone");
  check_error("-k 2,list", "give -k list alone");
  check_error("-k 1,,2", "bad -k '1,,2': expected kernel ids or names");
  check_error("-k ,", "bad -k");
  cb_options o;
  CHECK_RUN("-k all", &o);
  CHECK_RUN("-k 1,ll,ring", &o);
  CHECK_STR(o.kernels, "1,ll,ring");
  CHECK(parse("-k list", &o) == CB_OPTS_LIST_KERNELS);

  check_error_is("-b 4.5G", "-b 4831838208 is larger than -e 33554432: -e was left at its "
                            "default, 32 MiB (give -e too)");
  check_error_is("-e 1K", "-e 1024 is smaller than -b 33554432: -b was left at its default, 32 "
                          "MiB (give -b too)");
  check_error_is("-b 64 -e 32", "-b 64 is larger than -e 32");
  check_error_is("-e 32 -b 64", "-b 64 is larger than -e 32");
  /* Typed as its default value is still typed. */
  check_error_is("-b 64M -e 32M", "-b 67108864 is larger than -e 33554432");
  /* A second parse does not remember the first one's -e. */
  CHECK_RUN("-b 8 -e 64M", &o);
  check_error("-b 64M", "-e was left at its default");
}

static void test_errors(void) {
  /* Sweep bounds. */
  check_error("-b 2G -e 1G", "-b");
  check_error("-b 64 -e 32", "larger");
  check_error("-b 0", "-b");
  check_error("-e 0", "-e");
  check_error("-b -8", "-b");
  check_error("-b 12X", "12X");
  check_error("-b K", "-b");
  check_error("-b 1.3K", "whole number of bytes");
  check_error("-e 0.1M", "-e '0.1M'");
  check_error("-b 1.5", "-b");
  check_error("-e 99999999999G", "-e");
  check_error("-i -1", "-i");
  check_error("-i 1Q", "-i");
  check_error("-f 0", "-f");
  check_error("-f -2", "-f");
  check_error("-f 2x", "-f");
  check_error("-f 1.5", "-f");
  check_error("-b 8 -e 1M -f 1 -i 0", "-i 0");
  check_error("-b 8 -e 1M -i 0", "-i 0");
  /* Byte counts whose buffers would overflow (2^63: send + receive wrap to
   * 0) are refused, naming the largest byte count; T is no unit. */
  check_error("-e 8589934592G", "-e '8589934592G'");
  CHECKF(strstr(err, "4611686018427387904") && strstr(err, CB_SIZE_MAX_TEXT),
         "the refusal should name the largest byte count: '%s'", err);
  check_error("-b 8 -e 18446744073709551615", "largest byte count");
  check_error("-i 99999999999999999999", "largest byte count");
  check_error("-e 8388608T", "8388608T");
  check_error("-e 100T", "100T");

  /* Whole numbers in range. */
  check_error("-n 0", "-n");
  check_error("-n -3", "-n");
  check_error("-n abc", "abc");
  check_error("-n 99999999999", "-n");
  check_error("-w -1", "-w");
  check_error("-w 1.5", "1.5");
  check_error("-c -1", "-c");
  check_error("-c 1001", "-c");
  check_error("-r -2", "-r"); /* -r -1 is every root (test_root_all) */
  check_error("-t 0", "-t");
  check_error("-g abc", "abc");
  check_error("-g 0", "-g");
  check_error("-G -1", "-G");
  check_error("-a 4", "-a");
  check_error("-a -1", "-a");
  check_error("-z 4", "-z");
  check_error("-z -1", "-z");
  check_error("-m 0", "-m");
  check_error("-m 65537", "-m");
  check_error("-N -1", "-N");
  check_error("-p 2", "-p");
  check_error("-y 2", "-y");
  check_error("-C 2", "-C");
  check_error("-S -1", "-S");
  check_error("-M 2", "-M");
  check_error("-K -1", "-K");
  check_error("-I 2", "-I");
  check_error("--iters 0", "-n");

  /* Names. */
  check_error("-d foo", "foo");
  check_error("-d float,foo", "foo");
  check_error("-d float,", "-d");
  check_error("-o foo", "foo");
  check_error("-o sum,bar", "bar");
  check_error("-o none", "none");
  /* The messages list every name -d and -o take. */
  check_error("-d fp8", "bfloat16 f8e4m3 f8e5m2, a comma list, or all");
  check_error("-o premulsum", "sum prod min max avg mulsum, a comma list, or all");

  /* Combinations. */
  check_error("-G 5 -z 1", "-G");
  check_error("-z 1 -G 1", "-z");
  check_error("-G 5 -z 2", "-z 2");
  check_error("-G 5 -z 3", "-z 3");
  check_error("-G 2 -y 1", "NULL stream");
  check_error("-K 2", "-I 1");
  check_error("-I 1 -K 20", "below -n");
  check_error("-I 1 -n 5 -K 5", "below -n");
  check_error("-I 1 -G 3 -K 3", "below -G");
  check_error("-N 0 -J out.json", "-J");
  check_error("-N 0 --csv out.csv", "--csv");
  check_error("--stress 10 -N 2", "--stress");
  check_error("--stress 10 -m 2", "--stress");

  /* Shape of the command line. */
  check_error("-q", "-q");
  check_error("--bogus", "--bogus");
  check_error("--bogus=3", "--bogus");
  check_error("-n", "-n");
  check_error("-b 8 -e", "-e");
  check_error("--minbytes", "--minbytes");
  check_error("stray", "stray");
  check_error("-n 5 stray", "stray");
  check_error("stray -n 5", "stray");
  check_error("-b 8 -e 64 extra", "extra");

  /* Empty values. */
  cb_options o;
  char *empty_b[] = {"prog", "-b", "", NULL};
  CHECK(parse_argv(3, empty_b, &o) == CB_OPTS_ERROR && err[0]);
  char *empty_n[] = {"prog", "-n", "", NULL};
  CHECK(parse_argv(3, empty_n, &o) == CB_OPTS_ERROR && err[0]);
  char *empty_j[] = {"prog", "-J", "", NULL};
  CHECK(parse_argv(3, empty_j, &o) == CB_OPTS_ERROR && err[0]);
  char *empty_k[] = {"prog", "-k", "", NULL};
  CHECK(parse_argv(3, empty_k, &o) == CB_OPTS_ERROR && err[0]);

  /* A path longer than the field is refused, not cut. */
  static char long_path[CB_PATH_MAX + 10];
  memset(long_path, 'a', sizeof long_path - 1);
  long_path[sizeof long_path - 1] = '\0';
  char *long_j[] = {"prog", "-J", long_path, NULL};
  CHECK(parse_argv(3, long_j, &o) == CB_OPTS_ERROR && err[0]);
}

/* An unknown letter in a group of letters ("-qz"): the message must name the
 * option, not whatever word came before it. */
static void test_error_names_grouped_option(void) {
  cb_options o;
  CHECK(parse("-qz", &o) == CB_OPTS_ERROR);
  CHECKF(strstr(err, "-q") != NULL || strstr(err, "'q'") != NULL,
         "'prog -qz': message '%s' does not name the unknown option -q", err);
  CHECK(parse("-n 5 -qz", &o) == CB_OPTS_ERROR);
  CHECKF(strstr(err, "-q") != NULL || strstr(err, "'q'") != NULL,
         "'prog -n 5 -qz': message '%s' does not name the unknown option -q", err);
}

/* The value accepted at the edge of each range. */
static void test_bounds(void) {
  cb_options o;
  CHECK_RUN("-n 1 -w 0 -c 0 -r 0 -t 1 -g 1 -G 0 -T 1 -I 0", &o);
  CHECK_RUN("-n 2147483647 -T 86400 -t 1024 -g 1024", &o);
  CHECK_EQ_INT(o.iters, 2147483647);
  CHECK_EQ_INT(o.timeout_s, 86400);
  check_error("-T 86401", "-T");
  check_error("-t 1025", "-t");
  CHECK_RUN("-f 1048576", &o);
  CHECK_EQ_U64(o.sweep.step_factor, 1048576);
  check_error("-f 1048577", "-f");
  /* -f 1 -i 0 is fine when there is a single size. */
  CHECK_RUN("-b 1M -e 1M -f 1 -i 0", &o);
  CHECK_EQ_U64(o.sweep.step_bytes, 0);
  CHECK_RUN("-b 8 -e 1M -f 2 -i 0", &o);
  /* -b equal to -e is a valid sweep of one size. */
  CHECK_RUN("-b 1G -e 1G", &o);
  /* The largest byte count itself is taken (the GPU's memory refuses it later). */
  CHECK_RUN("-b 1G -e " CB_SIZE_MAX_TEXT, &o);
  CHECK_EQ_U64(o.sweep.max_bytes, CB_SIZE_MAX);
  /* -G and -z separately are fine. */
  CHECK_RUN("-G 5 -z 0", &o);
  CHECK_RUN("-G 0 -z 1", &o);
}

/* getopt keeps state between calls; cb_options_parse resets it. */
static void test_parse_twice(void) {
  cb_options o;
  CHECK_RUN("-n 7 -b 64 -e 128", &o);
  CHECK_EQ_INT(o.iters, 7);
  CHECK_RUN("-n 9", &o);
  CHECK_EQ_INT(o.iters, 9);
  /* The previous -b and -e do not stick: each parse starts from the defaults. */
  CHECK_EQ_U64(o.sweep.min_bytes, 32ull << 20);
  CHECK_EQ_U64(o.sweep.max_bytes, 32ull << 20);
  /* After a parse that stopped half way through its words... */
  CHECK(parse("-b 0 -n 5", &o) == CB_OPTS_ERROR);
  CHECK_RUN("-w 3", &o);
  CHECK_EQ_INT(o.warmup, 3);
  CHECK_EQ_INT(o.iters, 20);
  /* ...and inside a group of letters. */
  CHECK(parse("-hz1", &o) == CB_OPTS_HELP);
  CHECK_RUN("-z1", &o);
  CHECK_EQ_INT(o.blocking, 1);
  CHECK(parse("-qz", &o) == CB_OPTS_ERROR);
  CHECK_RUN("-n 11", &o);
  CHECK_EQ_INT(o.iters, 11);
  CHECK_EQ_INT(o.blocking, 0);
  /* The same line twice gives the same result. */
  cb_options a, b;
  CHECK_RUN("-b 8 -e 1G -f 2 -d all -o max -k 0", &a);
  CHECK_RUN("-b 8 -e 1G -f 2 -d all -o max -k 0", &b);
  CHECK(memcmp(&a, &b, sizeof a) == 0);
  /* A parse with a stray word, then a good one. */
  CHECK(parse("-n 3 stray", &o) == CB_OPTS_ERROR);
  CHECK_RUN("-n 4", &o);
  CHECK_EQ_INT(o.iters, 4);
}

static void canonical_of(const char *line, char *buf, size_t len) {
  cb_options o;
  buf[0] = '\0';
  CHECK_RUN(line, &o);
  cb_options_canonical(&o, buf, len);
}

static void test_canonical(void) {
  /* One change to each option that alters what runs. */
  static const char *const variants[] = {
      "",     "-b 1K",   "-e 64M",         "-i 2M",  "-f 2",          "-n 21", "-w 6",
      "-c 0", "-d half", "-d all",         "-o max", "-o all",        "-r 1",  "-t 2",
      "-g 2", "-G 1",    "-a 0",           "-a 2",   "-z 1",          "-T 10", "-I 1",
      "-k 1", "-k 0,1",  "-u 1",           "-u 8",   "--data random", "-R 1",  "-R 2",
      "-x 0", "-x 2",    "--timer events", "-z 2",   "-z 3",          "-m 2",  "-N 2",
      "-N 0", "-y 1",    "-C 1",           "-S 1",   "-M 1",          "-p 1",  "-I 1 -K 1",
  };
  enum { N = sizeof variants / sizeof variants[0], LEN = 1024 };
  static char canon[N][LEN];
  for (int i = 0; i < N; i++) {
    canonical_of(variants[i], canon[i], LEN);
    CHECKF(canon[i][0] != '\0', "canonical of '%s' is empty", variants[i]);
  }
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++)
      CHECKF(strcmp(canon[i], canon[j]) != 0, "'%s' and '%s' have the same canonical line '%s'",
             variants[i], variants[j], canon[i]);

  /* The same options spelled differently are the same run. */
  char a[LEN], b[LEN];
  canonical_of("-b 1K -e 1M -f 2 -d float -n 20", a, LEN);
  canonical_of("--minbytes=1024 --maxbytes 1048576 --stepfactor=2 -d fp32", b, LEN);
  CHECK_STR(a, b);
  canonical_of("-d float,half -o sum,max", a, LEN);
  canonical_of("-d half,float -o max,sum", b, LEN);
  CHECK_STR(a, b);
  canonical_of("", a, LEN);
  canonical_of("-n 20 -w 5 -c 1 -a 1 -T 300 -k all --all_sizes_warmup 1", b, LEN);
  CHECK_STR(a, b);
  /* Without nccl-tests' warm-up of every size, the first rows time something else. */
  canonical_of("--all_sizes_warmup 0", b, LEN);
  CHECKF(strcmp(a, b) != 0, "--all_sizes_warmup 0 has the default's canonical line '%s'", a);

  /* Deterministic: the same struct twice. */
  cb_options o;
  cb_options_defaults(&o);
  cb_options_canonical(&o, a, LEN);
  cb_options_canonical(&o, b, LEN);
  CHECK_STR(a, b);
  /* The longest line (every type and op, a -k of 255 characters) is whole in the
   * CB_OPTIONS_LINE_MAX bytes the processes compare (run_steps.c): the options after
   * -k count too. */
  char longest[400], spec[256];
  for (int i = 0; i < 255; i++) spec[i] = i % 2 ? ',' : '0'; /* 0,0,...,0: its shape is right */
  spec[255] = '\0';
  snprintf(longest, sizeof longest, "-d all -o all -r all -x 2 --overlap fma -k %s", spec);
  canonical_of(longest, a, LEN);
  CHECKF(strlen(a) < CB_OPTIONS_LINE_MAX - 1 && strstr(a, "; --overlap fma; --overlap_size 16384"),
         "cut at %d bytes: '%s'", CB_OPTIONS_LINE_MAX, a);
  /* A short buffer is still terminated. */
  char tiny[8];
  memset(tiny, 'x', sizeof tiny);
  cb_options_canonical(&o, tiny, sizeof tiny);
  CHECK(memchr(tiny, '\0', sizeof tiny) != NULL);
}

/* --overlap and --overlap_size: the load, its default size, and what is
 * refused before any GPU work. */
static void test_overlap(void) {
  cb_options o;
  CHECK_RUN("", &o);
  CHECK_EQ_INT(o.overlap, CB_LOAD_NONE);
  CHECK_EQ_U64(o.overlap_size, 0);
  CHECK_RUN("--overlap fma", &o);
  CHECK_EQ_INT(o.overlap, CB_LOAD_FMA);
  CHECK_EQ_U64(o.overlap_size, 16u << 10);
  CHECK_RUN("--overlap mem --overlap_size 64M", &o);
  CHECK_EQ_INT(o.overlap, CB_LOAD_MEM);
  CHECK_EQ_U64(o.overlap_size, 64u << 20);
  /* The size may come first; none takes no size. */
  CHECK_RUN("--overlap_size=2M --overlap=mem -G 2", &o);
  CHECK_EQ_U64(o.overlap_size, 2u << 20);
  CHECK_RUN("--overlap none", &o);
  CHECK_EQ_INT(o.overlap, CB_LOAD_NONE);
  check_error_is("--overlap heavy", "unknown --overlap 'heavy' (it takes gemm, fma, mem or none)");
  check_error_is("--overlap_size 1M", "--overlap_size 1048576 sizes a load, and --overlap gives "
                                      "none");
  check_error_is("--overlap none --overlap_size 8", "--overlap_size 8 sizes a load, and "
                                                    "--overlap gives none");
  check_error_is("--overlap fma --overlap_size 0",
                 "bad --overlap_size '0': a positive whole number, K, M or G for bytes");
  check_error("--overlap fma --overlap_size 12", "multiple of 8");
  check_error("--overlap mem --overlap_size 1000", "from 1M to 64G");
  check_error_is("--overlap fma --stress 5",
                 "--overlap times calls beside a load, and --stress times none");
  check_error("--overlap mem -z 1", "cannot be combined with -z 1");
  check_error("--overlap mem -z 3", "cannot be combined with -z 3");
  /* Ranks started with another load, or another size of it, run something else. */
  char none[1024], fma[1024], mem[1024], small[1024];
  canonical_of("", none, sizeof none);
  canonical_of("--overlap fma", fma, sizeof fma);
  canonical_of("--overlap mem", mem, sizeof mem);
  canonical_of("--overlap fma --overlap_size 64", small, sizeof small);
  CHECK(strcmp(none, fma) != 0 && strcmp(fma, mem) != 0 && strcmp(fma, small) != 0);
  canonical_of("--overlap fma --overlap_size 16K", mem, sizeof mem);
  CHECK_STR(fma, mem); /* the default, typed */
  if (cb_load_unavailable(CB_LOAD_GEMM)) {
    check_error("--overlap gemm", "--overlap gemm is unavailable: ");
  } else {
    CHECK_RUN("--overlap gemm", &o);
    CHECK_EQ_U64(o.overlap_size, 8192);
    check_error("--overlap gemm --overlap_size 100", "from 128 to 32768");
  }
}

/* -u (nccl-tests' unalign, in elements) and --data. */
static void test_unalign_and_data(void) {
  cb_options o;
  CHECK_RUN("", &o);
  CHECK_EQ_INT(o.unalign, 0);
  CHECK_EQ_INT(o.data, CB_DATA_EXACT);
  CHECK_RUN("-u 4 --data random", &o);
  CHECK_EQ_INT(o.unalign, 4);
  CHECK_EQ_INT(o.data, CB_DATA_RANDOM);
  CHECK_RUN("--unalign=1 --data=exact", &o);
  CHECK_EQ_INT(o.unalign, 1);
  CHECK_EQ_INT(o.data, CB_DATA_EXACT);
  check_error("-u -1", "-u");
  check_error("-u x", "x");
  check_error("-u 2000000", "-u");
  check_error("--data foo", "foo");
  check_error("--data", "--data");
}

/* -r all (nccl-tests' README) and -r -1 (what its parser takes) both mean
 * every root; other negative or unparsable roots are refused. */
static void test_root_all(void) {
  cb_options o;
  CHECK_RUN("-r all", &o);
  CHECK_EQ_INT(o.root, CB_ROOT_ALL);
  CHECK_RUN("-r -1", &o);
  CHECK_EQ_INT(o.root, CB_ROOT_ALL);
  CHECK_RUN("--root all", &o);
  CHECK_EQ_INT(o.root, CB_ROOT_ALL);
  CHECK_RUN("-r all -r 2", &o); /* the last one counts */
  CHECK_EQ_INT(o.root, 2);
  check_error("-r -2", "-r");
  check_error("-r every", "-r");
  check_error("-r al", "-r");
}

static void test_usage(void) {
  FILE *f = check_tmpfile();
  cb_options_usage(f, "all_reduce_perf");
  char *text = check_slurp(f);
  fclose(f);
  CHECK_CONTAINS(text, "usage: all_reduce_perf");
  static const char *const flags[] = {
      "-b,", "-e,",     "-i,", "-f,", "-n,", "-w,", "-c,",   "-d,", "-o,", "-r,", "-t,",    "-g,",
      "-G,", "-a,",     "-z,", "-T,", "-I,", "-J,", "--csv", "-k,", "-h,", "-u,", "--data", "-R,",
      "-x,", "--timer", "-m,", "-N,", "-p,", "-y,", "-C,",   "-S,", "-M,", "-K,", "-D,"};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) CHECK_CONTAINS(text, flags[i]);
  /* Every datatype and op -d and -o take (types.c's tables). */
  char word[32];
  for (int t = 0; t < CB_NUM_DTYPES; t++) {
    snprintf(word, sizeof word, " %s", cb_dtype_name((cb_dtype)t));
    CHECK_CONTAINS(text, word);
  }
  for (int op = 0; op < CB_NUM_OPS; op++) {
    snprintf(word, sizeof word, " %s", cb_redop_name((cb_redop)op));
    CHECK_CONTAINS(text, word);
  }
  free(text);
}

/* The datatypes and ops themselves: nccl-tests 2.19.6's names, in its
 * order, the fp8 sizes, and mulsum's scalars (nccl-tests'
 * ncclVerifiablePremulScalar: 1 on even ranks, 2 on odd). */
static void test_types_and_ops_tables(void) {
  char buf[256];
  CHECK_STR(cb_dtype_names(buf, sizeof buf),
            "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2");
  CHECK_STR(cb_redop_names(buf, sizeof buf), "sum prod min max avg mulsum");
  /* A short buffer is cut, never overrun. */
  char small[12];
  memset(small, 'x', sizeof small);
  cb_dtype_names(small, 8);
  CHECK_STR(small, "int8 ui");
  CHECK(small[8] == 'x');
  CHECK_EQ_INT((int)cb_dtype_size(CB_F8E4M3), 1);
  CHECK_EQ_INT((int)cb_dtype_size(CB_F8E5M2), 1);
  CHECK(cb_dtype_is_float(CB_F8E4M3) && cb_dtype_is_float(CB_F8E5M2));
  CHECK_EQ_INT(cb_dtype_parse("f8e4m3"), CB_F8E4M3);
  CHECK_EQ_INT(cb_dtype_parse("F8E5M2"), CB_F8E5M2);
  CHECK_EQ_INT(cb_dtype_parse("fp8"), -1);
  CHECK_EQ_INT(cb_redop_parse("mulsum"), CB_MULSUM);
  CHECK_EQ_INT(cb_redop_parse("premulsum"), -1);
  for (int r = 0; r < 9; r++) CHECK_EQ_INT(cb_mulsum_scalar(r), r % 2 ? 2 : 1);
}

/* ---- nccl-tests 2.19.6's whole option list ------------------------------ */

/* One option of nccl-tests (its src/common.cu, longopts), with a value to
 * give it: supported options must parse, under both their names, and land
 * in the struct (recorded); refused ones must be refused with one line
 * naming why (refusal). extra: other options the value needs. */
typedef struct {
  char letter;
  const char *name, *value, *extra;
  int (*recorded)(const cb_options *o);
  const char *refusal;
} nccl_tests_option;

/* clang-format off */
static int rec_t(const cb_options *o) { return o->threads == 2; }
static int rec_g(const cb_options *o) { return o->gpus == 2; }
static int rec_b(const cb_options *o) { return o->sweep.min_bytes == (3ull << 19); }
static int rec_e(const cb_options *o) { return o->sweep.max_bytes == (2ull << 30); }
static int rec_i(const cb_options *o) { return o->sweep.step_bytes == (3ull << 20); }
static int rec_f(const cb_options *o) { return o->sweep.step_factor == 3; }
static int rec_n(const cb_options *o) { return o->iters == 7; }
static int rec_m(const cb_options *o) { return o->agg_iters == 4; }
static int rec_w(const cb_options *o) { return o->warmup == 3; }
static int rec_N(const cb_options *o) { return o->run_cycles == 5; }
static int rec_p(const cb_options *o) { return o->parallel_init == 1; }
static int rec_c(const cb_options *o) { return o->check == 2; }
static int rec_o(const cb_options *o) { return o->ops == CB_OP_BIT(CB_MAX); }
static int rec_d(const cb_options *o) { return o->dtypes == CB_DTYPE_BIT(CB_HALF); }
static int rec_r(const cb_options *o) { return o->root == 1; }
static int rec_z(const cb_options *o) { return o->blocking == CB_BLOCK_ITERATION; }
static int rec_y(const cb_options *o) { return o->stream_null == 1; }
static int rec_T(const cb_options *o) { return o->timeout_s == 9; }
static int rec_G(const cb_options *o) { return o->graph_launches == 4; }
static int rec_C(const cb_options *o) { return o->report_cputime == 1; }
static int rec_S(const cb_options *o) { return o->report_timestamps == 1; }
static int rec_J(const cb_options *o) { return strcmp(o->json_path, "out.json") == 0; }
static int rec_a(const cb_options *o) { return o->average == CB_AVG_MIN; }
static int rec_R(const cb_options *o) { return o->local_register == 1; }
static int rec_x(const cb_options *o) { return o->cta_policy == 1; }
static int rec_D(const cb_options *o) { return o->graph_launches == 0; } /* nothing to record */
static int rec_M(const cb_options *o) { return o->memory_report == 1; }
static int rec_u(const cb_options *o) { return o->unalign == 2; }
static int rec_I(const cb_options *o) { return o->per_iter == 1; }
static int rec_K(const cb_options *o) { return o->per_iter_skip == 3 && o->per_iter == 1; }
/* clang-format on */

static const nccl_tests_option nccl_tests_options[] = {
    {'t', "nthreads", "2", "", rec_t, NULL},
    {'g', "ngpus", "2", "", rec_g, NULL},
    {'b', "minbytes", "1.5M", "", rec_b, NULL},
    {'e', "maxbytes", "2G", "", rec_e, NULL},
    {'i', "stepbytes", "3M", "", rec_i, NULL},
    {'f', "stepfactor", "3", "", rec_f, NULL},
    {'n', "iters", "7", "", rec_n, NULL},
    {'m', "agg_iters", "4", "", rec_m, NULL},
    {'w', "warmup_iters", "3", "", rec_w, NULL},
    {'N', "run_cycles", "5", "", rec_N, NULL},
    {'p', "parallel_init", "1", "", rec_p, NULL},
    {'c', "check", "2", "", rec_c, NULL},
    {'o', "op", "max", "", rec_o, NULL},
    {'d', "datatype", "half", "", rec_d, NULL},
    {'r', "root", "1", "", rec_r, NULL},
    {'z', "blocking", "3", "", rec_z, NULL},
    {'y', "stream_null", "1", "", rec_y, NULL},
    {'T', "timeout", "9", "", rec_T, NULL},
    {'G', "cudagraph", "4", "", rec_G, NULL},
    {'C', "report_cputime", "1", "", rec_C, NULL},
    {'S', "report_timestamps", "1", "", rec_S, NULL},
    {'J', "output_file", "out.json", "", rec_J, NULL},
    {'a', "average", "2", "", rec_a, NULL},
    {'R', "local_register", "1", "", rec_R, NULL},
    {'x', "cta_policy", "1", "", rec_x, NULL},
    {'D', "device_implementation", "0", "", rec_D, NULL},
    {'D', "device_implementation", "1", "", NULL, "device-API kernels"},
    {'V', "device_cta_count", "16", "", NULL, "device-API kernels"},
    {'M', "memory", "1", "", rec_M, NULL},
    {'u', "unalign", "2", "", rec_u, NULL},
    {'I', "per_iter_timing", "1", "", rec_I, NULL},
    {'K', "per_iter_skip", "3", "-I 1", rec_K, NULL},
    {'h', "help", NULL, "", NULL, NULL},
};

/* Every option of nccl-tests 2.19.6, by its long name: the list above must
 * hold each of them (the -D and -h rows included). */
static const char *const nccl_tests_long_names[] = {
    "nthreads",
    "ngpus",
    "minbytes",
    "maxbytes",
    "stepbytes",
    "stepfactor",
    "iters",
    "agg_iters",
    "warmup_iters",
    "run_cycles",
    "parallel_init",
    "check",
    "op",
    "datatype",
    "root",
    "blocking",
    "stream_null",
    "timeout",
    "cudagraph",
    "report_cputime",
    "report_timestamps",
    "output_file",
    "average",
    "local_register",
    "cta_policy",
    "device_implementation",
    "device_cta_count",
    "memory",
    "unalign",
    "per_iter_timing",
    "per_iter_skip",
    "help",
};

static void check_nccl_tests_option(const nccl_tests_option *t, const char *line) {
  cb_options o;
  cb_opts_result r = parse(line, &o);
  if (!t->value) {
    CHECKF(r == CB_OPTS_HELP, "'%s': expected the usage", line);
  } else if (t->refusal) {
    check_refused(line, r, err, t->refusal);
    CHECKF(err[0] == '-' && err[1] == t->letter, "'%s': the refusal should start with -%c: '%s'",
           line, t->letter, err);
  } else {
    CHECKF(r == CB_OPTS_RUN, "'%s' should parse, got '%s'", line, err);
    if (r == CB_OPTS_RUN)
      CHECKF(t->recorded(&o), "'%s' parsed, but its value was not recorded", line);
  }
}

static void test_nccl_tests_option_list(void) {
  size_t n = sizeof nccl_tests_options / sizeof nccl_tests_options[0];
  for (size_t i = 0; i < sizeof nccl_tests_long_names / sizeof nccl_tests_long_names[0]; i++) {
    int found = 0;
    for (size_t k = 0; k < n; k++)
      found |= strcmp(nccl_tests_options[k].name, nccl_tests_long_names[i]) == 0;
    CHECKF(found, "nccl-tests' --%s is not checked", nccl_tests_long_names[i]);
  }
  for (size_t k = 0; k < n; k++) {
    const nccl_tests_option *t = &nccl_tests_options[k];
    char line[160];
    /* -X value, --name value and --name=value. */
    snprintf(line, sizeof line, "%s -%c %s", t->extra, t->letter, t->value ? t->value : "");
    check_nccl_tests_option(t, line);
    snprintf(line, sizeof line, "%s --%s %s", t->extra, t->name, t->value ? t->value : "");
    check_nccl_tests_option(t, line);
    if (t->value) {
      snprintf(line, sizeof line, "%s --%s=%s", t->extra, t->name, t->value);
      check_nccl_tests_option(t, line);
    }
  }
}

/* nccl-tests' values of -z, -N and -K (their defaults are test_defaults'). */
static void test_nccl_tests_values(void) {
  cb_options o;
  /* -z 1..3 and -N 0 as nccl-tests has them. */
  for (int z = 0; z <= 3; z++) {
    char line[16];
    snprintf(line, sizeof line, "-z %d", z);
    CHECK_RUN(line, &o);
    CHECK_EQ_INT(o.blocking, z);
  }
  CHECK_RUN("-N 0", &o);
  CHECK_EQ_INT(o.run_cycles, 0);
  CHECK_RUN("-I 1 -n 5 -K 4", &o);
  CHECK_EQ_INT(o.per_iter_skip, 4);
  CHECK_RUN("-I 1 -G 3", &o); /* nccl-tests turns -I off with -G; here it samples each launch */
  CHECK_RUN("-I 1 -G 3 -K 2", &o);
}

int main(void) {
  test_defaults();
  test_valid_short();
  test_valid_long();
  test_all_sizes_warmup();
  test_nccl_flags_and_timer();
  test_dtypes_and_ops();
  test_help_and_list();
  test_errors();
  test_kernel_shape_and_sweep_defaults();
  test_one_spelling();
  test_error_names_grouped_option();
  test_bounds();
  test_parse_twice();
  test_canonical();
  test_unalign_and_data();
  test_overlap();
  test_root_all();
  test_usage();
  test_types_and_ops_tables();
  test_nccl_tests_option_list();
  test_nccl_tests_values();
  return check_summary();
}
