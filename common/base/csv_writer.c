#include "csv_writer.h"

#include <math.h>
#include <string.h>

void cb_csv_string(FILE *out, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

void cb_csv_number(FILE *out, double v) {
  if (isfinite(v)) fprintf(out, "%.10g", v);
  fputc(',', out);
}

void cb_csv_count(FILE *out, long long v) {
  if (v >= 0) fprintf(out, "%lld", v);
  fputc(',', out);
}
