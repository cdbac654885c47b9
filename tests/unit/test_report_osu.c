/* copy_perf's --osu layout against real osu_bw/osu_latency lines
 * (tests/fixtures/osu_5.4.3_excerpt.txt, from a published OSU 5.4.3 run). */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report_osu.h"

/* Renders with fn into a string. */
static char *render(void (*fn)(FILE *, size_t, double), size_t size, double v) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  fn(f, size, v);
  fclose(f);
  return buf;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  FILE *fx = fopen(argv[1], "r");
  CHECK(fx != NULL);
  if (!fx) return check_summary();
  char *line = NULL;
  size_t cap = 0;
  int latency = 0, rows = 0;
  while (getline(&line, &cap, fx) > 0) {
    if (strstr(line, "Latency Test")) latency = 1;
    if (strncmp(line, "# Size", 6) == 0) {
      char *buf = NULL;
      size_t len = 0;
      FILE *f = open_memstream(&buf, &len);
      (latency ? cb_osu_latency_header : cb_osu_bw_header)(f, "x");
      fclose(f);
      CHECK_STR(strchr(buf, '\n') + 1, line); /* the column line, byte for byte */
      free(buf);
      continue;
    }
    if (line[0] == '#') continue;
    size_t size = strtoull(line, NULL, 10);
    double v = strtod(line + 10, NULL);
    char *got = render(latency ? cb_osu_latency_row : cb_osu_bw_row, size, v);
    CHECK_STR(got, line);
    free(got);
    rows++;
  }
  free(line);
  fclose(fx);
  CHECK_EQ_INT(rows, 7);
  return check_summary();
}
