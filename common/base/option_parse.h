/* The options every program takes (options.c for the collective programs,
 * copy_options.c for copy_perf), parsed by one piece of code: the sweep
 * (-b -e -i -f), whole numbers from a table (-n -w -c -T and a program's
 * own), -J, --csv, -k, -h and getopt_long's refusals. Every refusal is one
 * line in err and CB_OPTS_ERROR. */
#ifndef CB_OPTION_PARSE_H
#define CB_OPTION_PARSE_H

#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_PATH_MAX 1024
/* The bytes of a canonical options line (cb_options_canonical,
 * cb_copy_options_canonical) that the processes compare: every option, a -k
 * of 255 characters and every type and op included. */
#define CB_OPTIONS_LINE_MAX 1024

typedef enum {
  CB_OPTS_RUN,          /* options are valid: run the benchmark */
  CB_OPTS_HELP,         /* -h: print usage, exit 0 */
  CB_OPTS_LIST_KERNELS, /* -k list: print the kernel table, exit 0 */
  CB_OPTS_ERROR         /* bad input: err holds one line, exit non-zero */
} cb_opts_result;

/* getopt_long's value for --csv; a program's own long-only options follow it. */
#define CB_OPT_CSV 1000

/* The getopt_long entries of the common options, first in a program's
 * table (its own follow, then the zero entry). */
/* clang-format off */
#define CB_COMMON_LONG_OPTS                                                                        \
  {"minbytes", required_argument, 0, 'b'},                                                         \
  {"maxbytes", required_argument, 0, 'e'},                                                         \
  {"stepbytes", required_argument, 0, 'i'},                                                        \
  {"stepfactor", required_argument, 0, 'f'},                                                       \
  {"iters", required_argument, 0, 'n'},                                                            \
  {"warmup_iters", required_argument, 0, 'w'},                                                     \
  {"check", required_argument, 0, 'c'},                                                            \
  {"timeout", required_argument, 0, 'T'},                                                          \
  {"output_file", required_argument, 0, 'J'},                                                      \
  {"csv", required_argument, 0, CB_OPT_CSV},                                                       \
  {"kernel", required_argument, 0, 'k'},                                                           \
  {"help", no_argument, 0, 'h'}
/* clang-format on */

/* A whole-number option: its getopt value, its name in messages, its range,
 * and the offset of its int in the program's options struct. */
typedef struct {
  int letter;
  const char *what;
  int lo, hi;
  size_t offset;
} cb_int_opt;

/* Why -T has no 0 (nccl-tests': no timeout), said with its refusal. */
#define CB_TIMEOUT_NO_ZERO                                                                         \
  "nccl-tests' -T 0 turns its timeout off, but here every wait is bounded, so that a lost peer "   \
  "ends the run naming it instead of hanging"

/* The common whole numbers, in a program's table (type: its options struct). */
/* clang-format off */
#define CB_COMMON_INT_OPTS(type)                                                                   \
  {'n', "iterations (-n)", 1, INT_MAX, offsetof(type, iters)},                                     \
  {'w', "warm-up iterations (-w)", 0, INT_MAX, offsetof(type, warmup)},                            \
  {'c', "validation rounds (-c)", 0, 1000, offsetof(type, check)},                                 \
  {'T', "timeout in seconds (-T)", 1, 86400, offsetof(type, timeout_s)}
/* clang-format on */

/* One parse of the common options into a program's options struct. */
typedef struct {
  const char *listed;        /* what -h lists, in messages: "the options" */
  const char *size_examples; /* byte counts a bad -b or -e offers: "8, 64K, 1G" */
  const cb_int_opt *ints;    /* the program's whole-number options */
  size_t nints;
  void *options; /* the struct the offsets of ints are into */
  cb_sweep *sweep;
  char *json_path, *csv_path; /* CB_PATH_MAX bytes each */
  char *kernels;
  size_t kernels_len;
  int list;                 /* the last -k was "list" */
  int min_given, max_given; /* -b, -e were typed (else they hold the program's defaults) */
} cb_common_opts;

/* The cb_common_opts of o, a program's options struct, which keeps the
 * common options under these names (sweep, json_path, csv_path, kernels);
 * table_ is its cb_int_opt table. */
/* clang-format off */
#define CB_COMMON_OPTS_OF(o, listed_, size_examples_, table_)                                      \
  {.listed = (listed_), .size_examples = (size_examples_),                                         \
   .ints = (table_), .nints = sizeof(table_) / sizeof(table_)[0],                                  \
   .options = (o), .sweep = &(o)->sweep, .json_path = (o)->json_path, .csv_path = (o)->csv_path,   \
   .kernels = (o)->kernels, .kernels_len = sizeof(o)->kernels, .list = 0}
/* clang-format on */

/* Before the first getopt_long: clears err, silences getopt (the messages
 * are ours) and resets its state, so a parse can run more than once (tests). */
void cb_common_opts_begin(cb_common_opts *co, char *err);
/* Takes getopt_long's value c when it is a common option (or a refusal):
 * returns 1 with *res CB_OPTS_RUN (taken), CB_OPTS_HELP or CB_OPTS_ERROR;
 * returns 0, leaving c to the program, when it is one of its own. */
int cb_common_opt(cb_common_opts *co, int c, char **argv, cb_opts_result *res, char *err,
                  size_t len);
/* After the last getopt_long: CB_OPTS_ERROR for a word that is no option,
 * CB_OPTS_LIST_KERNELS for -k list, else CB_OPTS_RUN. */
cb_opts_result cb_common_opts_end(const cb_common_opts *co, int argc, char **argv, char *err,
                                  size_t len);

/* -k's text: "all" or "list" alone, or a comma list of kernel ids and
 * names. cb_kernel_spec_check says whether spec has that shape, whatever
 * the program's table (no empty or overlong word, neither all nor list in a
 * list): 0, or -1 with err set (one line). cb_kernel_word copies the word
 * that starts at p into word when it fits (*len < CB_KERNEL_WORD_MAX) and
 * returns where the next one starts, NULL after the last. */
#define CB_KERNEL_WORD_MAX 64
int cb_kernel_spec_check(const char *spec, char *err, size_t err_len);
const char *cb_kernel_word(const char *p, char word[CB_KERNEL_WORD_MAX], size_t *len);

/* Writes the message into err (len bytes); returns CB_OPTS_ERROR. */
__attribute__((format(printf, 3, 4))) cb_opts_result cb_opts_fail(char *err, size_t len,
                                                                  const char *fmt, ...);
/* What every sweep must be: -b no larger than -e, and one that advances.
 * co (NULL: not known) says which of -b and -e were typed: a refusal names
 * the other as the default it was left at. */
cb_opts_result cb_sweep_check(const cb_sweep *s, const cb_common_opts *co, char *err, size_t len);
/* "all" or a comma list of names into a bit mask, parse(name) giving each
 * name's bit (or -1); 0 on an unknown or empty name, or one named twice
 * (*twice set), whose text is copied into bad (bad_len bytes). -d, -o and
 * copy_perf's -D take their lists so. */
uint32_t cb_name_mask_parse(const char *list, int (*parse)(const char *name), uint32_t all,
                            char *bad, size_t bad_len, int *twice);

#ifdef __cplusplus
}
#endif

#endif
