/* The liveness board (common/base/liveness.c) with real processes: a peer
 * that keeps beating is never named; a stopped one (SIGSTOP) is named as
 * stopped, one that exited as gone; and a watchdog timeout (watchdog.c) in a
 * process whose peer is stopped names that peer in its one line. No CUDA,
 * no MPI: the processes are forked and share a board file. */
#define _GNU_SOURCE /* fork, kill, nanosleep */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "error.h"
#include "liveness.h"
#include "watchdog.h"

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static char path[128];

/* A peer process: maps slot proc and beats every 20 ms until killed, or
 * beats once and exits when once is set. */
static pid_t peer(int nprocs, int proc, int first_rank, int nranks, int once, const int *pipe_fds) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (pipe_fds) { /* not a writer of the test's pipe: its reader must see the end */
    close(pipe_fds[0]);
    close(pipe_fds[1]);
  }
  if (cb_liveness_open(path, nprocs, proc, first_rank, nranks) != 0) _exit(3);
  cb_liveness_beat();
  if (once) _exit(0);
  for (;;) {
    cb_liveness_beat();
    sleep_ms(20);
  }
}

static void test_board(void) {
  CHECK(cb_liveness_open(path, 2, 2, 0, 1) == -1); /* no slot 2 of 2 */
  CHECK_EQ_INT(cb_liveness_open(path, 4, 0, 0, 1), 0);
  char buf[512];
  pid_t beating = peer(4, 1, 1, 1, 0, NULL);
  pid_t gone = peer(4, 2, 2, 2, 1, NULL);
  int status;
  waitpid(gone, &status, 0); /* reaped: its pid no longer exists */
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  sleep_ms(400);
  int n = cb_liveness_stale(0.2, buf, sizeof buf);
  CHECKF(n == 1, "one process gone: %d named: '%s'", n, buf);
  CHECK_CONTAINS(buf, "ranks 2-3 (pid ");
  CHECK_CONTAINS(buf, "(gone)");
  CHECKF(strstr(buf, "rank 1 ") == NULL, "a beating peer named: '%s'", buf);
  kill(beating, SIGSTOP);
  sleep_ms(400);
  n = cb_liveness_stale(0.2, buf, sizeof buf);
  CHECKF(n == 2, "stopped and gone: %d named: '%s'", n, buf);
  char want[64];
  snprintf(want, sizeof want, "rank 1 (pid %d) has not run for ", (int)beating);
  CHECK_CONTAINS(buf, want);
  CHECK_CONTAINS(buf, "(stopped)");
  CHECK_CONTAINS(buf, "; ");
  /* A long threshold names nobody; a small buffer stays terminated. */
  CHECK_EQ_INT(cb_liveness_stale(60, buf, sizeof buf), 0);
  CHECK(buf[0] == '\0');
  char tiny[12];
  CHECK_EQ_INT(cb_liveness_stale(0.2, tiny, sizeof tiny), 2);
  CHECK(strlen(tiny) < sizeof tiny);
  kill(beating, SIGKILL);
  waitpid(beating, &status, 0);
  cb_liveness_close();
  CHECK_EQ_INT(cb_liveness_stale(0.2, buf, sizeof buf), 0); /* no board, nothing named */
  CHECK(buf[0] == '\0');
}

/* The watchdog's line names the stopped peer: this child maps slot 0, a
 * grandchild beats in slot 1 and is stopped, the watch times out. */
static void test_watchdog_names_peer(void) {
  int fd[2];
  if (pipe(fd) != 0) {
    CHECK(0);
    return;
  }
  pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0); /* the stopped grandchild stays in this group: the test ends it by group */
    pid_t p = peer(2, 1, 1, 1, 0, fd);
    dup2(fd[1], STDERR_FILENO);
    close(fd[0]);
    cb_error_set_program("test_liveness");
    if (cb_liveness_open(path, 2, 0, 0, 1) != 0) _exit(3);
    cb_watchdog_start();
    sleep_ms(200);
    kill(p, SIGSTOP);
    cb_watchdog_arm(3, "ncclAllGather", "kernel 0 (nccl) on rank 0");
    sleep_ms(10000); /* the watchdog ends this process after 3 s */
    _exit(0);
  }
  close(fd[1]);
  char err[2048];
  size_t n = 0;
  ssize_t r;
  while (n + 1 < sizeof err && (r = read(fd[0], err + n, sizeof err - 1 - n)) > 0) n += (size_t)r;
  err[n] = '\0';
  close(fd[0]);
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  CHECK_CONTAINS(err, "timed out after 3 s (-T) in ncclAllGather, kernel 0 (nccl) on rank 0");
  CHECK_CONTAINS(err, "; rank 1 (pid ");
  CHECK_CONTAINS(err, "(stopped)");
  /* The stopped grandchild, whatever the line said: its group goes. */
  kill(-child, SIGKILL);
  kill(-child, SIGCONT);
}

int main(void) {
  snprintf(path, sizeof path, "/tmp/collbench-test-live-%d", (int)getpid());
  test_board();
  test_watchdog_names_peer();
  unlink(path);
  return check_summary();
}
