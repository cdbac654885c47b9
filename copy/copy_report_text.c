/* copy_perf's text table, in collbench's style: a header per kernel, one
 * row per size with the time and algbw of each measurement and #wrong, a
 * closing "fastest per size" summary against kernel 0 (ce, the copy
 * engine) and the floor (copy_floor.h), and nccl-tests' "Out of bounds
 * values" line. */
#include <string.h>

#include "copy_report.h"

void cb_copy_text_header(FILE *out, const cb_copy_report *r) {
  const cb_copy_options *o = &r->opts;
  int factor = o->sweep.step_factor > 1;
  fprintf(out, "# collbench version %s\n", CB_VERSION);
  cb_text_mutant(out);
  fprintf(out, "# Copy test starting: %s\n", r->program);
  fprintf(out,
          "# nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d "
          "window: %d validation: %d\n",
          o->gpus, (unsigned long long)o->sweep.min_bytes, (unsigned long long)o->sweep.max_bytes,
          (unsigned long long)(factor ? o->sweep.step_factor : o->sweep.step_bytes),
          factor ? "factor" : "bytes", o->warmup, o->iters, o->window, o->check);
  fprintf(out, "# host memory: %s\n",
          o->pageable ? "pageable (malloc)" : "pinned (cudaHostAlloc, mapped, portable)");
  fprintf(out,
          "# latency: one copy, then wait for it (p50 and p99 of %d); bandwidth: %d copies in "
          "flight, then one wait, as osu_bw (time per copy); host clock\n",
          o->iters, o->window);
  if (o->post_gap_ns)
    fprintf(out,
            "# post gap: each latency copy and floor trip posted after a random 0..%d ns wait, "
            "outside the timing\n",
            o->post_gap_ns);
  if (r->floor.ran)
    fprintf(out,
            "# floor: CPU -> resident GPU kernel -> CPU flag round trip: p50 %.2f us, p99 %.2f us "
            "(%d trips)\n",
            r->floor.p50_us, r->floor.p99_us, r->floor.trips);
  cb_text_devices(out, r->devices, r->nranks);
  if (r->nranks > 2)
    fprintf(out, "#  Ranks 2..%d idle: rank 0 copies (h2d, d2h) and copies to rank 1 (d2d)\n",
            r->nranks - 1);
  for (int k = 0; k < r->prog->nkernels; k++)
    if (r->kernel_skips && r->kernel_skips[k])
      cb_text_kernel_skipped(out, r->prog->kernels[k].id, r->prog->kernels[k].name,
                             r->kernel_skips[k]);
}

void cb_copy_text_dir_header(FILE *out, const cb_copy_report *r, cb_copy_dir d, const char *what) {
  (void)r;
  fprintf(out, "#\n# %s: %s\n", cb_copy_dir_name(d), what);
}

void cb_copy_text_dir_note(FILE *out, cb_copy_dir d, const char *why) {
  fprintf(out, "#\n# %s skipped: %s\n", cb_copy_dir_name(d), why);
}

/* label centred in width characters of '-', for the column group line. */
static void group(FILE *out, const char *label, int width) {
  int len = (int)strlen(label) + 2, left = (width - len) / 2, right = width - len - left;
  for (int i = 0; i < left; i++) fputc('-', out);
  fprintf(out, " %s ", label);
  for (int i = 0; i < right; i++) fputc('-', out);
}

/* Column widths: size, dir, then time, p99, algbw of latency and time,
 * algbw of bandwidth, then #wrong. */
#define LAT_SPAN (8 + 2 + 8 + 2 + 6)
#define BW_SPAN  (8 + 2 + 6)

void cb_copy_text_kernel_header(FILE *out, const cb_copy_report *r, int kernel,
                                const char *protocol) {
  const cb_copy_kernel *k = &r->prog->kernels[kernel];
  fprintf(out, "#\n# kernel %d (%s): %s\n", k->id, k->name, k->summary);
  if (protocol) fprintf(out, "# %s\n", protocol);
  fprintf(out, "# %10s  %5s  ", "", "");
  group(out, "latency", LAT_SPAN);
  fputs("  ", out);
  group(out, "bandwidth", BW_SPAN);
  fputc('\n', out);
  fprintf(out, "# %10s  %5s  %8s  %8s  %6s  %8s  %6s  %6s\n", "size", "dir", "time", "p99", "algbw",
          "time", "algbw", "#wrong");
  fprintf(out, "# %10s  %5s  %8s  %8s  %6s  %8s  %6s  %6s\n", "(B)", "", "(us)", "(us)", "(GB/s)",
          "(us)", "(GB/s)", "");
}

void cb_copy_text_kernel_skip(FILE *out, const cb_copy_report *r, int kernel, cb_copy_dir d,
                              const char *why) {
  const cb_copy_kernel *k = &r->prog->kernels[kernel];
  fprintf(out, "#\n# kernel %d (%s) skipped for %s: %s\n", k->id, k->name, cb_copy_dir_name(d),
          why);
}

