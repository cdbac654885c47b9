/* What the option parsers' tests (test_options.c, test_copy_options.c)
 * share: a command line typed as one string, and the checks on a refusal. */
#ifndef CB_TEST_OPTS_CHECK_H
#define CB_TEST_OPTS_CHECK_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "option_parse.h" /* cb_opts_result */

/* Splits line at blanks into argv after prog, then NULL (argv has max
 * entries); the words live in a static buffer until the next call.
 * Returns argc. */
static inline int opts_argv(const char *prog, const char *line, char **argv, int max) {
  static char buf[4096];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = (char *)prog;
  for (char *w = strtok(buf, " "); w && argc < max - 1; w = strtok(NULL, " ")) argv[argc++] = w;
  argv[argc] = NULL;
  return argc;
}

/* A bad command line: CB_OPTS_ERROR with a one-line message (err) that
 * names the problem (mention, when not NULL). */
static inline void check_refused(const char *line, cb_opts_result r, const char *err,
                                 const char *mention) {
  CHECKF(r == CB_OPTS_ERROR, "'%s' should be refused (got result %d)", line, (int)r);
  CHECKF(err[0] != '\0', "'%s': error message is empty", line);
  CHECKF(strchr(err, '\n') == NULL, "'%s': error message is more than one line: '%s'", line, err);
  if (mention)
    CHECKF(strstr(err, mention) != NULL, "'%s': message '%s' should mention '%s'", line, err,
           mention);
}

/* check_refused, and the message is exactly expected. */
static inline void check_refused_with(const char *line, cb_opts_result r, const char *err,
                                      const char *expected) {
  check_refused(line, r, err, NULL);
  CHECKF(strcmp(err, expected) == 0, "'%s': message '%s', expected '%s'", line, err, expected);
}

#endif
