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

#include "section.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CB_TUNE_WHOLE = 1, /* a whole number in lo..hi, a multiple of `multiple` */
  CB_TUNE_CHOICE = 2 /* one of choices[]; its value is the choice's index */
} cb_tunable_kind;

/* Which programs read a tunable (a mask). */
enum { CB_TUNE_COLL = 1, CB_TUNE_COPY = 2 };

/* Whether the ranks must agree on a tunable (cb_tunables_mismatch). */
enum { CB_TUNE_AGREE = 0, CB_TUNE_PER_RANK = 1 };

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

/* A row: a whole number in lo..hi, a multiple of multiple_ (1: any); or
 * one of the names of list_ (an array), default_ its index. ranks_:
 * CB_TUNE_AGREE, or CB_TUNE_PER_RANK where nothing a peer sees depends on
 * it; programs_: CB_TUNE_COLL and/or CB_TUNE_COPY; meaning_: one line. */
#define CB_TUNABLE_NUMBER_OF(name_, lo_, hi_, multiple_, default_, ranks_, programs_, meaning_)    \
  {                                                                                                \
    .name = (name_), .kind = CB_TUNE_WHOLE, .lo = (lo_), .hi = (hi_), .multiple = (multiple_),     \
    .choices = 0, .nchoices = 0, .fallback = (default_), .per_rank = (ranks_),                     \
    .programs = (programs_), .meaning = (meaning_)                                                 \
  }
#define CB_TUNABLE_CHOICE_OF(name_, list_, default_, ranks_, programs_, meaning_)                  \
  {                                                                                                \
    .name = (name_), .kind = CB_TUNE_CHOICE, .lo = 0, .hi = 0, .multiple = 0, .choices = (list_),  \
    .nchoices = (int)(sizeof(list_) / sizeof *(list_)), .fallback = (default_),                    \
    .per_rank = (ranks_), .programs = (programs_), .meaning = (meaning_)                           \
  }
/* A collective kernel's rows (read by the collective programs). */
#define CB_TUNABLE_NUMBER(name_, lo_, hi_, multiple_, default_, ranks_, meaning_)                  \
  CB_TUNABLE_NUMBER_OF(name_, lo_, hi_, multiple_, default_, ranks_, CB_TUNE_COLL, meaning_)
#define CB_TUNABLE_CHOICE(name_, list_, default_, ranks_, meaning_)                                \
  CB_TUNABLE_CHOICE_OF(name_, list_, default_, ranks_, CB_TUNE_COLL, meaning_)

/* Rows registered together by a file: CB_REGISTER_TUNABLES(ring,
 * CB_TUNABLE_NUMBER(...), ...) puts them, under the file's name group_, in
 * the section cb_tunable_groups that cb_tunable_rows() reads (section.h). */
typedef struct {
  const cb_tunable_row *rows;
  int n;
} cb_tunable_group;
#define CB_REGISTER_TUNABLES(group_, ...)                                                          \
  static const cb_tunable_row group_##_tunable_rows[] = {__VA_ARGS__};                             \
  static const cb_tunable_group group_##_tunables = {                                              \
      group_##_tunable_rows,                                                                       \
      (int)(sizeof group_##_tunable_rows / sizeof group_##_tunable_rows[0])};                      \
  CB_IN_SECTION(cb_tunable_groups)                                                                 \
  static const cb_tunable_group *const group_##_tunables_at = &group_##_tunables

/* Every row: tunables.c's, then every row registered in this library, by
 * name; *n rows. The one list of the tunables a program knows. */
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
