/* The watchdog (common/base/watchdog.c) and the exit hook (error.c), each
 * scenario in a child process: a watch left armed past its timeout ends the
 * process with exit 1 and one line naming the call and who made it, after the
 * exit hook ran; watches disarmed in time, re-armed, or armed with 0 never
 * fire. No CUDA. */
#define _GNU_SOURCE /* nanosleep, fork */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "error.h"
#include "watchdog.h"

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static void hook(void) {
  fputs("exit hook ran\n", stderr);
}

/* Armed once and never disarmed: the watchdog must end the process. */
static void left_armed(void) {
  cb_error_on_exit(hook);
  cb_watchdog_arm(1, "test_call", "rank 3 of the test");
  sleep_ms(4000);
}

/* Many short waits, each within the timeout, for longer than the timeout. */
static void short_waits(void) {
  for (int i = 0; i < 40; i++) {
    cb_watchdog_arm(1, "short_call", "the test");
    sleep_ms(50);
    cb_watchdog_disarm();
  }
}

/* A second arm restarts the clock: 0.7 + 0.7 s armed, never 1 s on one arm. */
static void rearmed(void) {
  cb_watchdog_arm(1, "first", "the test");
  sleep_ms(700);
  cb_watchdog_arm(1, "second", "the test");
  sleep_ms(700);
  cb_watchdog_disarm();
  sleep_ms(600);
}

/* A timeout of 0 (the default before a program sets -T) bounds nothing. */
static void unbounded(void) {
  cb_watchdog_arm(cb_watchdog_default(), "unbounded", "the test");
  sleep_ms(1500);
  cb_watchdog_disarm();
}

/* Runs scenario in a child; returns its exit status and what it wrote on stderr. */
static int in_child(void (*scenario)(void), char *err, size_t len) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], STDERR_FILENO);
    close(fd[0]);
    cb_error_set_program("test_watchdog");
    scenario();
    _exit(0);
  }
  close(fd[1]);
  size_t n = 0;
  ssize_t r;
  while (n + 1 < len && (r = read(fd[0], err + n, len - 1 - n)) > 0) n += (size_t)r;
  err[n] = '\0';
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void) {
  char err[2048];
  CHECK_EQ_INT(cb_watchdog_default(), 0);
  CHECK_EQ_INT(in_child(left_armed, err, sizeof err), 1);
  CHECK_CONTAINS(err, "test_watchdog: timed out after 1 s (-T) in test_call, rank 3 of the test");
  CHECK_CONTAINS(err, "exit hook ran");
  /* One line, then the hook: the message comes first. */
  CHECK(strstr(err, "timed out") < strstr(err, "exit hook ran"));
  CHECK_EQ_INT(in_child(short_waits, err, sizeof err), 0);
  CHECKF(err[0] == '\0', "short waits: unexpected output '%s'", err);
  CHECK_EQ_INT(in_child(rearmed, err, sizeof err), 0);
  CHECKF(err[0] == '\0', "re-armed: unexpected output '%s'", err);
  CHECK_EQ_INT(in_child(unbounded, err, sizeof err), 0);
  cb_watchdog_set_default(7);
  CHECK_EQ_INT(cb_watchdog_default(), 7);
  return check_summary();
}
