#include "error.h"

#include <errno.h>
#include <stdatomic.h>
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

const char *cb_error_program(void) {
  return program;
}
void cb_error_set_rank(int rank) {
  thread_rank = rank;
}
const char *cb_errno_string(void) {
  return strerror(errno);
}

static void prefix(void) {
  if (thread_rank >= 0)
    fprintf(stderr, "%s: rank %d: ", program, thread_rank);
  else
    fprintf(stderr, "%s: ", program);
}

/* The first thread to fail speaks; a rank thread failing at the same moment
 * (every rank of a process checks the same thing) waits for the exit. */
static atomic_flag failing = ATOMIC_FLAG_INIT;
static void claim_failure(void) {
  if (atomic_flag_test_and_set(&failing))
    for (;;) pause();
}

/* Other ranks' threads may be inside CUDA or NCCL: leave without running
 * exit handlers, which could wait on them. mpirun sees the exit and stops
 * the other processes. */
__attribute__((noreturn)) static void leave(void) {
  fflush(stdout);
  fflush(stderr);
  _exit(1);
}

void cb_exit_quietly(void) {
  claim_failure();
  leave();
}

void cb_die(const char *file, int line, const char *call, const char *what) {
  claim_failure();
  fflush(stdout);
  prefix();
  fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, what);
  leave();
}

void cb_fatal(const char *fmt, ...) {
  claim_failure();
  fflush(stdout);
  prefix();
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  leave();
}