static void text_cell(FILE *out, double v, int width) {
  char buf[32];
  cb_format_fixed(v, width, buf);
  fprintf(out, "  %s", buf);
}

void cb_copy_text_row(FILE *out, const cb_copy_row *row) {
  if (row->skip[0]) {
    fprintf(out, "# %10zu  %5s  skipped: %s\n", row->bytes, cb_copy_dir_name(row->dir), row->skip);
    return;
  }
  const cb_copy_measure *lat = &row->m[CB_COPY_LAT], *bw = &row->m[CB_COPY_BW];
  fprintf(out, "%12zu  %5s", row->bytes, cb_copy_dir_name(row->dir));
  text_cell(out, lat->time_us, 8);
  text_cell(out, lat->p99_us, 8);
  text_cell(out, lat->algbw, 6);
  text_cell(out, bw->time_us, 8);
  text_cell(out, bw->algbw, 6);
  if (row->wrong >= 0)
    fprintf(out, "  %6lld\n", row->wrong);
  else
    fprintf(out, "  %6s\n", "N/A");
}

/* Index of kernel id 0 (ce, the reference) in the table, or -1. */
static int reference_kernel(const cb_copy_report *r) {
  for (int k = 0; k < r->prog->nkernels; k++)
    if (r->prog->kernels[k].id == 0) return k;
  return -1;
}

static int same_case(const cb_copy_row *a, const cb_copy_row *b) {
  return a->dir == b->dir && a->bytes == b->bytes;
}

/* One measurement of the summary: the fastest kernel's name, its value
 * (latency: time; bandwidth: algbw) and ce's time / its time. Returns the
 * fastest row, or NULL. */
static const cb_copy_row *summary_cell(FILE *out, const cb_copy_report *r, size_t first, int m,
                                       int ref) {
  const cb_copy_row *best = NULL, *ce = NULL;
  for (size_t i = first; i < r->nrows; i++) {
    const cb_copy_row *x = &r->rows[i];
    if (!same_case(x, &r->rows[first]) || x->skip[0] || !x->m[m].ran) continue;
    if (!best || x->m[m].time_us < best->m[m].time_us) best = x;
    if (x->kernel == ref) ce = x;
  }
  if (!best) {
    cb_text_fastest_cell(out, CB_SUMMARY_NAME_WIDTH, NULL, 0, 0, 0, 0);
    return NULL;
  }
  cb_text_fastest_cell(out, CB_SUMMARY_NAME_WIDTH, r->prog->kernels[best->kernel].name,
                       m == CB_COPY_LAT ? best->m[m].time_us : best->m[m].algbw, best->m[m].time_us,
                       ce != NULL, ce ? ce->m[m].time_us : 0);
  return best;
}

static int seen_before(const cb_copy_report *r, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (same_case(&r->rows[j], &r->rows[i])) return 1;
  return 0;
}

/* The fastest latency's distance to the floor: "+0.42" (us), or "-". */
static void over_floor_cell(FILE *out, const cb_copy_report *r, const cb_copy_row *best) {
  char v[16] = "-";
  double us;
  if (best && cb_copy_over_floor(r, best, &us)) snprintf(v, sizeof v, "%+.2f", us);
  fprintf(out, "  %10s", v);
}

static void text_summary(FILE *out, const cb_copy_report *r) {
  int ref = reference_kernel(r);
  fprintf(out, "#\n# Fastest kernel per size (vs ce = ce's time / the fastest time; over floor = "
               "the fastest latency less the floor's p50, us)\n");
  fprintf(out, "# %10s  %5s  ", "", "");
  group(out, "latency p50", 8 + 2 + 8 + 2 + 7 + 2 + 10);
  fputs("  ", out);
  group(out, "bandwidth", 8 + 2 + 8 + 2 + 7);
  fputc('\n', out);
  fprintf(out, "# %10s  %5s  %8s  %8s  %7s  %10s  %8s  %8s  %7s\n", "size", "dir", "fastest",
          "time(us)", "vs ce", "over floor", "fastest", "GB/s", "vs ce");
  for (size_t i = 0; i < r->nrows; i++) {
    if (seen_before(r, i)) continue;
    const cb_copy_row *x = &r->rows[i];
    fprintf(out, "# %10zu  %5s", x->bytes, cb_copy_dir_name(x->dir));
    over_floor_cell(out, r, summary_cell(out, r, i, CB_COPY_LAT, ref));
    summary_cell(out, r, i, CB_COPY_BW, ref);
    fputc('\n', out);
  }
}

void cb_copy_text_footer(FILE *out, const cb_copy_report *r) {
  cb_text_wrong_total(out, cb_copy_report_wrong(r));
  if (cb_copy_report_kernels_measured(r) > 1) text_summary(out, r);
  fprintf(out, "#\n# Copy test concluded: %s\n#\n", r->program);
}
