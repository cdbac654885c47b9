/* copy_perf's --osu sink: OSU's layout (report_osu.h: its headers and
 * rows), then the blocks copy_perf writes in it, one per direction,
 * kernel and measurement. */
#include "report_osu.h"

#include "copy_report.h"

static void header(FILE *out, const char *title, const char *column) {
  fprintf(out, "# %s\n", title);
  fprintf(out, "%-*s%*s\n", CB_OSU_SIZE_WIDTH, "# Size", CB_OSU_FIELD_WIDTH, column);
}

static void row(FILE *out, size_t size, double value) {
  fprintf(out, "%-*zu%*.2f\n", CB_OSU_SIZE_WIDTH, size, CB_OSU_FIELD_WIDTH, value);
}

void cb_osu_bw_header(FILE *out, const char *title) {
  header(out, title, "Bandwidth (MB/s)");
}
void cb_osu_bw_row(FILE *out, size_t size, double mb_per_s) {
  row(out, size, mb_per_s);
}
void cb_osu_latency_header(FILE *out, const char *title) {
  header(out, title, "Latency (us)");
}
void cb_osu_latency_row(FILE *out, size_t size, double us) {
  row(out, size, us);
}

/* ---- copy_perf's --osu sink ------------------------------------------------ */

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
             cb_copy_host_memory(&r->opts));
  else
    snprintf(title, sizeof title,
             "copy_perf Latency Test (collbench %s): %s, kernel %d (%s), median of %d, %s host "
             "memory%s",
             CB_VERSION, cb_copy_dir_name(d), kd->id, kd->name, r->opts.iters,
             cb_copy_host_memory(&r->opts), r->opts.post_gap_ns ? ", random post gaps" : "");
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
  if (r->floor.ran)
    fprintf(out,
            "# floor: CPU -> resident GPU kernel -> CPU flag round trip: p50 %.2f us, p99 %.2f us "
            "(%d trips)\n",
            r->floor.p50_us, r->floor.p99_us, r->floor.trips);
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
