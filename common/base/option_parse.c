#define _GNU_SOURCE /* getopt_long */
#include "option_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

cb_opts_result cb_opts_fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return CB_OPTS_ERROR;
}

/* A whole decimal integer in [lo, hi]; -1 on anything else. */
static int parse_int(const char *text, int lo, int hi, int *out) {
  if (!text || !*text) return -1;
  errno = 0;
  char *end;
  long v = strtol(text, &end, 10);
  if (errno || *end != '\0' || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

/* A non-empty value that fits, copied whole: never cut. */
static int copy_arg(char *dst, size_t dst_len, const char *src) {
  size_t n = strlen(src);
  if (n == 0 || n >= dst_len) return -1;
  memcpy(dst, src, n + 1);
  return 0;
}

/* The option getopt just refused: a short one by its letter (it may sit in
 * a group such as -qz, where argv[optind - 1] is not it), a long one by its
 * word. */
static const char *opt_name(char **argv) {
  static _Thread_local char letter[3];
  const char *word = argv[optind - 1];
  if (strncmp(word, "--", 2) != 0 && optopt > 0 && optopt < 128) {
    snprintf(letter, sizeof letter, "-%c", optopt);
    return letter;
  }
  return word;
}

static const cb_int_opt *find_int_opt(const cb_common_opts *co, int c) {
  for (size_t i = 0; i < co->nints; i++)
    if (co->ints[i].letter == c) return &co->ints[i];
  return NULL;
}

/* -b -e -i are byte counts (K/M/G suffixes), -f a whole factor. */
static cb_opts_result sweep_opt(cb_common_opts *co, int c, const char *arg, char *err, size_t len) {
  uint64_t v;
  if (c == 'f') {
    int f;
    if (parse_int(arg, 1, 1 << 20, &f))
      return cb_opts_fail(err, len, "bad -f '%s': expected a whole factor >= 1", arg);
    co->sweep->step_factor = (uint64_t)f;
    return CB_OPTS_RUN;
  }
  cb_size_parse parsed = cb_parse_size(arg, &v);
  if (parsed == CB_SIZE_TOO_LARGE)
    return cb_opts_fail(err, len,
                        "bad -%c '%s': above the largest byte count, %llu (" CB_SIZE_MAX_TEXT
                        "), beyond which buffer sizes would overflow",
                        c, arg, (unsigned long long)CB_SIZE_MAX);
  if (parsed == CB_SIZE_FRACTION)
    return cb_opts_fail(err, len,
                        "bad -%c '%s': not a whole number of bytes (a fraction of K, M or G is "
                        "taken where it makes whole bytes, as 1.5M)",
                        c, arg);
  if (parsed != CB_SIZE_OK || (c != 'i' && v == 0)) {
    if (c == 'i')
      return cb_opts_fail(err, len, "bad -i '%s': expected a byte count such as 1M", arg);
    return cb_opts_fail(
        err, len, "bad -%c '%s': expected a positive byte count such as %s (suffixes K, M, G)", c,
        arg, co->size_examples);
  }
  if (c == 'b') co->sweep->min_bytes = v, co->min_given = 1;
  if (c == 'e') co->sweep->max_bytes = v, co->max_given = 1;
  if (c == 'i') co->sweep->step_bytes = v;
  return CB_OPTS_RUN;
}

static cb_opts_result int_opt(const cb_common_opts *co, const cb_int_opt *io, const char *arg,
                              char *err, size_t len) {
  int zero;
  if (io->letter == 'T' && parse_int(arg, 0, 0, &zero) == 0)
    return cb_opts_fail(err, len, "bad %s: '%s' (expected a whole number from %d to %d: %s)",
                        io->what, arg, io->lo, io->hi, CB_TIMEOUT_NO_ZERO);
  if (parse_int(arg, io->lo, io->hi, (int *)((char *)co->options + io->offset)))
    return cb_opts_fail(err, len, "bad %s: '%s' (expected a whole number from %d to %d)", io->what,
                        arg, io->lo, io->hi);
  return CB_OPTS_RUN;
}

static cb_opts_result path_opt(const char *flag, char *dst, const char *arg, char *err,
                               size_t len) {
  if (copy_arg(dst, CB_PATH_MAX, arg)) return cb_opts_fail(err, len, "bad %s path '%s'", flag, arg);
  return CB_OPTS_RUN;
}

const char *cb_kernel_word(const char *p, char word[CB_KERNEL_WORD_MAX], size_t *len) {
  const char *comma = strchr(p, ',');
  *len = comma ? (size_t)(comma - p) : strlen(p);
  if (*len < CB_KERNEL_WORD_MAX) {
    memcpy(word, p, *len);
    word[*len] = '\0';
  }
  return comma ? comma + 1 : NULL;
}

/* The words -k takes only alone, and why a comma list refuses each. */
static const struct {
  const char *word, *why;
} alone_words[] = {
    {"all", "all (every kernel) cannot be combined with other kernels: give -k all alone, or a "
            "comma list of ids and names"},
    {"list", "list (print the kernels, run none) cannot be combined with kernels: give -k list "
             "alone"},
};
enum { NALONE = sizeof alone_words / sizeof alone_words[0] };

/* The row of alone_words that word is, or -1. */
static int alone_word(const char *word) {
  for (int i = 0; i < NALONE; i++)
    if (strcasecmp(word, alone_words[i].word) == 0) return i;
  return -1;
}

int cb_kernel_spec_check(const char *spec, char *err, size_t err_len) {
  if (alone_word(spec) >= 0) return 0;
  char word[CB_KERNEL_WORD_MAX];
  size_t len;
  for (const char *p = spec; p;) {
    p = cb_kernel_word(p, word, &len);
    if (len == 0 || len >= sizeof word) {
      snprintf(err, err_len, "bad -k '%s': expected kernel ids or names, a comma list, all or list",
               spec);
      return -1;
    }
    int a = alone_word(word);
    if (a >= 0) {
      snprintf(err, err_len, "bad -k '%s': %s", spec, alone_words[a].why);
      return -1;
    }
  }
  return 0;
}

/* -k as typed, of the shape -k takes (which names the table has is the
 * program's to say); "list" asks for the kernel table instead of a run. */
static cb_opts_result kernel_opt(cb_common_opts *co, const char *arg, char *err, size_t len) {
  if (copy_arg(co->kernels, co->kernels_len, arg))
    return cb_opts_fail(err, len, "bad -k '%s'", arg);
  if (cb_kernel_spec_check(arg, err, len)) return CB_OPTS_ERROR;
  co->list = strcasecmp(arg, "list") == 0;
  return CB_OPTS_RUN;
}

void cb_common_opts_begin(cb_common_opts *co, char *err) {
  co->list = 0;
  co->min_given = co->max_given = 0;
  err[0] = '\0';
  opterr = 0;
  optind = 0; /* 0, not 1: glibc's full re-initialisation */
}

int cb_common_opt(cb_common_opts *co, int c, char **argv, cb_opts_result *res, char *err,
                  size_t len) {
  const cb_int_opt *io = find_int_opt(co, c);
  if (c == 'h')
    *res = CB_OPTS_HELP;
  else if (c == '?')
    *res = cb_opts_fail(err, len, "unknown option '%s' (-h lists %s)", opt_name(argv), co->listed);
  else if (c == ':')
    *res = cb_opts_fail(err, len, "option '%s' needs a value", opt_name(argv));
  else if (io)
    *res = int_opt(co, io, optarg, err, len);
  else if (c == 'b' || c == 'e' || c == 'i' || c == 'f')
    *res = sweep_opt(co, c, optarg, err, len);
  else if (c == 'J')
    *res = path_opt("-J", co->json_path, optarg, err, len);
  else if (c == CB_OPT_CSV)
    *res = path_opt("--csv", co->csv_path, optarg, err, len);
  else if (c == 'k')
    *res = kernel_opt(co, optarg, err, len);
  else
    return 0;
  return 1;
}

cb_opts_result cb_common_opts_end(const cb_common_opts *co, int argc, char **argv, char *err,
                                  size_t len) {
  if (optind < argc)
    return cb_opts_fail(err, len, "unexpected argument '%s' (-h lists %s)", argv[optind],
                        co->listed);
  return co->list ? CB_OPTS_LIST_KERNELS : CB_OPTS_RUN;
}

/* -b above -e with one of the two left at its default (default_opt, at
 * default_bytes, pretty: those bytes for people): the one typed first. */
static cb_opts_result sweep_default_fail(char *err, size_t len, const char *typed_opt,
                                         unsigned long long typed_bytes, const char *relation,
                                         const char *default_opt, unsigned long long default_bytes,
                                         const char *pretty) {
  return cb_opts_fail(err, len,
                      "%s %llu is %s than %s %llu: %s was left at its default, %s (give %s too)",
                      typed_opt, typed_bytes, relation, default_opt, default_bytes, default_opt,
                      pretty, default_opt);
}

cb_opts_result cb_sweep_check(const cb_sweep *s, const cb_common_opts *co, char *err, size_t len) {
  if (s->min_bytes > s->max_bytes) {
    /* The one of the two that was not typed is named as the default it is. */
    int min_default = co && !co->min_given, max_default = co && !co->max_given;
    const unsigned long long min = s->min_bytes, max = s->max_bytes;
    char pretty[32];
    cb_format_bytes(min_default ? min : max, pretty, sizeof pretty);
    if (max_default) return sweep_default_fail(err, len, "-b", min, "larger", "-e", max, pretty);
    if (min_default) return sweep_default_fail(err, len, "-e", max, "smaller", "-b", min, pretty);
    return cb_opts_fail(err, len, "-b %llu is larger than -e %llu", min, max);
  }
  if (s->step_factor <= 1 && s->step_bytes == 0 && s->min_bytes != s->max_bytes)
    /* Linear steps (-f 1, the default of the collectives, or -i alone in
     * copy_perf) of 0 bytes: name -i, whether or not -f was typed. */
    return cb_opts_fail(err, len,
                        "-i 0: steps of 0 bytes would never advance the size sweep from -b %llu "
                        "to -e %llu (give -i above 0, or -f above 1)",
                        (unsigned long long)s->min_bytes, (unsigned long long)s->max_bytes);
  return CB_OPTS_RUN;
}

uint32_t cb_name_mask_parse(const char *list, int (*parse)(const char *name), uint32_t all,
                            char *bad, size_t bad_len, int *twice) {
  *twice = 0;
  if (strcasecmp(list, "all") == 0) return all;
  uint32_t mask = 0;
  const char *p = list;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char word[32];
    int v = -1;
    if (len > 0 && len < sizeof word) {
      memcpy(word, p, len);
      word[len] = '\0';
      v = parse(word);
    }
    if (v < 0 || (mask & (1u << v))) { /* unknown, or named twice (float,FLOAT too) */
      size_t n = len < bad_len - 1 ? len : bad_len - 1;
      memcpy(bad, p, n);
      bad[n] = '\0';
      *twice = v >= 0;
      return 0;
    }
    mask |= 1u << v;
    if (!comma) return mask;
    p = comma + 1;
  }
}
