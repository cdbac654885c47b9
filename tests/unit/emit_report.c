/* Writes a known report through the JSON, CSV and text sinks, for
 * tests/py/test_report_files.py and tests/py/test_nccl_tests_dropin.py to
 * read back with real parsers (and as nccl-tests users' scripts read them).
 *
 *   emit_report JSON_PATH CSV_PATH [graph|stream [TEXT_PATH]]
 *
 * Prints the CSV header (cb_report_csv.header) on stdout. Every value here
 * is mirrored in the Python tests: change them together. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collectives.h"
#include "options.h"
#include "report.h"

static const cb_kernel kernels[] = {
    {.id = 0, .name = "nccl", .summary = "reference"},
    {.id = 3, .name = "we\"ird\\name", .summary = "a name that needs escaping"},
    {.id = 7, .name = "offline", .summary = "cannot run here"},
    {.id = 9, .name = "unpicked", .summary = "not selected by -k"},
};
static const cb_kernel *const rows[] = {&kernels[0], &kernels[1], &kernels[2], &kernels[3]};

static const cb_collective coll = {&cb_shape_all_reduce, rows, 4};

static cb_measure ran(double t, double algbw, double busbw, long long wrong) {
  cb_measure m;
  memset(&m, 0, sizeof m);
  m.ran = 1;
  m.time_us = t;
  m.algbw = algbw;
  m.busbw = busbw;
  m.wrong = wrong;
  return m;
}

/* What NCCL's rows say of their resources. */
static void nccl_resources(cb_measure *m) {
  m->has_res = 1;
  cb_res_note(&m->res, "NCCL does not report the CTAs it launches");
}

/* Beside the load: the call's time, the load's rates (beside 0: not
 * measured, why says why). */
static void beside(cb_measure *m, double t, double alone, double besides, int units,
                   const char *why) {
  m->overlap.ran = 1;
  m->overlap.time_us = t;
  m->overlap.alone = alone;
  m->overlap.beside = besides;
  m->overlap.units_inside = units;
  snprintf(m->overlap.why, sizeof m->overlap.why, "%s", why);
}

static cb_measure skipped(const char *why) {
  cb_measure m;
  memset(&m, 0, sizeof m);
  snprintf(m.skip, sizeof m.skip, "%s", why);
  return m;
}

/* The environment nccl-tests' "env" is written from: the variables that
 * steer NCCL, CUDA and collbench are kept, the others (a secret) left out. */
static char *const fake_env[] = {"NCCL_DEBUG=INFO",
                                 "HOME=/root",
                                 "CUDA_VISIBLE_DEVICES=0,1",
                                 "AWS_SECRET_ACCESS_KEY=hunter2",
                                 "CB_SHARE_GPUS=0",
                                 "NCCL_TESTS_SPLIT=MOD 2",
                                 NULL};

/* -I's samples of a measurement (not computed here: the sinks only write them). */
static const double oop_times[7] = {20.5, 10.25, 11.0, 12.0, 12.0, 11.5, 10.5};
static const double inp_times[5] = {1400.5, 1200.0, 1250.0, 1300.0, 1210.0};
static const double inp_proc_times[2][5] = {{1400.5, 1100.0, 1250.0, 1300.0, 1210.0},
                                            {1000.0, 1200.0, 1240.0, 1200.0, 1200.0}};

