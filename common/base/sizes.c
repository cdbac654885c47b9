#include "sizes.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Bytes per unit letter (K, M, G, either case; as nccl-tests, no T: no GPU
 * holds a TiB buffer), 1 for none; 0 for any other letter. Advances *p past it. */
static uint64_t unit_of(const char **p) {
  switch (**p) {
  case '\0':
  case 'b':
  case 'B':
    return 1;
  case 'k':
  case 'K':
    return (*p)++, 1ull << 10;
  case 'm':
  case 'M':
    return (*p)++, 1ull << 20;
  case 'g':
  case 'G':
    return (*p)++, 1ull << 30;
  default:
    return 0;
  }
}

/* Decimal places kept after the point: 10^18 still fits in 64 bits. */
#define FRACTION_DIGITS 18

cb_size_parse cb_parse_size(const char *text, uint64_t *out) {
  /* No sign, no blanks: a digit, or a point and a digit (".5K"). */
  if (!text ||
      !(isdigit((unsigned char)text[0]) || (text[0] == '.' && isdigit((unsigned char)text[1]))))
    return CB_SIZE_BAD;
  errno = 0;
  char *end = (char *)text;
  unsigned long long whole = 0;
  if (isdigit((unsigned char)text[0])) whole = strtoull(text, &end, 10);
  int wrapped = errno == ERANGE; /* digits beyond 2^64: still a number, just too large */
  if (errno && !wrapped) return CB_SIZE_BAD;
  /* A fraction, as nccl-tests takes "-b 1.5M": digits after the point. */
  uint64_t frac = 0, scale = 1;
  if (*end == '.') {
    for (end++; isdigit((unsigned char)*end); end++) {
      if (scale == 1000000000000000000ull) return CB_SIZE_BAD; /* more than FRACTION_DIGITS */
      frac = frac * 10 + (uint64_t)(*end - '0');
      scale *= 10;
    }
  }
  const char *p = end;
  uint64_t unit = unit_of(&p);
  if (!unit) return CB_SIZE_BAD;
  /* "64KB" and "64KiB" read as 64 KiB, "8B" as 8 bytes (docs/options.md, Sizes). */
  if (unit > 1 && (*p == 'i' || *p == 'I') && (p[1] == 'B' || p[1] == 'b')) p++;
  if (*p == 'B' || *p == 'b') p++;
  if (*p != '\0') return CB_SIZE_BAD;
  /* frac / scale of a unit must be whole bytes: 1.5K is 1536, 1.3K is not a byte count. */
  unsigned __int128 part = (unsigned __int128)frac * unit;
  if (part % scale != 0) return CB_SIZE_FRACTION;
  uint64_t part_bytes = (uint64_t)(part / scale);
  if (wrapped || whole > CB_SIZE_MAX / unit || whole * unit > CB_SIZE_MAX - part_bytes)
    return CB_SIZE_TOO_LARGE;
  *out = (uint64_t)whole * unit + part_bytes;
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
