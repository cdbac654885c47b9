/* The text table. Column widths and number formats are nccl-tests' own, so
 * scripts that parse nccl-tests output read collbench's unchanged. */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

void cb_text_header(FILE *out, const cb_report *r) {
  const cb_options *o = &r->opts;
  int factor = o->sweep.step_factor > 1;
  fprintf(out, "# collbench version %s nccl-headers=%d nccl-library=%d\n", CB_VERSION,
          r->nccl_header, r->nccl_library);
  fprintf(out, "# Collective test starting: %s\n", r->program);
  fprintf(out,
          "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d "
          "iters: %d agg iters: 1 validation: %d graph: %d unalign: %d\n",
          o->threads, o->gpus, (unsigned long long)o->sweep.min_bytes,
          (unsigned long long)o->sweep.max_bytes,
          (unsigned long long)(factor ? o->sweep.step_factor : o->sweep.step_bytes),
          factor ? "factor" : "bytes", o->warmup, o->iters, o->check, o->graph_launches,
          o->unalign);
#ifdef CB_MUTATION
  fprintf(out,
          "# MUTANT BUILD (COLLBENCH_MUTATE=%s): a wait was removed on purpose; its results "
          "are wrong by design\n",
          CB_MUTATION);
#endif
  if (o->data == CB_DATA_RANDOM)
    fprintf(out, "# data: random values; floating-point reductions within a tolerance of a "
                 "float64 reference, everything else bit for bit\n");
  if (o->blocking) fprintf(out, "# Blocking Enabled: wait for each iteration before the next\n");
  text_timer_and_nccl_flags(out, o);
  cb_text_devices(out, r->devices, r->nranks);
  for (int k = 0; k < r->coll->nkernels; k++)
    if (r->kernel_skips && r->kernel_skips[k])
      cb_text_kernel_skipped(out, r->coll->kernels[k].id, r->coll->kernels[k].name,
                             r->kernel_skips[k]);
}

void cb_text_kernel_header(FILE *out, const cb_report *r, int kernel) {
  const cb_kernel *k = &r->coll->kernels[kernel];
  fprintf(out, "#\n# kernel %d (%s): %s\n", k->id, k->name, k->summary);
  fprintf(out,
          "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place  "
          "        \n",
          "", "", "", "", "");
  fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "size",
          "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
          "busbw", "#wrong");
  fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "(B)",
          "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

