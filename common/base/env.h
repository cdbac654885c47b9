/* Kernel tunables and test switches read from the environment. */
#ifndef CB_ENV_H
#define CB_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel tunable from the environment: fallback when unset; a value that
 * is not a whole number in lo..hi stops the program with a clear message. */
long cb_env_long(const char *name, long fallback, long lo, long hi);

#ifdef __cplusplus
}
#endif

#endif
