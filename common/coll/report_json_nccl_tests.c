/* nccl-tests 2.19.6's -J document (its src/util.cu), the top level of
 * collbench's -J file (report_json.c): "version" 3, start_time, args, env,
 * nccl_version, config (with the devices), results (one entry per row of
 * the text table: size, count, type, redop, root as printed, and per
 * placement time or cpu_time, alg_bw, bus_bw, nwrong, with -I the
 * per-iteration statistics and samples), out_of_bounds,
 * average_bus_bandwidth, errors, end_time. Its booleans are the strings
 * "true" and "false", as nccl-tests writes them. Where collbench differs:
 * env lists only the variables that steer NCCL, CUDA and collbench (not the
 * whole environment, so a results file holds no credentials); a row's
 * experiment_name is its kernel's name (nccl-tests writes ""), and "kernel"
 * its id; a placement a kernel skipped is null; rows no placement of which
 * ran are left out. */
#define _POSIX_C_SOURCE 200809L /* localtime_r */
#include <string.h>

#include "clock.h"
#include "json_pieces.h"
#include "nccl_tests_env.h" /* cb_min_bw_failed */
#include "report.h"

/* nccl-tests' JSON_FILE_VERSION. */
#define NCCL_TESTS_JSON_VERSION 3

/* nccl-tests writes its booleans as the strings "true" and "false". */
static void nt_bool(cb_json *j, int v) {
  cb_json_string(j, v ? "true" : "false");
}

/* The variables a results file keeps of the environment. */
static int steers_the_run(const char *var) {
  return strncmp(var, "NCCL_", 5) == 0 || strncmp(var, "CUDA_", 5) == 0 ||
         strncmp(var, "CB_", 3) == 0;
}

static void nt_args_and_env(cb_json *j, const cb_report *r) {
  cb_json_key(j, "args");
  cb_json_begin_array(j);
  for (int i = 0; i < r->argc && r->argv; i++) cb_json_string(j, r->argv[i]);
  cb_json_end_array(j);
  cb_json_key(j, "env");
  cb_json_begin_array(j);
  for (char *const *e = r->envp; e && *e; e++)
    if (steers_the_run(*e)) cb_json_string(j, *e);
  cb_json_end_array(j);
}

/* nccl-tests' names for a device's fields (it has no process key). */
static const cb_json_device_keys nt_device_keys = {
    "rank", NULL, "group", "pid", "hostname", "device", "device_hex", "device_info"};

static void nt_config(cb_json *j, const cb_report *r) {
  const cb_options *o = &r->opts;
  cb_json_key(j, "config");
  cb_json_begin_object(j);
  cb_json_key(j, "nthreads"), cb_json_int(j, o->threads);
  cb_json_key(j, "ngpus"), cb_json_int(j, o->gpus);
  cb_json_key(j, "minimum_bytes"), cb_json_int(j, (long long)o->sweep.min_bytes);
  cb_json_key(j, "maximum_bytes"), cb_json_int(j, (long long)o->sweep.max_bytes);
  if (o->sweep.step_factor > 1)
    cb_json_key(j, "step_factor"), cb_json_int(j, (long long)o->sweep.step_factor);
  else
    cb_json_key(j, "step_bytes"), cb_json_int(j, (long long)o->sweep.step_bytes);
  cb_json_key(j, "warmup_iters"), cb_json_int(j, o->warmup);
  cb_json_key(j, "iterations"), cb_json_int(j, o->iters);
  cb_json_key(j, "aggregated_iterations"), cb_json_int(j, o->agg_iters);
  cb_json_key(j, "validation"), cb_json_int(j, o->check);
  cb_json_key(j, "graph"), cb_json_int(j, o->graph_launches);
  cb_json_key(j, "blocking_collectives"), nt_bool(j, o->blocking);
  cb_json_key(j, "per_iter_timing"), nt_bool(j, o->per_iter);
  cb_json_key(j, "per_iter_skip"), cb_json_int(j, o->per_iter_skip);
  cb_json_key(j, "parallel_init"), nt_bool(j, o->parallel_init);
  /* nccl-tests lists the first rank of each process (the line it parses
   * of each process's "#  Rank" lines). */
  cb_json_devices(j, &nt_device_keys, r->devices, cb_report_all_ranks(r),
                  cb_options_ranks_per_proc(o));
  cb_json_end_object(j);
}

static void nt_doubles(cb_json *j, const double *v, int n) {
  cb_json_begin_array(j);
  for (int i = 0; i < n; i++) cb_json_double(j, v[i]);
  cb_json_end_array(j);
}

