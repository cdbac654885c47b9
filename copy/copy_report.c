/* copy_perf's sinks. The text table keeps collbench's style: a header per
 * kernel, one row per size with the time and algbw of each measurement and
 * #wrong, a closing "fastest per size" summary against kernel 0 (ce, the
 * copy engine), and nccl-tests' "Out of bounds values" line. */
#define _GNU_SOURCE /* strdup */
#include "copy_report.h"

#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"
#include "error.h"
#include "json_pieces.h"
#include "report_osu.h"

static const char *const measure_names[CB_COPY_NUM_MEASURES] = {"latency", "bandwidth"};

/* ---- the struct ------------------------------------------------------------ */

void cb_copy_report_init(cb_copy_report *r, const cb_copy_program *prog) {
  memset(r, 0, sizeof *r);
  r->prog = prog;
  r->kernel_skips = calloc((size_t)prog->nkernels, sizeof *r->kernel_skips);
  r->kd_skips = calloc((size_t)prog->nkernels * CB_NUM_DIRS, sizeof *r->kd_skips);
  if (!r->kernel_skips || !r->kd_skips) cb_fatal("out of host memory");
}

void cb_copy_report_free(cb_copy_report *r) {
  if (r->prog) {
    for (int k = 0; k < r->prog->nkernels; k++) {
      if (r->kernel_skips) free(r->kernel_skips[k]);
      for (int d = 0; d < CB_NUM_DIRS; d++)
        if (r->kd_skips) free(r->kd_skips[k * CB_NUM_DIRS + d]);
    }
  }
  for (int d = 0; d < CB_NUM_DIRS; d++) free(r->dir_notes[d]);
  free(r->kernel_skips);
  free(r->kd_skips);
  free(r->rows);
  free(r->devices);
  memset(r, 0, sizeof *r);
}

cb_copy_row *cb_copy_report_add(cb_copy_report *r, const cb_copy_row *row) {
  r->rows = cb_rows_reserve(r->rows, &r->cap, r->nrows, sizeof *r->rows);
  r->rows[r->nrows] = *row;
  return &r->rows[r->nrows++];
}

static char *dup_text(const char *s) {
  char *d = strdup(s);
  if (!d) cb_fatal("out of host memory");
  return d;
}

void cb_copy_report_kd_skip(cb_copy_report *r, int k, cb_copy_dir d, const char *why) {
  char **slot = &r->kd_skips[k * CB_NUM_DIRS + d];
  free(*slot);
  *slot = dup_text(why);
}

const char *cb_copy_report_kd_reason(const cb_copy_report *r, int k, cb_copy_dir d) {
  return r->kd_skips ? r->kd_skips[k * CB_NUM_DIRS + d] : NULL;
}

void cb_copy_report_dir_note(cb_copy_report *r, cb_copy_dir d, const char *why) {
  free(r->dir_notes[d]);
  r->dir_notes[d] = dup_text(why);
}

long long cb_copy_report_wrong(const cb_copy_report *r) {
  long long wrong = 0;
  for (size_t i = 0; i < r->nrows; i++)
    if (!r->rows[i].skip[0] && r->rows[i].wrong > 0) wrong += r->rows[i].wrong;
  return wrong;
}

int cb_copy_report_kernels_measured(const cb_copy_report *r) {
  int n = 0;
  for (int k = 0; k < r->prog->nkernels; k++)
    for (size_t i = 0; i < r->nrows; i++)
      if (r->rows[i].kernel == k && !r->rows[i].skip[0]) {
        n++;
        break;
      }
  return n;
}

static const char *host_memory(const cb_copy_options *o) {
  return o->pageable ? "pageable" : "pinned";
}

/* ---- text ------------------------------------------------------------------ */