static void text_measure(FILE *out, const cb_measure *m) {
  if (!m->ran) {
    fprintf(out, "  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
    return;
  }
  char t[16], a[16], b[16];
  cb_format_fixed(m->time_us, 7, t);
  cb_format_fixed(m->algbw, 6, a);
  cb_format_fixed(m->busbw, 6, b);
  if (m->wrong >= 0)
    fprintf(out, "  %7s  %6s  %6s  %6g", t, a, b, (double)m->wrong);
  else
    fprintf(out, "  %7s  %6s  %6s    N/A", t, a, b);
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
  text_measure(out, &m[CB_OOP]);
  text_measure(out, &m[CB_INP]);
  for (int p = 0; p < 2; p++)
    if (!m[p].ran) fprintf(out, "  # %s: %s", p ? "in-place" : "out-of-place", m[p].skip);
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

/* One placement of the summary: the fastest kernel, its time, and its
 * speed-up over the fastest of NCCL's variants (nccl, nccl-sym, nccl-ce)
 * that ran at this size, which the last column names. */
static void summary_cell(FILE *out, const cb_report *r, size_t first, int p) {
  const cb_row *best = NULL, *nccl = NULL;
  for (size_t i = first; i < r->nrows; i++) {
    const cb_row *x = &r->rows[i];
    if (!same_case(x, &r->rows[first]) || !x->m[p].ran) continue;
    if (!best || x->m[p].time_us < best->m[p].time_us) best = x;
    if (cb_catalogue_is_nccl(r->coll->kernels[x->kernel].id) &&
        (!nccl || x->m[p].time_us < nccl->m[p].time_us))
      nccl = x;
  }
  if (!best) {
    cb_text_fastest_cell(out, NULL, 0, 0, 0, 0);
    fprintf(out, "  %8s", "-");
    return;
  }
  cb_text_fastest_cell(out, r->coll->kernels[best->kernel].name, best->m[p].time_us,
                       best->m[p].time_us, nccl != NULL, nccl ? nccl->m[p].time_us : 0);
  fprintf(out, "  %8s", nccl ? r->coll->kernels[nccl->kernel].name : "-");
}

static int seen_before(const cb_report *r, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (same_case(&r->rows[j], &r->rows[i])) return 1;
  return 0;
}

/* Rooted collectives (a row per root with -r all) get a root column. */
static void text_summary(FILE *out, const cb_report *r) {
  const int rooted = r->coll->shape->rooted;
  fprintf(out, "#\n# Fastest kernel per size (vs nccl = the fastest NCCL variant's time / the "
               "fastest time, same placement; nccl: that variant)\n");
  fprintf(out, "# %10s  %8s  %6s%s  %37s  %37s\n", "", "", "", rooted ? "        " : "",
          "out-of-place", "in-place");
  fprintf(out, "# %10s  %8s  %6s%s  %8s  %8s  %7s  %8s  %8s  %8s  %7s  %8s\n", "size", "type",
          "redop", rooted ? "    root" : "", "fastest", "time(us)", "vs nccl", "nccl", "fastest",
          "time(us)", "vs nccl", "nccl");
  for (size_t i = 0; i < r->nrows; i++) {
    if (seen_before(r, i)) continue;
    const cb_row *x = &r->rows[i];
    fprintf(out, "# %10zu  %8s  %6s", x->bytes, cb_dtype_name(x->dtype),
            cb_shape_op_column(r->coll->shape, x->op));
    if (rooted) fprintf(out, "  %6d", x->root);
    summary_cell(out, r, i, CB_OOP);
    summary_cell(out, r, i, CB_INP);
    fputc('\n', out);
  }
}

void cb_text_stress(FILE *out, const cb_report *r, const cb_stress_result *s) {
  const cb_kernel *k = &r->coll->kernels[s->kernel];
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

/* The kernel whose mean the first "# Avg bus bandwidth" line gives: the
 * line keeps nccl-tests' meaning (NCCL's average over the run) for scripts
 * that grep it, so it is NCCL's (kernel id 0) when NCCL ran, else the first
 * kernel of the table that ran (the only one, when one ran). -1: none ran. */
static int first_avg_kernel(const cb_report *r) {
  int first = -1;
  for (int k = 0; k < r->coll->nkernels; k++) {
    if (!r->kernels_run[k]) continue;
    if (r->coll->kernels[k].id == 0) return k;
    if (first < 0) first = k;
  }
  return first;
}

/* "# Avg bus bandwidth    : 79.4945 " as nccl-tests prints it; "n/a" for
 * a kernel that measured nothing. */
static void avg_line(FILE *out, const char *label, const cb_report *r, int k) {
  double avg = k >= 0 ? cb_report_avg_busbw(r, k) : NAN;
  if (isfinite(avg))
    fprintf(out, "# %-20s : %g \n", label, avg);
  else
    fprintf(out, "# %-20s : n/a \n", label);
}

void cb_text_footer(FILE *out, const cb_report *r) {
  cb_text_wrong_total(out, cb_report_wrong(r));
  avg_line(out, "Avg bus bandwidth", r, first_avg_kernel(r));
  if (kernels_ran(r) > 1) {
    for (int k = 0; k < r->coll->nkernels; k++) {
      if (!r->kernels_run[k]) continue;
      char label[48];
      snprintf(label, sizeof label, "Avg bus bandwidth %s", r->coll->kernels[k].name);
      avg_line(out, label, r, k);
    }
    text_summary(out, r);
  }
  fprintf(out, "#\n# Collective test concluded: %s\n#\n", r->program);
}