/* The text report, as the program prints it: header, each kernel's table, footer. */
static int write_text(const char *path, const cb_report *r) {
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  cb_text_header(f, r);
  for (int k = 0; k < r->coll->nkernels; k++) {
    if (!r->kernels_run[k]) continue;
    cb_text_kernel_header(f, r, k);
    char shown[640] = "";
    for (size_t i = 0; i < r->nrows; i++) {
      if (r->rows[i].kernel != k) continue;
      cb_text_resources(f, &r->rows[i], shown, sizeof shown);
      cb_text_row(f, r, &r->rows[i]);
      cb_text_overlap(f, r, &r->rows[i]);
    }
  }
  cb_text_footer(f, r);
  return fclose(f) != 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s JSON_PATH CSV_PATH [graph|stream [TEXT_PATH]]\n", argv[0]);
    return 2;
  }
  int graph = argc > 3 && strcmp(argv[3], "graph") == 0;

  cb_report r;
  memset(&r, 0, sizeof r);
  r.program = "all_reduce_perf";
  r.coll = &coll;
  char err[256];
  /* -G picks the timer: events in graph mode, the host clock in stream mode.
   * Kernel 0's -R 2 -x 1 and --all_sizes_warmup 0 in stream mode; in graph
   * mode none of them (-x unset, the warm-up of every size on). */
  char *opt_argv[] = {"emit_report",
                      "-b",
                      "8",
                      "-e",
                      "1M",
                      "-f",
                      "4",
                      "-n",
                      "7",
                      "-w",
                      "2",
                      "-c",
                      "3",
                      "-g",
                      "2",
                      "-a",
                      "2",
                      "-T",
                      "60",
                      "-I",
                      "1",
                      "-r",
                      "1",
                      "-k",
                      "0,3",
                      "-G",
                      graph ? "5" : "0",
                      "--overlap",
                      "fma",
                      "--overlap_size",
                      "1024",
                      "-u",
                      "3",
                      "--data",
                      "random",
                      "-R",
                      "2",
                      "-x",
                      "1",
                      "--all_sizes_warmup",
                      "0",
                      NULL};
  int opt_argc = (int)(sizeof opt_argv / sizeof opt_argv[0]) - 1 - (graph ? 6 : 0);
  if (cb_options_parse(opt_argc, opt_argv, &r.opts, err, sizeof err) != CB_OPTS_RUN) {
    fprintf(stderr, "emit_report: options: %s\n", err);
    return 2;
  }
  /* CB_PEER_MAPPING (the environment, not argv): unset (auto) in both modes,
   * resolved to cumem in graph mode and to ipc, with the reason, in stream
   * mode. */
  r.opts.peer_mapping = CB_PEER_AUTO;
  r.peer_auto.resolved = 1;
  r.peer_auto.mapping = graph ? CB_PEER_CUMEM : CB_PEER_IPC;
  if (!graph)
    snprintf(r.peer_auto.why, sizeof r.peer_auto.why,
             "device 1 does not support \"POSIX\" file descriptor handles (rank 1)");
  r.nranks = 2;
  cb_device_info devices[2] = {
      {.rank = 0,
       .proc = 0,
       .pid = 4242,
       .device = 0,
       .host = "node-a",
       .pci = "0000:00:06",
       .name = "NVIDIA H200"},
      {.rank = 1,
       .proc = 0,
       .group = 0,
       .pid = 4242,
       .device = 1,
       .host = "back\\slash",
       .pci = "0000:00:07",
       .name = "GPU \"quoted\"\ttab"},
  };
  r.devices = devices;
  r.nccl_header = 22803;
  r.nccl_library = 22805;
  r.cuda_runtime = 13000;
  r.cuda_driver = 13010;
  snprintf(r.mpi, sizeof r.mpi, "Open MPI v4.1.4");
  snprintf(r.date, sizeof r.date, "2025-01-02T03:04:05Z");
  snprintf(r.start_time, sizeof r.start_time, "2025-01-02 04:04:05");
  r.argc = opt_argc;
  r.argv = (const char *const *)opt_argv;
  r.envp = fake_env;
  r.ngroups = 1;
  /* NCCL_TESTS_MIN_BW: met in stream mode, not in graph mode. */
  r.check_min_bw = 1;
  r.min_bw = graph ? 1000.0 : 0.5;
  static const int run[] = {1, 1, 0, 0};
  r.kernels_run = run;
  /* Kernel 7 was picked by -k all but cannot run in this world. */
  char *skips[] = {NULL, NULL, "needs \"peer\" memory, and these ranks span hosts", NULL};
  r.kernel_skips = skips;

  /* 1. kernel 0, float sum 8 B: both ran; out-of-place with per-iteration
   *    statistics, in-place not validated (wrong = -1). */
  cb_row row;
  memset(&row, 0, sizeof row);
  row.kernel = 0;
  row.dtype = CB_FLOAT;
  row.op = CB_SUM;
  row.root = -1;
  row.bytes = 8;
  row.count = 2;
  row.m[CB_OOP] = ran(12.5, 0.00064, 0.00064, 0);
  row.m[CB_OOP].has_stats = 1;
  row.m[CB_OOP].stats = (cb_iter_stats){7, 10.25, 12.0, 20.5, 20.5, 15.5, 12.5, 20.5, 3.5};
  row.m[CB_OOP].iter = (cb_iter_times){7, 0, 0, (double *)oop_times, NULL};
  row.m[CB_INP] = ran(13.25, 0.000603774, 0.000603774, -1);
  /* --overlap fma: out of place measured beside it; in place not, and why. */
  nccl_resources(&row.m[CB_OOP]);
  nccl_resources(&row.m[CB_INP]);
  beside(&row.m[CB_OOP], 15.0, 40.0, 30.0, 5, "");
  snprintf(row.m[CB_INP].overlap.why, sizeof row.m[CB_INP].overlap.why,
           "the load did not run over the whole timed window on rank 1");
  cb_report_add(&r, &row);

  /* 2. kernel 3 (the odd name), float sum 1 MiB: out-of-place skipped with
   *    a reason that needs CSV quoting, in-place ran with a NaN time. */
  memset(&row, 0, sizeof row);
  row.kernel = 1;
  row.dtype = CB_FLOAT;
  row.op = CB_SUM;
  row.root = -1;
  row.bytes = 1048576;
  row.count = 262144;
  row.m[CB_OOP] = skipped("above the kernel's 1 MiB limit, \"really\"");
  row.m[CB_INP] = ran(NAN, 0.0, 0.0, 3);
  /* A kernel of ours: two grids on the call's stream, one beside them,
   * copies on side streams (as the runtime would have filled in). */
  cb_kernel_resources *res = &row.m[CB_INP].res;
  row.m[CB_INP].has_res = 1;
  res->reported = 1;
  cb_res_grid(res, "handshake", NULL, 1, 32, 0)->launches = 2;
  static const char reduce_kernel = 0; /* stands for the __global__ function */
  cb_grid_use *g = cb_res_grid(res, "reduce", &reduce_kernel, 66, 512, 0);
  g->launches = 4;
  g->regs = 40;
  g->static_smem = 16;
  g->per_sm = 4;
  cb_res_grid(res, "signal", NULL, 1, 32, 0)->beside = 1;
  res->side_streams = 3;
  res->copies = 14;
  res->copy_streams = 2;
  cb_res_sms_at_once(res, 132);
  beside(&row.m[CB_INP], 20.0, 40.0, 0.0, 0, "no whole unit of the load fit, \"so\"");
  cb_report_add(&r, &row);

  /* 3. kernel 0, double max, large values. */
  memset(&row, 0, sizeof row);
  row.kernel = 0;
  row.dtype = CB_DOUBLE;
  row.op = CB_MAX;
  row.root = -1;
  row.bytes = 1073741824;
  row.count = 134217728;
  row.m[CB_OOP] = ran(1234.5678, 869.75, 869.75, 0);
  row.m[CB_INP] = ran(1300.125, 825.875, 825.875, 0);
  row.m[CB_INP].has_stats = 1;
  row.m[CB_INP].stats =
      (cb_iter_stats){5, 1200.0, 1300.0, 1400.5, 1400.5, 6.25, 1240.0, 1300.0, 77.5};
  row.m[CB_INP].iter = (cb_iter_times){5, 1, 2, (double *)inp_times, (double *)inp_proc_times};
  nccl_resources(&row.m[CB_OOP]);
  nccl_resources(&row.m[CB_INP]);
  beside(&row.m[CB_OOP], 2469.1356, 40.0, 20.0, 9, "");
  beside(&row.m[CB_INP], 1300.125, 40.0, 40.0, 9, "");
  cb_report_add(&r, &row);

  /* 4. kernel 3, bfloat16 avg: both skipped for one reason. */
  memset(&row, 0, sizeof row);
  row.kernel = 1;
  row.dtype = CB_BFLOAT16;
  row.op = CB_AVG;
  row.root = -1;
  row.bytes = 64;
  row.count = 32;
  row.m[CB_OOP] = skipped("bfloat16 not supported");
  row.m[CB_INP] = skipped("bfloat16 not supported");
  cb_report_add(&r, &row);

  FILE *json = fopen(argv[1], "w");
  FILE *csv = fopen(argv[2], "w");
  if (!json || !csv) {
    perror("emit_report: fopen");
    return 2;
  }
  int rc =
      cb_json_sink_write(json, &cb_report_json, &r) | cb_csv_sink_write(csv, &cb_report_csv, &r);
  rc |= fclose(json) | fclose(csv);
  if (argc > 4) rc |= write_text(argv[4], &r);
  r.devices = NULL;                    /* on the stack: not for cb_report_free */
  for (size_t i = 0; i < r.nrows; i++) /* static samples: not for cb_report_free */
    for (int p = 0; p < 2; p++) r.rows[i].m[p].iter = (cb_iter_times){0};
  cb_report_free(&r);
  printf("%s\n", cb_report_csv.header);
  return rc ? 1 : 0;
}
