#include "env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

long cb_env_long(const char *name, long fallback, long lo, long hi) {
  const char *v = getenv(name);
  if (!v) return fallback;
  errno = 0;
  char *end;
  long x = strtol(v, &end, 10);
  if (errno || !*v || *end || x < lo || x > hi)
    cb_fatal("%s=%s: expected a whole number from %ld to %ld", name, v, lo, hi);
  return x;
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

int cb_env_choice(const char *name, const char *const *choices, int n, int fallback) {
  char why[256];
  int x = fallback;
  if (cb_env_choice_parse(name, getenv(name), choices, n, fallback, &x, why, sizeof why))
    cb_fatal("%s", why);
  return x;
}
