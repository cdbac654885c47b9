/* Tunables: the CB_ environment variables a kernel reads, each a row with
 * its bounds, default and meaning, declared in the kernel's own file
 * (CB_REGISTER_TUNABLES). The program reads and checks every row at start,
 * with its options (a bad value is refused in one line before any GPU
 * work), the processes compare the rows that must agree, and the kernel
 * takes a parsed value with cb_tunable(). */
#ifndef COLLBENCH_TUNABLES_H
#define COLLBENCH_TUNABLES_H

#include <stddef.h>

#include "collbench/section.h"

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

/* The value cb_tunables_read kept for name. A name that is not in the
 * table, or was not read, is a bug of the caller: it stops the program. */
long cb_tunable(const char *name);

/* Whether the choice tunable `name` holds `choice`, by its name: readers
 * never depend on the order of a row's choices. A name or choice not in
 * the table is a bug of the caller: it stops the program. */
int cb_tunable_is(const char *name, const char *choice);

#ifdef __cplusplus
}
#endif

#endif
