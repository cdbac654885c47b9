/* The text table. Column widths and number formats are nccl-tests' own, so
 * scripts that parse nccl-tests output read collbench's unchanged. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "load_options.h"
#include "load_report.h"
#include "nccl_tests_env.h" /* cb_min_bw_failed */
#include "peer_mapping.h"
#include "report.h"
#include "sizes.h"

static const char *const register_names[3] = {"plain buffers", "ncclCommRegister",
                                              "symmetric windows"};
static const char *const cta_policy_names[3] = {"default", "efficiency", "zero"};

/* Lines nccl-tests' header lacks, printed only where the run differs from
 * what nccl-tests does by default, so that a default header stays
 * nccl-tests' own: the timer when it is not nccl-tests' host clock, and
 * kernel 0's -R and -x when given. */
static void text_timer_and_nccl_flags(FILE *out, const cb_options *o) {
  if (o->timer == CB_TIMER_EVENTS)
    fprintf(out, "# Timer: CUDA events on each rank's stream (--timer events; nccl-tests' host "
                 "clock is --timer host)\n");
  if (o->local_register || o->cta_policy != CB_CTA_POLICY_UNSET) {
    fprintf(out, "# Kernel 0 (nccl) as nccl-tests -R %d", o->local_register);
    if (o->cta_policy != CB_CTA_POLICY_UNSET) fprintf(out, " -x %d", o->cta_policy);
    fprintf(out, ": %s", register_names[o->local_register]);
    if (o->cta_policy != CB_CTA_POLICY_UNSET)
      fprintf(out, ", CTA policy %s", cta_policy_names[o->cta_policy]);
    fputc('\n', out);
  }
}

/* --all_sizes_warmup 0, where the run differs from nccl-tests, which warms
 * every size up before it times the first (a default header leaves it
 * unsaid: nccl-tests' "# nThread" line, which tests and scripts parse word
 * for word, has no place for it). */
static void text_all_sizes_warmup(FILE *out, const cb_options *o) {
  if (o->all_sizes_warmup) return;
  fprintf(out,
          "# Warm-up for all sizes off (--all_sizes_warmup 0): a size is warmed up only by its "
          "own -w calls, just before it is timed\n");
}

/* --overlap: the load, and how the rows under it read; with ranks sharing
 * a GPU or hosts simulated on one machine, that none of it means anything. */
static void text_overlap_header(FILE *out, const cb_report *r) {
  const cb_options *o = &r->opts;
  if (o->overlap == CB_LOAD_NONE) return;
  cb_text_overlap_header(out, o->overlap, o->overlap_size, "every timed call",
                         "the call's time with it (x: over its time alone) and the load's rate "
                         "alone and beside the call (x: alone over beside)");
  if (r->times_void[0]) fprintf(out, "# Overlap: these times mean nothing: %s\n", r->times_void);
}

/* How our kernels mapped their peers' memory. Unsaid when CB_PEER_MAPPING
 * names ipc (a header as it was before cuMem), and when auto was not
 * resolved (no kernel of ours mapped peer memory). auto's pick is always
 * said, since it changes what the copy engines measure; ipc with the
 * reason cumem was not taken. */
static void text_peer_mapping(FILE *out, const cb_report *r) {
  static const char *const how[CB_PEER_MAPPINGS] = {
      "cudaMalloc, CUDA IPC handles between processes",
      "cuMem allocations, POSIX file descriptors between processes",
      "cuMem allocations, fabric handles between processes"};
  cb_peer_mapping asked = (cb_peer_mapping)r->opts.peer_mapping;
  cb_peer_mapping used = cb_report_peer_mapping(r);
  if (asked == CB_PEER_IPC || (unsigned)used >= CB_PEER_MAPPINGS) return;
  fprintf(out, "# Peer memory of our kernels: %s=", CB_PEER_MAPPING_ENV);
  if (asked == CB_PEER_AUTO) fprintf(out, "auto: ");
  fprintf(out, "%s (%s)", cb_peer_mapping_name(used), how[used]);
  if (asked == CB_PEER_AUTO && used == CB_PEER_IPC && r->peer_auto.why[0])
    fprintf(out, ", since cumem is unavailable: %s", r->peer_auto.why);
  fputc('\n', out);
}

/* nccl-tests' lines between its "# nThread" line and "# Using devices",
 * for the -z, -I and -p that ask for them, word for word. */
