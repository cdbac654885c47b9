/* Kernel tunables and test switches read from the environment. */
#ifndef CB_ENV_H
#define CB_ENV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel tunable from the environment: fallback when unset; a value that
 * is not a whole number in lo..hi stops the program with a clear message. */
long cb_env_long(const char *name, long fallback, long lo, long hi);

/* A tunable that names one of n choices, compared exactly (no case folding,
 * no prefixes: a misspelt value must not pick something else). value is the
 * variable's text, NULL when unset. Sets *out to the index of the choice, or
 * to fallback when unset, and returns NULL; for any other value (the empty
 * string included) returns why, one line naming the variable, the value and
 * every choice, and leaves *out alone. */
const char *cb_env_choice_parse(const char *name, const char *value, const char *const *choices,
                                int n, int fallback, int *out, char *why, size_t len);
/* The same from the environment; a bad value stops the program. */
int cb_env_choice(const char *name, const char *const *choices, int n, int fallback);

#ifdef __cplusplus
}
#endif

#endif
