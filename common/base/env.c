#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* strtol alone would take blanks and a '+' before the digits. */
static int starts_like_a_number(const char *v) {
  return isdigit((unsigned char)v[0]) || (v[0] == '-' && isdigit((unsigned char)v[1]));
}

const char *cb_env_long_parse(const char *name, const char *value, long lo, long hi, long multiple,
                              long fallback, long *out, char *why, size_t len) {
  if (!value) {
    *out = fallback;
    return NULL;
  }
  errno = 0;
  char *end;
  long x = strtol(value, &end, 10);
  int ok = starts_like_a_number(value) && !errno && !*end && x >= lo && x <= hi;
  if (ok && (multiple <= 1 || x % multiple == 0)) {
    *out = x;
    return NULL;
  }
  int used =
      snprintf(why, len, "%s='%s': expected a whole number from %ld to %ld", name, value, lo, hi);
  if (multiple > 1 && used >= 0 && (size_t)used < len)
    snprintf(why + used, len - (size_t)used, ", a multiple of %ld", multiple);
  return why;
}

const char *cb_env_choice_parse(const char *name, const char *value, const char *const *choices,
                                int n, int fallback, int *out, char *why, size_t len) {
  if (!value) {
    *out = fallback;
    return NULL;
  }
  for (int i = 0; i < n; i++)
    if (strcmp(value, choices[i]) == 0) {
      *out = i;
      return NULL;
    }
  int used = snprintf(why, len, "%s='%s': expected one of", name, value);
  for (int i = 0; i < n && used >= 0 && (size_t)used < len; i++)
    used += snprintf(why + used, len - (size_t)used, "%s%s", i ? ", " : " ", choices[i]);
  return why;
}
