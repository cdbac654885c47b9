#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *program = "collbench";
static _Thread_local int thread_rank = -1;

void cb_error_set_program(const char *prog) {
  const char *slash = strrchr(prog, '/');
  program = slash ? slash + 1 : prog;
}

const char *cb_error_program(void) { return program; }
void cb_error_set_rank(int rank) { thread_rank = rank; }
const char *cb_errno_string(void) { return strerror(errno); }

static void prefix(void) {
  if (thread_rank >= 0)
    fprintf(stderr, "%s: rank %d: ", program, thread_rank);
  else
    fprintf(stderr, "%s: ", program);
}

/* Other ranks' threads may be inside CUDA or NCCL: leave without running
 * exit handlers, which could wait on them. mpirun sees the exit and stops
 * the other processes. */
__attribute__((noreturn)) static void leave(void) {
  fflush(stdout);
  fflush(stderr);
  _exit(1);
}

void cb_die(const char *file, int line, const char *call, const char *what) {
  fflush(stdout);
  prefix();
  fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, what);
  leave();
}

void cb_fatal(const char *fmt, ...) {
  fflush(stdout);
  prefix();
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  leave();
}
