#include "report_osu.h"

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
