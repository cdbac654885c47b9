#include "text_pieces.h"

#include <stdio.h>

void cb_text_mutant(FILE *out) {
#ifdef CB_MUTATION
  fprintf(
      out,
      "# MUTANT BUILD (COLLBENCH_MUTATE=%s): a wait, an ordering or a bound was broken on purpose; "
      "its results are wrong by design\n",
      CB_MUTATION);
#else
  (void)out;
#endif
}

void cb_format_fixed(double v, int width, char *buf) {
  if (snprintf(buf, (size_t)width + 1, "%*.2f", width, v) <= width) return;
  if (snprintf(buf, (size_t)width + 1, "%*.1f", width, v) <= width) return;
  if (snprintf(buf, (size_t)width + 1, "%*.0f", width, v) <= width) return;
  snprintf(buf, (size_t)width + 1, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

void cb_text_devices(FILE *out, const cb_device_info *devices, int n) {
  fprintf(out, "#\n# Using devices\n");
  for (int i = 0; i < n; i++) {
    const cb_device_info *d = &devices[i];
    fprintf(out, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n", d->rank, d->group,
            d->pid, d->host, d->device, d->pci, d->name);
  }
}

void cb_text_kernel_skipped(FILE *out, int id, const char *name, const char *why) {
  fprintf(out, "#\n# kernel %d (%s) skipped: %s\n", id, name, why);
}

void cb_text_wrong_total(FILE *out, long long wrong) {
  fprintf(out, "# %-20s : %lld %s\n", "Out of bounds values", wrong, wrong ? "FAILED" : "OK");
}

void cb_text_fastest_cell(FILE *out, int name_width, const char *name, double value, double time_us,
                          int has_ref, double ref_us) {
  if (!name) {
    fprintf(out, "  %*s  %8s  %7s", name_width, "-", "-", "-");
    return;
  }
  char v[16], ratio[16] = "-";
  cb_format_fixed(value, 8, v);
  if (has_ref && time_us > 0) snprintf(ratio, sizeof ratio, "%.2fx", ref_us / time_us);
  fprintf(out, "  %*s  %8s  %7s", name_width, name, v, ratio);
}