static void text_nccl_tests_modes(FILE *out, const cb_options *o) {
  if (o->blocking == CB_BLOCK_OP_BARRIER)
    fprintf(out, "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n");
  if (o->blocking == CB_BLOCK_OP)
    fprintf(out, "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n");
  if (o->blocking == CB_BLOCK_ITERATION)
    fprintf(out, "# Blocking Enabled: wait and barrier after each outer iteration (-n); time "
                 "excludes barrier \n");
  if (o->per_iter) {
    fprintf(out, "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows");
    if (o->per_iter_skip) fprintf(out, "; summary skips first %d iterations", o->per_iter_skip);
    fprintf(out, " \n");
  }
  if (o->parallel_init)
    fprintf(out, "# Parallel Init Enabled: threads call into NcclInitRank concurrently \n");
}

/* Our lines, after nccl-tests' header: what collbench is, and where the run
 * differs from what nccl-tests would do. */
static void text_collbench_lines(FILE *out, const cb_report *r) {
  const cb_options *o = &r->opts;
  fprintf(out, "# collbench version %s: nccl-tests %s's options and output, kernels by -k\n",
          CB_VERSION, CB_NCCL_TESTS_VERSION);
  if (r->plugins) cb_plugins_print(out, r->plugins);
  cb_text_mutant(out);
  if (r->ngroups > 1)
    fprintf(out,
            "# Groups: %d (NCCL_TESTS_SPLIT) run the test at once; bandwidths are per group, "
            "times averaged over every rank of every group (-a)\n",
            r->ngroups);
  if (o->data == CB_DATA_RANDOM)
    fprintf(out, "# data: random values; floating-point reductions within a tolerance of a "
                 "float64 reference, everything else bit for bit\n");
  const cb_coll_shape *shape = r->coll->shape;
  if (!shape->reduces && o->ops != CB_OP_BIT(CB_SUM))
    fprintf(out, "# -o: %s does not reduce: %s, as in nccl-tests\n", r->program,
            shape->op_column ? "each op of -o names rows of the same copy"
                             : "its calls take no op, whatever -o names");
  text_timer_and_nccl_flags(out, o);
  text_all_sizes_warmup(out, o);
  text_peer_mapping(out, r);
  text_overlap_header(out, r);
}

void cb_text_header(FILE *out, const cb_report *r) {
  const cb_options *o = &r->opts;
  int factor = o->sweep.step_factor > 1;
  fprintf(out, "# nccl-tests version %s nccl-headers=%d nccl-library=%d\n", CB_NCCL_TESTS_VERSION,
          r->nccl_header, r->nccl_library);
  fprintf(out, "# Collective test starting: %s\n", r->program);
  fprintf(out,
          "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d "
          "iters: %d agg iters: %d validation: %d graph: %d unalign: %d\n",
          o->threads, o->gpus, (unsigned long long)o->sweep.min_bytes,
          (unsigned long long)o->sweep.max_bytes,
          (unsigned long long)(factor ? o->sweep.step_factor : o->sweep.step_bytes),
          factor ? "factor" : "bytes", o->warmup, o->iters, o->agg_iters, o->check,
          o->graph_launches, o->unalign);
  text_nccl_tests_modes(out, o);
  cb_text_devices(out, r->devices, cb_report_all_ranks(r));
  text_collbench_lines(out, r);
  for (int k = 0; k < r->coll->nkernels; k++)
    if (r->kernel_skips && r->kernel_skips[k])
      cb_text_kernel_skipped(out, r->coll->kernels[k]->id, r->coll->kernels[k]->name,
                             r->kernel_skips[k]);
}

/* The timestamp column of -S: its label right-aligned over 19 characters, as
 * nccl-tests pads it ("%*s"); nothing without -S. */
static void column_tail(FILE *out, const cb_options *o, const char *label) {
  fprintf(out, " %*s\n", o->report_timestamps ? 19 : 0, o->report_timestamps ? label : "");
}

