#include "sizes.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

cb_size_parse cb_parse_size(const char *text, uint64_t *out) {
  if (!text || !isdigit((unsigned char)text[0])) return CB_SIZE_BAD; /* no sign, no blanks */
  errno = 0;
  char *end;
  unsigned long long v = strtoull(text, &end, 10);
  int wrapped = errno == ERANGE; /* digits beyond 2^64: still a number, just too large */
  if (errno && !wrapped) return CB_SIZE_BAD;
  uint64_t unit = 1;
  switch (*end) {
  case '\0':
    break;
  case 'k':
  case 'K':
    unit = 1ull << 10;
    end++;
    break;
  case 'm':
  case 'M':
    unit = 1ull << 20;
    end++;
    break;
  case 'g':
  case 'G':
    unit = 1ull << 30;
    end++;
    break;
  default:
    return CB_SIZE_BAD;
  }
  if (*end == 'B' || *end == 'b') end++; /* "64KB" reads as 64 KiB */
  if (*end != '\0') return CB_SIZE_BAD;
  if (wrapped || v > CB_SIZE_MAX / unit) return CB_SIZE_TOO_LARGE;
  *out = (uint64_t)v * unit;
  return CB_SIZE_OK;
}

void cb_format_bytes(uint64_t bytes, char *buf, size_t len) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = (double)bytes;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    u++;
  }
  if (v == (double)(uint64_t)v)
    snprintf(buf, len, "%llu %s", (unsigned long long)v, units[u]);
  else
    snprintf(buf, len, "%.2f %s", v, units[u]);
}

/* Next size after cur, or 0 when the step would overflow or not advance. */
static uint64_t sweep_next(const cb_sweep *s, uint64_t cur) {
  if (s->step_factor > 1) {
    if (cur > UINT64_MAX / s->step_factor) return 0;
    return cur * s->step_factor;
  }
  if (s->step_bytes == 0 || cur > UINT64_MAX - s->step_bytes) return 0;
  return cur + s->step_bytes;
}

size_t cb_sweep_count(const cb_sweep *s) {
  size_t n = 0;
  for (uint64_t b = s->min_bytes; b && b <= s->max_bytes; b = sweep_next(s, b)) n++;
  return n;
}

uint64_t cb_sweep_size(const cb_sweep *s, size_t i) {
  uint64_t b = s->min_bytes;
  while (i-- > 0) b = sweep_next(s, b);
  return b;
}