/* -I: nccl-tests' writePerIterReport. */
static void nt_per_iter(cb_json *j, const cb_measure *m) {
  const cb_iter_stats *s = &m->stats;
  const cb_iter_times *it = &m->iter;
  const cb_json_number stats[] = {{"min_us", s->min_us},     {"max_us", s->max_us},
                                  {"avg_us", s->avg_us},     {"p50_us", s->p50_us},
                                  {"p95_us", s->p95_us},     {"p99_us", s->p99_us},
                                  {"stdev_us", s->stdev_us}, {"cv_pct", s->cv_pct}};
  cb_json_begin_object(j);
  cb_json_key(j, "skipped_iterations"), cb_json_int(j, it->skipped);
  cb_json_numbers(j, stats, (int)(sizeof stats / sizeof stats[0]));
  cb_json_key(j, "times_us"), nt_doubles(j, it->times, it->times ? it->n : 0);
  if (it->nprocs > 1 && it->proc_times) {
    cb_json_key(j, "per_process_max_times_us");
    cb_json_begin_array(j);
    for (int p = 0; p < it->nprocs; p++) nt_doubles(j, it->proc_times + (size_t)p * it->n, it->n);
    cb_json_end_array(j);
  }
  cb_json_end_object(j);
}

static void nt_placement(cb_json *j, const cb_report *r, const cb_measure *m, int p) {
  static const char *const keys[2] = {"out_of_place", "in_place"};
  static const char *const iter_keys[2] = {"out_of_place_per_iter", "in_place_per_iter"};
  cb_json_key(j, keys[p]);
  if (!m->ran) {
    cb_json_null(j);
    return;
  }
  cb_json_begin_object(j);
  if (r->opts.report_cputime)
    cb_json_key(j, "cpu_time"), cb_json_double(j, m->cpu_us);
  else
    cb_json_key(j, "time"), cb_json_double(j, m->time_us);
  cb_json_key(j, "alg_bw"), cb_json_double(j, m->algbw);
  cb_json_key(j, "bus_bw"), cb_json_double(j, m->busbw);
  cb_json_key(j, "nwrong");
  if (m->wrong >= 0)
    cb_json_double(j, (double)m->wrong);
  else
    cb_json_null(j);
  cb_json_end_object(j);
  if (m->has_stats) cb_json_key(j, iter_keys[p]), nt_per_iter(j, m);
}

static void nt_row(cb_json *j, const cb_report *r, const cb_row *row) {
  const cb_kernel *k = r->coll->kernels[row->kernel];
  char root[16];
  snprintf(root, sizeof root, "%6i", row->root); /* as its table prints it */
  cb_json_begin_object(j);
  cb_json_key(j, "size"), cb_json_int(j, (long long)row->bytes);
  cb_json_key(j, "count"), cb_json_int(j, (long long)row->count);
  cb_json_key(j, "type"), cb_json_string(j, cb_dtype_name(row->dtype));
  /* The redop column as printed: hypercube's is empty in nccl-tests' JSON too. */
  cb_json_key(j, "redop"), cb_json_string(j, cb_shape_op_column(r->coll->shape, row->op));
  cb_json_key(j, "root"), cb_json_string(j, root);
  for (int p = 0; p < 2; p++) nt_placement(j, r, &row->m[p], p);
  cb_json_key(j, "actual_iterations"), cb_json_int(j, r->opts.iters);
  cb_json_key(j, "experiment_name"), cb_json_string(j, k->name);
  cb_json_key(j, "kernel"), cb_json_int(j, k->id);
  cb_json_end_object(j);
}

static void nt_footer(cb_json *j, const cb_report *r) {
  long long wrong = cb_report_wrong(r);
  double avg = cb_report_headline_busbw(r);
  cb_json_key(j, "out_of_bounds");
  cb_json_begin_object(j);
  cb_json_key(j, "count"), cb_json_int(j, wrong);
  cb_json_key(j, "okay"), nt_bool(j, wrong == 0);
  cb_json_end_object(j);
  cb_json_key(j, "average_bus_bandwidth");
  cb_json_begin_object(j);
  cb_json_key(j, "bandwidth"), cb_json_double(j, avg);
  cb_json_key(j, "okay");
  if (!r->check_min_bw)
    cb_json_string(j, "unchecked");
  else
    nt_bool(j, !cb_min_bw_failed(avg, r->min_bw));
  cb_json_end_object(j);
  cb_json_key(j, "errors"), cb_json_begin_array(j), cb_json_end_array(j);
  char end[32];
  cb_local_time(end, sizeof end);
  cb_json_key(j, "end_time"), cb_json_string(j, end);
}

void cb_json_nccl_tests_keys(cb_json *j, const cb_report *r) {
  cb_json_key(j, "version"), cb_json_int(j, NCCL_TESTS_JSON_VERSION);
  cb_json_key(j, "start_time"), cb_json_string(j, r->start_time);
  nt_args_and_env(j, r);
  cb_json_key(j, "nccl_version"), cb_json_int(j, r->nccl_library);
  nt_config(j, r);
  cb_json_key(j, "results");
  cb_json_begin_array(j);
  for (size_t i = 0; i < r->nrows; i++)
    if (r->rows[i].m[CB_OOP].ran || r->rows[i].m[CB_INP].ran) nt_row(j, r, &r->rows[i]);
  cb_json_end_array(j);
  nt_footer(j, r);
}