void cb_text_kernel_header(FILE *out, const cb_report *r, int kernel) {
  const cb_kernel *k = r->coll->kernels[kernel];
  const cb_options *o = &r->opts;
  const char *time = o->report_cputime ? "cputime" : "time";
  fprintf(out, "#\n# kernel %d (%s): %s\n", k->id, k->name, k->summary);
  if (o->per_iter) {
    fprintf(out,
            "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)          "
            "                      in-place (+ per-iteration)\n",
            "", "", "", "", "");
    fprintf(out,
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  "
            "%6s  %6s  %7s  %7s  %7s  %7s",
            "size", "count", "type", "redop", "root", time, "algbw", "busbw", "#wrong", "i_min",
            "i_max", "i_p99", "i_cv%", time, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99",
            "i_cv%");
    column_tail(out, o, "timestamp");
    fprintf(out,
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  "
            "%6s  %6s  %7s  %7s  %7s  %7s",
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)",
            "(%)", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)");
    column_tail(out, o, "%Y-%m-%d %H:%M:%S");
    return;
  }
  fprintf(out,
          "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place  "
          "        \n",
          "", "", "", "", "");
  fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s", "size",
          "count", "type", "redop", "root", time, "algbw", "busbw", "#wrong", time, "algbw",
          "busbw", "#wrong");
  column_tail(out, o, "timestamp");
  fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s", "(B)",
          "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  column_tail(out, o, "%Y-%m-%d %H:%M:%S");
}

