#include "nccl_tests_env.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A whole number from 0 to INT_MAX in base (0: C's rules, 0x and 0 prefixes),
 * nothing after it; -1 on anything else. */
static int parse_count(const char *s, int base, int *out) {
  if (!isxdigit((unsigned char)*s)) return -1; /* no sign, no blank */
  errno = 0;
  char *end;
  unsigned long v = strtoul(s, &end, base);
  if (errno || end == s || *end != '\0' || v > INT_MAX) return -1;
  *out = (int)v;
  return 0;
}

/* NCCL_TESTS_SPLIT's value as nccl-tests' parseInt reads it: blanks first,
 * then 0b binary, else C's rules (decimal, 0x hexadecimal, 0 octal). */
static int parse_split_value(const char *s, int *out) {
  while (isspace((unsigned char)*s)) s++;
  if (strncasecmp(s, "0b", 2) == 0)
    return isdigit((unsigned char)s[2]) ? parse_count(s + 2, 2, out) : -1;
  return isdigit((unsigned char)*s) ? parse_count(s, 0, out) : -1;
}

typedef struct {
  const char *word, *symbol;
  char op;
} split_op;

static const split_op split_ops[] = {
    {"AND", "&", '&'}, {"OR", "|", '|'}, {"MOD", "%", '%'}, {"DIV", "/", '/'}};

/* The operation split starts with (its text past it in *rest), or NULL. */
static const split_op *split_op_of(const char *split, const char **rest) {
  for (size_t i = 0; i < sizeof split_ops / sizeof split_ops[0]; i++) {
    const split_op *o = &split_ops[i];
    size_t wl = strlen(o->word), sl = strlen(o->symbol);
    if (strncasecmp(split, o->word, wl) == 0) {
      *rest = split + wl;
      return o;
    }
    if (strncmp(split, o->symbol, sl) == 0) {
      *rest = split + sl;
      return o;
    }
  }
  return NULL;
}

static const char *split_from_mask(const char *mask, int proc, int *color, char *buf, size_t len) {
  const char *digits = strncasecmp(mask, "0x", 2) == 0 ? mask + 2 : mask;
  int v;
  if (!*digits || parse_count(digits, 16, &v)) {
    snprintf(buf, len,
             "NCCL_TESTS_SPLIT_MASK='%s': expected a hexadecimal mask such as 0x7 (as "
             "nccl-tests reads it: 10 is sixteen)",
             mask);
    return buf;
  }
  *color = proc & v;
  return NULL;
}

const char *cb_env_split_color(const char *split, const char *mask, int proc, int *color, char *buf,
                               size_t len) {
  *color = 0;
  if (mask) return split_from_mask(mask, proc, color, buf, len); /* nccl-tests: the mask wins */
  if (!split) return NULL;
  const char *rest = NULL;
  const split_op *o = split_op_of(split, &rest);
  int v;
  if (!o || parse_split_value(rest, &v)) {
    snprintf(buf, len,
             "NCCL_TESTS_SPLIT='%s': expected AND, OR, MOD or DIV (or & | %% /) and a whole "
             "number, such as 'MOD 2' or '&0x7'",
             split);
    return buf;
  }
  if ((o->op == '%' || o->op == '/') && v == 0) {
    snprintf(buf, len, "NCCL_TESTS_SPLIT='%s': %s by 0", split,
             o->op == '%' ? "modulo" : "division");
    return buf;
  }
  switch (o->op) {
  case '&':
    *color = proc & v;
    break;
  case '|':
    *color = proc | v;
    break;
  case '%':
    *color = proc % v;
    break;
  default:
    *color = proc / v;
    break;
  }
  return NULL;
}

const char *cb_env_first_device(const char *value, int *device, char *buf, size_t len) {
  *device = -1;
  if (!value || strcmp(value, "-1") == 0) return NULL;
  if (!isdigit((unsigned char)value[0]) || parse_count(value, 10, device)) {
    *device = -1;
    snprintf(buf, len, "NCCL_TESTS_DEVICE='%s': expected a CUDA device number such as 0", value);
    return buf;
  }
  return NULL;
}

const char *cb_env_min_bw(const char *value, double *gbps, char *buf, size_t len) {
  *gbps = -1;
  if (!value || strcmp(value, "-1") == 0) return NULL;
  errno = 0;
  char *end;
  double v = strtod(value, &end);
  if (!isdigit((unsigned char)value[0]) || errno || *end != '\0' || !isfinite(v)) {
    snprintf(buf, len,
             "NCCL_TESTS_MIN_BW='%s': expected a bus bandwidth in GB/s such as 300 (or -1: "
             "unchecked)",
             value);
    return buf;
  }
  *gbps = v;
  return NULL;
}

int cb_min_bw_failed(double avg, double min_bw) {
  if (min_bw < 0) return 0;
  return !(avg >= min_bw * 0.9); /* NAN (nothing measured) fails too */
}
