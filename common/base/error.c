#define _GNU_SOURCE /* nanosleep */
#include "error.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "thread_stacks.h"

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

/* One error line, written with one write(2): stderr is unbuffered, and
 * under mpirun another process's output (its abort banner, say) must not
 * land in the middle of the line. */
static void emit_line(const char *fmt, va_list ap) {
  char line[2048];
  int n = thread_rank >= 0 ? snprintf(line, sizeof line, "%s: rank %d: ", program, thread_rank)
                           : snprintf(line, sizeof line, "%s: ", program);
  if (n < 0) n = 0;
  if ((size_t)n < sizeof line) {
    int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    if (m > 0) n += m;
  }
  if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2; /* truncated: keep the newline */
  line[n++] = '\n';
  for (size_t done = 0; done < (size_t)n;) {
    ssize_t w = write(STDERR_FILENO, line + done, (size_t)n - done);
    if (w <= 0) break;
    done += (size_t)w;
  }
}

__attribute__((format(printf, 1, 2))) static void emit(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit_line(fmt, ap);
  va_end(ap);
}

/* The first thread to fail speaks; a rank thread failing at the same moment
 * (every rank of a process checks the same thing) waits for the exit. */
static atomic_flag failing = ATOMIC_FLAG_INIT;
static void claim_failure(void) {
  if (atomic_flag_test_and_set(&failing))
    for (;;) pause();
}

static void (*_Atomic exit_hook)(void);
static atomic_int exit_hook_done;

void cb_error_on_exit(void (*hook)(void)) {
  atomic_store(&exit_hook, hook);
}

static void *exit_hook_main(void *arg) {
  (void)arg;
  atomic_load (&exit_hook)();
  atomic_store(&exit_hook_done, 1);
  return NULL;
}

/* The hook may itself wait on a lost peer: it gets 2 s, then the exit goes
 * on. The exit itself tears down the CUDA context, which stops NCCL's
 * kernels as well, so a longer wait only delays the end past -T + 5 s (with
 * -T 6 and a stopped peer on 4 x H200, NCCL's rows ended 8.3-8.5 s after
 * the stop: docs/nccl-variants.md, "-T and NCCL"). */
static void run_exit_hook(void) {
  if (!atomic_load(&exit_hook)) return;
  pthread_t t;
  if (pthread_create(&t, NULL, exit_hook_main, NULL) != 0) return;
  const struct timespec tick = {0, 50000000L};
  for (int i = 0; i < 40 && !atomic_load(&exit_hook_done); i++) nanosleep(&tick, NULL);
}

/* Other ranks' threads may be inside CUDA or NCCL: leave without running
 * exit handlers, which could wait on them. mpirun sees the exit and stops
 * the other processes. */
__attribute__((noreturn)) static void leave(void) {
  fflush(stdout);
  fflush(stderr);
  cb_thread_stacks_print(); /* before the hook aborts NCCL's communicators */
  run_exit_hook();
  _exit(1);
}

/* The process that says why may not have written its line yet. Under
 * mpirun the first process to exit non-zero gets every other one killed,
 * the speaker included: a quiet process that left at once could take the
 * line with it (seen as a lost refusal in tests/py/test_program.py's split
 * test under load). So a quiet process gives the speaker up to 2 s; mpirun
 * stops it as soon as the speaker has exited. */
void cb_exit_quietly(void) {
  claim_failure();
  const struct timespec grace = {2, 0};
  nanosleep(&grace, NULL);
  leave();
}

void cb_die(const char *file, int line, const char *call, const char *what) {
  claim_failure();
  fflush(stdout);
  emit("%s:%d: %s: %s", file, line, call, what);
  leave();
}

void cb_fatal(const char *fmt, ...) {
  claim_failure();
  fflush(stdout);
  va_list ap;
  va_start(ap, fmt);
  emit_line(fmt, ap);
  va_end(ap);
  leave();
}
