#include "env.h"

#include <errno.h>
#include <stdlib.h>

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
