/* The CB_ tunables: every environment variable that tunes a kernel (or,
 * for CB_SHARE_GPUS, how ranks take GPUs), in one table with its bounds,
 * default and meaning. The table is the only place that holds them: a
 * program reads and checks every tunable it has at start, in the same path
 * as its options (so a bad value is refused before any GPU work, whether
 * or not a kernel that reads it runs), the processes compare the ones that
 * must agree, and the kernels take the parsed values with cb_tunable(). */
#ifndef CB_TUNABLES_H
#define CB_TUNABLES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CB_TUNE_WHOLE = 1, /* a whole number in lo..hi, a multiple of `multiple` */
  CB_TUNE_CHOICE = 2 /* one of choices[]; its value is the choice's index */
} cb_tunable_kind;

/* Which programs read a tunable (a mask). */
enum { CB_TUNE_COLL = 1, CB_TUNE_COPY = 2 };

typedef struct {
  const char *name;
  cb_tunable_kind kind;
  long lo, hi, multiple;      /* CB_TUNE_WHOLE */
  const char *const *choices; /* CB_TUNE_CHOICE: nchoices names */
  int nchoices;
  long fallback;       /* the default: the number, or the index of the choice */
  int per_rank;        /* 1: each rank may choose alone (nothing a peer sees depends on it) */
  int programs;        /* CB_TUNE_COLL and/or CB_TUNE_COPY */
  const char *meaning; /* one line, for the docs and the tests */
} cb_tunable_row;

/* The table: *n rows. */
const cb_tunable_row *cb_tunable_rows(int *n);
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

/* The value cb_tunables_read kept for name. A name that is not in the
 * table, or was not read, is a bug of the caller: it stops the program. */
long cb_tunable(const char *name);

/* Whether the choice tunable `name` holds `choice`, by its name: readers
 * never depend on the order of a row's choices. A name or choice not in
 * the table is a bug of the caller: it stops the program. */
int cb_tunable_is(const char *name, const char *choice);

/* Every CB_ name collbench reads, each once: every tunable (cb_tunable_rows),
 * every run switch (how a run is made, read where it is used: CB_PEER_MAPPING,
 * say) and every retired name (cb_tunable_retired). The one list the
 * unknown-name check and the tests consult. */
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
