/* The CB_ tunables: every environment variable that tunes a kernel (or,
 * for CB_SHARE_GPUS, how ranks take GPUs), each a row with its bounds,
 * default and meaning. A kernel declares its own rows in its own file
 * (CB_REGISTER_TUNABLES); the harness's and copy_perf's are tunables.c's
 * table; cb_tunable_rows() is the one list of them all. A program reads and
 * checks every tunable it has at start, in the same path as its options (so
 * a bad value is refused before any GPU work, whether or not a kernel that
 * reads it runs), the processes compare the ones that must agree, and the
 * kernels take the parsed values with cb_tunable(). */
#ifndef CB_TUNABLES_H
#define CB_TUNABLES_H

#include <stddef.h>

#include "collbench/tunables.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every row: tunables.c's, then every row registered in this library, by
 * name; *n rows. The one list of the tunables a program knows. */
const cb_tunable_row *cb_tunable_rows(int *n);
/* Adds a plugin's groups of rows to the list (before the tunables are
 * read: what was read is forgotten). */
void cb_tunables_add(const cb_tunable_group *const *groups, int n);
/* The row named name, or NULL. */
const cb_tunable_row *cb_tunable_find(const char *name);

/* The value text (NULL: unset) gives for row t: sets *value (the default
 * when unset) and returns NULL, or returns why it is refused (one line
 * naming the variable, the text and what the row takes). */
const char *cb_tunable_parse(const cb_tunable_row *t, const char *text, long *value, char *why,
                             size_t len);

/* What replaced name, a tunable collbench no longer reads, or NULL. */
const char *cb_tunable_retired(const char *name);

/* Reads and checks, from the environment, every tunable of the programs
 * in mask `programs`, and keeps the values for cb_tunable(). Returns NULL,
 * or why the first bad one is refused (the others are not kept); a name
 * those programs no longer read, set, is refused too, naming what replaced it. */
const char *cb_tunables_read(int programs, char *why, size_t len);

/* Every CB_ name collbench reads, each once: every tunable (cb_tunable_rows:
 * ours and every registered or plugin-added row), every run switch (how a run
 * is made, read where it is used: CB_PEER_MAPPING, say) and every retired name
 * (cb_tunable_retired). The one list the unknown-name check and the tests
 * consult. */
void cb_env_names(void (*each)(const char *name, void *ctx), void *ctx);

/* Whether collbench reads name (one of cb_env_names). */
int cb_env_name_known(const char *name);

/* env is an environment (environ): NULL when every CB_ variable in it is one
 * collbench reads, else why the first other one is refused (collbench owns the
 * CB_ prefix: a misspelt tunable must not run as if it were unset), one line
 * naming it and the known name nearest to it. cb_tunables_read checks this first. */
const char *cb_env_unknown(char *const *env, char *why, size_t len);

/* What one process read for one row: what the processes compare. */
typedef struct {
  long value;
  int set; /* the variable was set (to value; unset, value is the default) */
} cb_tunable_setting;

/* This process's settings, one per row of the table (rows not read:
 * unset, the default), into out[n] (n from cb_tunable_rows). */
void cb_tunable_settings(cb_tunable_setting *out);

/* all holds nprocs processes' settings (nrows each, in process order).
 * Returns NULL when every process has the same value of every row that
 * must agree (a variable set to its default agrees with one unset), else
 * one line naming the first such row that differs, process 0 and the first
 * process that differs from it, and both values. */
const char *cb_tunables_mismatch(const cb_tunable_setting *all, int nprocs, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