void cb_copy_text_header(FILE *out, const cb_copy_report *r) {
  const cb_copy_options *o = &r->opts;
  int factor = o->sweep.step_factor > 1;
  fprintf(out, "# collbench version %s\n", CB_VERSION);
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

void cb_copy_text_kernel_header(FILE *out, const cb_copy_report *r, int kernel) {
  const cb_copy_kernel *k = &r->prog->kernels[kernel];
  fprintf(out, "#\n# kernel %d (%s): %s\n", k->id, k->name, k->summary);
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
 * (latency: time; bandwidth: algbw) and ce's time / its time. */
static void summary_cell(FILE *out, const cb_copy_report *r, size_t first, int m, int ref) {
  const cb_copy_row *best = NULL, *ce = NULL;
  for (size_t i = first; i < r->nrows; i++) {
    const cb_copy_row *x = &r->rows[i];
    if (!same_case(x, &r->rows[first]) || x->skip[0] || !x->m[m].ran) continue;
    if (!best || x->m[m].time_us < best->m[m].time_us) best = x;
    if (x->kernel == ref) ce = x;
  }
  if (!best) {
    cb_text_fastest_cell(out, NULL, 0, 0, 0, 0);
    return;
  }
  cb_text_fastest_cell(out, r->prog->kernels[best->kernel].name,
                       m == CB_COPY_LAT ? best->m[m].time_us : best->m[m].algbw, best->m[m].time_us,
                       ce != NULL, ce ? ce->m[m].time_us : 0);
}

static int seen_before(const cb_copy_report *r, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (same_case(&r->rows[j], &r->rows[i])) return 1;
  return 0;
}

static void text_summary(FILE *out, const cb_copy_report *r) {
  int ref = reference_kernel(r);
  fprintf(out, "#\n# Fastest kernel per size (vs ce = ce's time / the fastest time)\n");
  fprintf(out, "# %10s  %5s  ", "", "");
  group(out, "latency p50", 8 + 2 + 8 + 2 + 7);
  fputs("  ", out);
  group(out, "bandwidth", 8 + 2 + 8 + 2 + 7);
  fputc('\n', out);
  fprintf(out, "# %10s  %5s  %8s  %8s  %7s  %8s  %8s  %7s\n", "size", "dir", "fastest", "time(us)",
          "vs ce", "fastest", "GB/s", "vs ce");
  for (size_t i = 0; i < r->nrows; i++) {
    if (seen_before(r, i)) continue;
    const cb_copy_row *x = &r->rows[i];
    fprintf(out, "# %10zu  %5s", x->bytes, cb_copy_dir_name(x->dir));
    summary_cell(out, r, i, CB_COPY_LAT, ref);
    summary_cell(out, r, i, CB_COPY_BW, ref);
    fputc('\n', out);
  }
}

void cb_copy_text_footer(FILE *out, const cb_copy_report *r) {
  cb_text_wrong_total(out, cb_copy_report_wrong(r));
  if (cb_copy_report_kernels_measured(r) > 1) text_summary(out, r);
  fprintf(out, "#\n# Copy test concluded: %s\n#\n", r->program);
}

/* ---- OSU ------------------------------------------------------------------- */

static void osu_block(FILE *out, const cb_copy_report *r, int k, cb_copy_dir d, int m) {
  const cb_copy_kernel *kd = &r->prog->kernels[k];
  int any = 0;
  for (size_t i = 0; i < r->nrows; i++) any |= r->rows[i].kernel == k && r->rows[i].dir == d;
  if (!any) return;
  char title[256];
  if (m == CB_COPY_BW)
    snprintf(title, sizeof title,
             "copy_perf Bandwidth Test (collbench %s): %s, kernel %d (%s), window %d, %s host "
             "memory",
             CB_VERSION, cb_copy_dir_name(d), kd->id, kd->name, r->opts.window,
             host_memory(&r->opts));
  else
    snprintf(title, sizeof title,
             "copy_perf Latency Test (collbench %s): %s, kernel %d (%s), median of %d, %s host "
             "memory",
             CB_VERSION, cb_copy_dir_name(d), kd->id, kd->name, r->opts.iters,
             host_memory(&r->opts));
  (m == CB_COPY_BW ? cb_osu_bw_header : cb_osu_latency_header)(out, title);
  for (size_t i = 0; i < r->nrows; i++) {
    const cb_copy_row *x = &r->rows[i];
    if (x->kernel != k || x->dir != d) continue;
    if (x->skip[0]) {
      fprintf(out, "# %zu skipped: %s\n", x->bytes, x->skip);
    } else if (m == CB_COPY_BW) {
      cb_osu_bw_row(out, x->bytes, x->m[m].algbw * 1e3); /* GB/s to MB/s, both decimal */
    } else {
      cb_osu_latency_row(out, x->bytes, x->m[m].time_us);
    }
  }
}

void cb_copy_osu_write(FILE *out, const cb_copy_report *r) {
  for (int d = 0; d < CB_NUM_DIRS; d++) {
    if (!(r->opts.dirs & CB_DIR_BIT(d))) continue;
    if (r->dir_notes[d])
      fprintf(out, "# %s skipped: %s\n", cb_copy_dir_name((cb_copy_dir)d), r->dir_notes[d]);
    for (int k = 0; k < r->prog->nkernels; k++) {
      const char *why =
          r->kernel_skips[k] ? r->kernel_skips[k] : cb_copy_report_kd_reason(r, k, (cb_copy_dir)d);
      if (!r->kernels_run[k] && !r->kernel_skips[k]) continue; /* not selected */
      if (why) {
        fprintf(out, "# %s kernel %d (%s) skipped: %s\n", cb_copy_dir_name((cb_copy_dir)d),
                r->prog->kernels[k].id, r->prog->kernels[k].name, why);
        continue;
      }
      for (int m = CB_COPY_BW; m >= CB_COPY_LAT; m--) osu_block(out, r, k, (cb_copy_dir)d, m);
    }
  }
  cb_text_wrong_total(out, cb_copy_report_wrong(r));
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_options(cb_json *j, const cb_copy_options *o) {
  cb_json_key(j, "options");
  cb_json_begin_object(j);
  cb_json_sweep_options(j, &o->sweep, o->iters, o->warmup, o->check);
  cb_json_key(j, "ngpus"), cb_json_int(j, o->gpus);
  cb_json_key(j, "timeout"), cb_json_int(j, o->timeout_s);
  cb_json_key(j, "direction");
  cb_json_begin_array(j);
  for (int d = 0; d < CB_NUM_DIRS; d++)
    if (o->dirs & CB_DIR_BIT(d)) cb_json_string(j, cb_copy_dir_name((cb_copy_dir)d));
  cb_json_end_array(j);
  cb_json_key(j, "window"), cb_json_int(j, o->window);
  cb_json_key(j, "host_memory"), cb_json_string(j, host_memory(o));
  cb_json_key(j, "osu"), cb_json_bool(j, o->osu);
  cb_json_key(j, "kernel"), cb_json_string(j, o->kernels);
  cb_json_end_object(j);
}

static void json_kernels(cb_json *j, const cb_copy_report *r) {
  cb_json_key(j, "kernels");
  cb_json_begin_array(j);
  for (int k = 0; k < r->prog->nkernels; k++) {
    const cb_copy_kernel *kd = &r->prog->kernels[k];
    const char *skip = r->kernel_skips[k];
    if (!r->kernels_run[k] && !skip) continue; /* not selected by -k */
    cb_json_kernel_begin(j, kd->id, kd->name, kd->summary, r->kernels_run[k], skip);
    cb_json_key(j, "skipped_directions");
    cb_json_begin_object(j);
    for (int d = 0; d < CB_NUM_DIRS; d++) {
      const char *why = cb_copy_report_kd_reason(r, k, (cb_copy_dir)d);
      if (why) cb_json_key(j, cb_copy_dir_name((cb_copy_dir)d)), cb_json_string(j, why);
    }
    cb_json_end_object(j);
    cb_json_end_object(j);
  }
  cb_json_end_array(j);
}

/* One measurement; the keys of the collective programs' rows are there
 * too (type uint8: bytes; no op or root; out of place; stream mode), so
 * readers of those find what they expect. */
static void json_measure(cb_json *j, const cb_copy_report *r, const cb_copy_row *row, int m) {
  const cb_copy_kernel *k = &r->prog->kernels[row->kernel];
  const cb_copy_measure *x = &row->m[m];
  cb_json_begin_object(j);
  cb_json_key(j, "kernel"), cb_json_int(j, k->id);
  cb_json_key(j, "kernel_name"), cb_json_string(j, k->name);
  cb_json_key(j, "direction"), cb_json_string(j, cb_copy_dir_name(row->dir));
  cb_json_key(j, "measurement"), cb_json_string(j, measure_names[m]);
  cb_json_key(j, "host_memory"), cb_json_string(j, host_memory(&r->opts));
  cb_json_call_keys(j, "uint8", "none", -1, row->bytes, row->bytes, "out-of-place", "stream");
  if (row->skip[0]) {
    cb_json_key(j, "skipped"), cb_json_string(j, row->skip);
  } else {
    cb_json_key(j, "copies"), cb_json_int(j, x->copies);
    cb_json_key(j, "iterations"), cb_json_int(j, x->samples);
    cb_json_key(j, "time_us"), cb_json_double(j, x->time_us);
    if (m == CB_COPY_LAT) cb_json_key(j, "p99_us"), cb_json_double(j, x->p99_us);
    /* One link: bus bandwidth = algorithm bandwidth. */
    cb_json_measure_tail(j, x->algbw, x->algbw, row->wrong, x->has_stats ? &x->stats : NULL);
  }
  cb_json_end_object(j);
}

int cb_copy_json_write(FILE *out, const cb_copy_report *r) {
  cb_json j;
  cb_json_init(&j, out);
  cb_json_begin_object(&j);
  cb_json_run_head(&j, r->program, "copy", r->date, r->nranks);
  json_options(&j, &r->opts);
  cb_json_versions(&j, NULL, r->cuda_runtime, r->cuda_driver, r->mpi);
  cb_json_devices(&j, r->devices, r->nranks);
  json_kernels(&j, r);
  cb_json_key(&j, "skipped_directions");
  cb_json_begin_object(&j);
  for (int d = 0; d < CB_NUM_DIRS; d++)
    if (r->dir_notes[d])
      cb_json_key(&j, cb_copy_dir_name((cb_copy_dir)d)), cb_json_string(&j, r->dir_notes[d]);
  cb_json_end_object(&j);
  cb_json_key(&j, "results");
  cb_json_begin_array(&j);
  for (size_t i = 0; i < r->nrows; i++)
    for (int m = 0; m < CB_COPY_NUM_MEASURES; m++) json_measure(&j, r, &r->rows[i], m);
  cb_json_end_array(&j);
  cb_json_key(&j, "wrong_total"), cb_json_int(&j, cb_copy_report_wrong(r));
  cb_json_end_object(&j);
  return ferror(out) ? -1 : 0;
}

/* ---- CSV ------------------------------------------------------------------- */

const char cb_copy_csv_header[] =
    "program,kernel,kernel_name,direction,measurement,host_memory,size,copies,iterations,time_us,"
    "p50_us,p99_us,algbw,wrong,skipped";

int cb_copy_csv_write(FILE *out, const cb_copy_report *r) {
  fprintf(out, "%s\n", cb_copy_csv_header);
  for (size_t i = 0; i < r->nrows; i++) {
    const cb_copy_row *row = &r->rows[i];
    const cb_copy_kernel *k = &r->prog->kernels[row->kernel];
    for (int m = 0; m < CB_COPY_NUM_MEASURES; m++) {
      const cb_copy_measure *x = &row->m[m];
      fprintf(out, "%s,%d,", r->program, k->id);
      cb_csv_string(out, k->name);
      fprintf(out, ",%s,%s,%s,%zu,", cb_copy_dir_name(row->dir), measure_names[m],
              host_memory(&r->opts), row->bytes);
      if (row->skip[0]) {
        fputs(",,,,,,,", out);
        cb_csv_string(out, row->skip);
        fputc('\n', out);
        continue;
      }
      fprintf(out, "%d,%d,", x->copies, x->samples);
      cb_csv_number(out, x->time_us);
      if (m == CB_COPY_LAT) {
        cb_csv_number(out, x->time_us);
        cb_csv_number(out, x->p99_us);
      } else {
        fputs(",,", out);
      }
      cb_csv_number(out, x->algbw);
      if (row->wrong >= 0) fprintf(out, "%lld", row->wrong);
      fputs(",\n", out);
    }
  }
  return ferror(out) ? -1 : 0;
}
