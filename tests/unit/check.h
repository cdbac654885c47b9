/* A tiny test harness: CHECK macros that count passes and failures (thread
 * safe, for the world test's rank threads), print each failure with its
 * file and line, and check_summary() for main's return value: it prints
 * "N passed, M failed" and is non-zero on any failure or when nothing was
 * checked at all. */
#ifndef CB_TEST_CHECK_H
#define CB_TEST_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int check_passed_;
static atomic_int check_failed_;

/* Records one check; prints the failure. Returns ok, so callers can stop early. */
static inline int check_record_(int ok, const char *file, int line, const char *fmt, ...) {
  if (ok) {
    atomic_fetch_add(&check_passed_, 1);
    return 1;
  }
  atomic_fetch_add(&check_failed_, 1);
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL %s:%d: %s\n", file, line, msg);
  fflush(stderr);
  return 0;
}

#define CHECK(cond) check_record_((cond) != 0, __FILE__, __LINE__, "%s", #cond)

/* CHECK with a printf-style explanation of the context (loop indices...). */
#define CHECKF(cond, ...) check_record_((cond) != 0, __FILE__, __LINE__, __VA_ARGS__)

#define CHECK_EQ_INT(a, b)                                                                         \
  do {                                                                                             \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                                \
    check_record_(check_a_ == check_b_, __FILE__, __LINE__, "%s == %s (%lld vs %lld)", #a, #b,     \
                  check_a_, check_b_);                                                             \
  } while (0)

#define CHECK_EQ_U64(a, b)                                                                         \
  do {                                                                                             \
    unsigned long long check_a_ = (unsigned long long)(a), check_b_ = (unsigned long long)(b);     \
    check_record_(check_a_ == check_b_, __FILE__, __LINE__, "%s == %s (%llu vs %llu)", #a, #b,     \
                  check_a_, check_b_);                                                             \
  } while (0)

/* Strings equal; NULL equals only NULL. */
static inline int check_str_eq_(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

#define CHECK_STR(a, b)                                                                            \
  do {                                                                                             \
    const char *check_a_ = (a), *check_b_ = (b);                                                   \
    check_record_(check_str_eq_(check_a_, check_b_), __FILE__, __LINE__,                           \
                  "%s == %s\n  got:      [%s]\n  expected: [%s]", #a, #b,                          \
                  check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");                 \
  } while (0)

/* haystack contains needle (both non-NULL). */
#define CHECK_CONTAINS(hay, needle)                                                                \
  do {                                                                                             \
    const char *check_h_ = (hay), *check_n_ = (needle);                                            \
    check_record_(check_h_ &&check_n_ &&strstr(check_h_, check_n_) != NULL, __FILE__, __LINE__,    \
                  "%s contains %s\n  text: [%s]\n  missing: [%s]", #hay, #needle,                  \
                  check_h_ ? check_h_ : "(null)", check_n_ ? check_n_ : "(null)");                 \
  } while (0)

/* |a - b| <= tol. */
#define CHECK_NEAR(a, b, tol)                                                                      \
  do {                                                                                             \
    double check_a_ = (a), check_b_ = (b), check_t_ = (tol);                                       \
    check_record_(fabs(check_a_ - check_b_) <= check_t_, __FILE__, __LINE__,                       \
                  "%s ~= %s (%.9g vs %.9g, tolerance %g)", #a, #b, check_a_, check_b_, check_t_);  \
  } while (0)

/* Prints the totals; the value for main to return. */
static inline int check_summary(void) {
  int passed = atomic_load(&check_passed_), failed = atomic_load(&check_failed_);
  printf("%d passed, %d failed\n", passed, failed);
  fflush(stdout);
  if (passed + failed == 0) fprintf(stderr, "FAIL: no checks ran\n");
  return failed > 0 || passed + failed == 0;
}

/* Reads a whole stream from its start into a malloc'd string. */
static inline char *check_slurp(FILE *f) {
  fflush(f);
  long n;
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) return NULL;
  char *buf = malloc((size_t)n + 1);
  if (!buf) return NULL;
  size_t got = fread(buf, 1, (size_t)n, f);
  buf[got] = '\0';
  return buf;
}

/* A fresh temporary stream; aborts the test when none can be made. */
static inline FILE *check_tmpfile(void) {
  FILE *f = tmpfile();
  if (!f) {
    perror("tmpfile");
    exit(2);
  }
  return f;
}

#endif