static void text_measure(FILE *out, const cb_options *o, const cb_measure *m) {
  if (!m->ran) {
    fprintf(out, "  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
    if (o->per_iter) fprintf(out, "  %7s  %7s  %7s  %7s", "N/A", "N/A", "N/A", "N/A");
    return;
  }
  char t[16], a[16], b[16];
  cb_format_fixed(o->report_cputime ? m->cpu_us : m->time_us, 7, t);
  cb_format_fixed(m->algbw, 6, a);
  cb_format_fixed(m->busbw, 6, b);
  if (m->wrong >= 0)
    fprintf(out, "  %7s  %6s  %6s  %6g", t, a, b, (double)m->wrong);
  else
    fprintf(out, "  %7s  %6s  %6s    N/A", t, a, b);
  if (o->per_iter && !m->has_stats)
    fprintf(out, "  %7s  %7s  %7s  %7s", "N/A", "N/A", "N/A", "N/A");
  if (o->per_iter && m->has_stats) {
    /* nccl-tests' i_min i_max i_p99 i_cv%, after the -K first samples. */
    const double v[4] = {m->stats.min_us, m->stats.max_us, m->stats.p99_us, m->stats.cv_pct};
    for (int i = 0; i < 4; i++) {
      char c[16];
      cb_format_fixed(v[i], 7, c);
      fprintf(out, "  %7s", c);
    }
  }
}

void cb_text_row(FILE *out, const cb_report *r, const cb_row *row) {
  const cb_coll_shape *s = r->coll->shape;
  const cb_measure *m = row->m;
  if (!m[CB_OOP].ran && !m[CB_INP].ran && strcmp(m[CB_OOP].skip, m[CB_INP].skip) == 0) {
    /* A size the kernel cannot serve at all: a note, not a row of N/A. */
    fprintf(out, "# %10zu  %12zu  %8s  %6s  skipped: %s\n", row->bytes, row->count,
            cb_dtype_name(row->dtype), cb_shape_op_column(s, row->op), m[CB_OOP].skip);
    return;
  }
  fprintf(out, "%12zu  %12zu  %8s  %6s  %6d", row->bytes, row->count, cb_dtype_name(row->dtype),
          cb_shape_op_column(s, row->op), row->root);
  text_measure(out, &r->opts, &m[CB_OOP]);
  text_measure(out, &r->opts, &m[CB_INP]);
  if (r->opts.report_timestamps) fprintf(out, "%21s", row->stamp);
  for (int p = 0; p < 2; p++)
    if (!m[p].ran) fprintf(out, "  # %s: %s", p ? "in-place" : "out-of-place", m[p].skip);
  fputc('\n', out);
}

/* One placement's resources, or "" when it holds none known (skipped). */
static void resources_text(const cb_measure *m, char *buf, size_t len) {
  buf[0] = '\0';
  if (m->ran && m->has_res) cb_resources_format(&m->res, buf, len);
}

void cb_text_resources(FILE *out, const cb_row *row, char *shown, size_t len) {
  char oop[320], inp[320], both[640];
  resources_text(&row->m[CB_OOP], oop, sizeof oop);
  resources_text(&row->m[CB_INP], inp, sizeof inp);
  if (!oop[0] && !inp[0]) return;
  if (!oop[0] || !inp[0] || strcmp(oop, inp) == 0)
    snprintf(both, sizeof both, "#   resources: %s\n", oop[0] ? oop : inp);
  else
    snprintf(both, sizeof both, "#   resources: %s\n#   resources in place: %s\n", oop, inp);
  if (strcmp(both, shown) == 0) return;
  fputs(both, out);
  snprintf(shown, len, "%s", both);
}

/* One placement beside the load: the call's time with it and its
 * slowdown, the load's rate alone and beside and its slowdown. */
static void overlap_cell(FILE *out, const cb_options *o, const cb_measure *m) {
  const cb_overlap_result *v = &m->overlap;
  if (!m->ran) {
    fprintf(out, "skipped");
    return;
  }
  if (!v->ran) {
    fprintf(out, "not measured: %s", v->why);
    return;
  }
  const double slower = cb_overlap_call_slowdown(v, m->time_us);
  fprintf(out, "time %.2f us", v->time_us);
  if (slower > 0) fprintf(out, " x%.2f", slower);
  cb_text_overlap_load(out, o->overlap, v);
}

void cb_text_overlap(FILE *out, const cb_report *r, const cb_row *row) {
  const cb_measure *m = row->m;
  if (r->opts.overlap == CB_LOAD_NONE || (!m[CB_OOP].ran && !m[CB_INP].ran)) return;
  fprintf(out, "#   beside %s: out-of-place ", cb_load_name(r->opts.overlap));
  overlap_cell(out, &r->opts, &m[CB_OOP]);
  fprintf(out, "; in-place ");
  overlap_cell(out, &r->opts, &m[CB_INP]);
  fputc('\n', out);
}

static int kernels_ran(const cb_report *r) {
  int n = 0;
  for (int k = 0; k < r->coll->nkernels; k++) n += r->kernels_run[k] != 0;
  return n;
}

static int same_case(const cb_row *a, const cb_row *b) {
  return a->dtype == b->dtype && a->op == b->op && a->root == b->root && a->bytes == b->bytes;
}

/* The summary's name columns: CB_SUMMARY_NAME_WIDTH, or the longest name of
 * the kernels that ran. */
static int summary_name_width(const cb_report *r) {
  int width = CB_SUMMARY_NAME_WIDTH;
  for (int k = 0; k < r->coll->nkernels; k++) {
    int n = (int)strlen(r->coll->kernels[k]->name);
    if (r->kernels_run[k] && n > width) width = n;
  }
  return width;
}

/* One placement of the summary: the fastest kernel, its time, and its
 * speed-up over the fastest of NCCL's variants (nccl, nccl-sym, nccl-ce)
 * that ran at this size, which the last column names; names w wide. */
static void summary_cell(FILE *out, const cb_report *r, size_t first, int p, int w) {
  const cb_row *best = NULL, *nccl = NULL;
  for (size_t i = first; i < r->nrows; i++) {
    const cb_row *x = &r->rows[i];
    if (!same_case(x, &r->rows[first]) || !x->m[p].ran) continue;
    if (!best || x->m[p].time_us < best->m[p].time_us) best = x;
    if (cb_catalogue_is_nccl(r->coll->kernels[x->kernel]->id) &&
        (!nccl || x->m[p].time_us < nccl->m[p].time_us))
      nccl = x;
  }
  if (!best) {
    cb_text_fastest_cell(out, w, NULL, 0, 0, 0, 0);
    fprintf(out, "  %*s", w, "-");
    return;
  }
  cb_text_fastest_cell(out, w, r->coll->kernels[best->kernel]->name, best->m[p].time_us,
                       best->m[p].time_us, nccl != NULL, nccl ? nccl->m[p].time_us : 0);
  fprintf(out, "  %*s", w, nccl ? r->coll->kernels[nccl->kernel]->name : "-");
}

static int seen_before(const cb_report *r, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (same_case(&r->rows[j], &r->rows[i])) return 1;
  return 0;
}

/* Rooted collectives (a row per root with -r all) get a root column. */
static void text_summary(FILE *out, const cb_report *r) {
  const int rooted = r->coll->shape->rooted;
  const int w = summary_name_width(r), group = w + 2 + 8 + 2 + 7 + 2 + w;
  fprintf(out, "#\n# Fastest kernel per size (vs nccl = the fastest NCCL variant's time / the "
               "fastest time, same placement; nccl: that variant)\n");
  fprintf(out, "# %10s  %8s  %6s%s  %*s  %*s\n", "", "", "", rooted ? "        " : "", group,
          "out-of-place", group, "in-place");
  fprintf(out, "# %10s  %8s  %6s%s  %*s  %8s  %7s  %*s  %*s  %8s  %7s  %*s\n", "size", "type",
          "redop", rooted ? "    root" : "", w, "fastest", "time(us)", "vs nccl", w, "nccl", w,
          "fastest", "time(us)", "vs nccl", w, "nccl");
  for (size_t i = 0; i < r->nrows; i++) {
    if (seen_before(r, i)) continue;
    const cb_row *x = &r->rows[i];
    fprintf(out, "# %10zu  %8s  %6s", x->bytes, cb_dtype_name(x->dtype),
            cb_shape_op_column(r->coll->shape, x->op));
    if (rooted) fprintf(out, "  %6d", x->root);
    summary_cell(out, r, i, CB_OOP, w);
    summary_cell(out, r, i, CB_INP, w);
    fputc('\n', out);
  }
}

void cb_text_stress(FILE *out, const cb_report *r, const cb_stress_result *s) {
  const cb_kernel *k = r->coll->kernels[s->kernel];
  char lo[32], hi[32];
  cb_format_bytes(r->opts.sweep.min_bytes, lo, sizeof lo);
  cb_format_bytes(r->opts.sweep.max_bytes, hi, sizeof hi);
  fprintf(out,
          "#\n# stress kernel %d (%s): %lld random calls of %s..%s (%lld more the kernel cannot "
          "serve), %s mode, %.1f s: %lld wrong elements\n",
          k->id, k->name, s->calls, lo, hi, s->skipped, r->opts.graph_launches ? "graph" : "stream",
          s->seconds, s->wrong);
  fprintf(out,
          "#   each call on fresh %s data, up to %d different calls back to back and each batch "
          "run %d times over, with no host wait in between\n",
          cb_data_kind_name(r->opts.data), s->batch, s->replays);
}

/* "# Avg bus bandwidth    : 79.4945 " as nccl-tests prints it; "n/a" for
 * a kernel that measured nothing. verdict: NCCL_TESTS_MIN_BW's OK or
 * FAILED, or "" unchecked. */
static void avg_line(FILE *out, const char *label, const cb_report *r, int k, const char *verdict) {
  double avg = k >= 0 ? cb_report_avg_busbw(r, k) : NAN;
  if (isfinite(avg))
    fprintf(out, "# %-20s : %g %s\n", label, avg, verdict);
  else
    fprintf(out, "# %-20s : n/a %s\n", label, verdict);
}

/* nccl-tests' getMemString: binary units, 2 decimals below 10, 1 below 100. */
static void format_mem(long long bytes, char *buf, size_t len) {
  static const char *const units[] = {" B", " KB", " MB", " GB"};
  double v = (double)bytes;
  int u = 0;
  while (u < 3 && fabs(v) >= 1024.0) {
    v /= 1024.0;
    u++;
  }
  snprintf(buf, len, "%.*f%s", fabs(v) < 10.0 ? 2 : fabs(v) < 100.0 ? 1 : 0, v, units[u]);
}

/* -M: nccl-tests' "GPU memory usage" line (report.h says what each part is). */
static void memory_line(FILE *out, const cb_mem_use *m) {
  char init[32], user[32], coll[32], total[32];
  format_mem(m->init, init, sizeof init);
  format_mem(m->user, user, sizeof user);
  format_mem(m->coll, coll, sizeof coll);
  format_mem(m->init + m->user + m->coll, total, sizeof total);
  fprintf(out, "# %-20s : Initialization %s | User-Allocated %s | Collective %s | Total  %s\n",
          "GPU memory usage", init, user, coll, total);
}

void cb_text_footer(FILE *out, const cb_report *r) {
  cb_text_wrong_total(out, cb_report_wrong(r));
  const char *verdict = "";
  if (r->check_min_bw)
    verdict = cb_min_bw_failed(cb_report_headline_busbw(r), r->min_bw) ? "FAILED" : "OK";
  avg_line(out, "Avg bus bandwidth", r, cb_report_headline_kernel(r), verdict);
  if (kernels_ran(r) > 1) {
    for (int k = 0; k < r->coll->nkernels; k++) {
      if (!r->kernels_run[k]) continue;
      char label[48];
      /* Not "Avg bus bandwidth": a script that greps that must find one line. */
      snprintf(label, sizeof label, "Avg busbw %s", r->coll->kernels[k]->name);
      avg_line(out, label, r, k, "");
    }
    text_summary(out, r);
  }
  fprintf(out, "#\n# Collective test concluded: %s\n", r->program);
  if (r->has_mem) memory_line(out, &r->mem);
  fprintf(out, "#\n");
}
