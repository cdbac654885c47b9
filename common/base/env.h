/* One environment variable's text, parsed strictly. The kernels' tunables
 * are rows of the table in tunables.c, which parses them with these; the run
 * switches (CB_PEER_MAPPING, say) use them directly. */
#ifndef CB_ENV_H
#define CB_ENV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A whole number in lo..hi, a multiple of `multiple` (1: any). value is
 * the variable's text, NULL when unset. Sets *out to the number, or to
 * fallback when unset, and returns NULL; for any other text (the empty
 * string, blanks, signs other than a leading '-', suffixes) returns why,
 * one line naming the variable, the value and what it takes, and leaves
 * *out alone. */
const char *cb_env_long_parse(const char *name, const char *value, long lo, long hi, long multiple,
                              long fallback, long *out, char *why, size_t len);

/* A variable that names one of n choices, compared exactly (no case
 * folding, no prefixes: a misspelt value must not pick something else).
 * value is the variable's text, NULL when unset. Sets *out to the index of
 * the choice, or to fallback when unset, and returns NULL; for any other
 * value (the empty string included) returns why, one line naming the
 * variable, the value and every choice, and leaves *out alone. */
const char *cb_env_choice_parse(const char *name, const char *value, const char *const *choices,
                                int n, int fallback, int *out, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
