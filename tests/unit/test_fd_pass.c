/* File descriptors between two processes (fd_pass.h), as CB_PEER_MAPPING=cumem
 * passes cuMem exports: over a socketpair and over the abstract-namespace
 * listener of a rank, from a forked child; and every way a peer can fail
 * (gone, silent, another run's, not ours) ending in an error within its
 * timeout, never a hang. The socket names: unique per run and per rank. */
#define _GNU_SOURCE /* memfd-free temporary files: tmpfile; usleep */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fd_pass.h"

static char why[256];

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A file only its descriptor reaches (unlinked), holding text. */
static int file_with(const char *text) {
  FILE *f = check_tmpfile();
  fputs(text, f);
  fflush(f);
  return dup(fileno(f)); /* the FILE leaks in the child, which exits at once */
}

/* What the file behind fd holds from its start. */
static void check_holds(int fd, const char *text) {
  char buf[64] = {0};
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  CHECKF(n == (ssize_t)strlen(text) && strcmp(buf, text) == 0, "received file holds [%s], not [%s]",
         buf, text);
}

static int child_status(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void test_names(void) {
  uint64_t a = cb_fd_run_id(), b = cb_fd_run_id();
  CHECK(a != b); /* two calls of one process */
  char n0[64], n1[64], again[64], other[64];
  cb_fd_socket_name(a, 0, n0, sizeof n0);
  cb_fd_socket_name(a, 1, n1, sizeof n1);
  cb_fd_socket_name(a, 0, again, sizeof again);
  cb_fd_socket_name(b, 0, other, sizeof other);
  CHECK_STR(n0, again); /* every rank computes its peers' names alike */
  CHECK(strcmp(n0, n1) != 0);
  CHECK(strcmp(n0, other) != 0);
  CHECK_CONTAINS(n0, "collbench-");
  CHECK_CONTAINS(n1, "-r1");
  CHECK(strlen(n0) < sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
  /* Another process (another run) at the same moment gets another id. */
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    uint64_t c = cb_fd_run_id();
    _exit(write(p[1], &c, sizeof c) == (ssize_t)sizeof c ? 0 : 1);
  }
  uint64_t c = 0;
  CHECK(read(p[0], &c, sizeof c) == (ssize_t)sizeof c);
  CHECK_EQ_INT(child_status(pid), 0);
  CHECK(c != a && c != b);
  close(p[0]);
  close(p[1]);
}

static void test_socketpair(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    int fd = file_with("from the child");
    _exit(cb_fd_send(sv[1], 42, 3, fd, why, sizeof why) == 0 ? 0 : 1);
  }
  close(sv[1]);
  int rank = -1, fd = -1;
  int rc = cb_fd_recv(sv[0], 42, 5000, &rank, &fd, why, sizeof why);
  CHECKF(rc == 0, "recv: %s", why);
  CHECK_EQ_INT(rank, 3);
  if (rc == 0) {
    check_holds(fd, "from the child");
    close(fd);
  }
  CHECK_EQ_INT(child_status(pid), 0);
  close(sv[0]);
}

static void test_listener(void) {
  uint64_t id = cb_fd_run_id();
  char name[64];
  cb_fd_socket_name(id, 0, name, sizeof name);
  int l = cb_fd_listen(name, 8, why, sizeof why);
  CHECKF(l >= 0, "listen: %s", why);
  if (l < 0) return;
  /* The name is taken while the listener lives. */
  CHECK(cb_fd_listen(name, 8, why, sizeof why) < 0);
  CHECK_CONTAINS(why, "cannot listen on");
  pid_t pid = fork();
  if (pid == 0) {
    int fd = file_with("by name");
    _exit(cb_fd_send_to(name, id, 5, fd, 5000, why, sizeof why) == 0 ? 0 : 1);
  }
  int rank = -1, fd = -1;
  int rc = cb_fd_accept_recv(l, id, 5000, &rank, &fd, why, sizeof why);
  CHECKF(rc == 0, "accept_recv: %s", why);
  CHECK_EQ_INT(rank, 5);
  if (rc == 0) {
    check_holds(fd, "by name");
    close(fd);
  }
  CHECK_EQ_INT(child_status(pid), 0);
  close(l);
  /* Gone with its socket: the name is free again, and no one listens. */
  double t0 = seconds();
  int dummy = file_with("x");
  CHECK(cb_fd_send_to(name, id, 0, dummy, 200, why, sizeof why) != 0);
  CHECK_CONTAINS(why, "cannot connect to");
  CHECK(seconds() - t0 < 3.0);
  close(dummy);
}

/* What the exchange in peer_memory.c relies on: every rank sends to every
 * peer before it accepts anything, so a send must not wait for the
 * receiver's accept (the kernel queues the connection and the message, the
 * descriptor included, even after the sender closed its end). Two ranks'
 * listeners of one run live side by side. */
static void test_send_before_accept(void) {
  uint64_t id = cb_fd_run_id();
  char n0[64], n1[64];
  cb_fd_socket_name(id, 0, n0, sizeof n0);
  cb_fd_socket_name(id, 1, n1, sizeof n1);
  int l0 = cb_fd_listen(n0, 8, why, sizeof why), l1 = cb_fd_listen(n1, 8, why, sizeof why);
  CHECK(l0 >= 0 && l1 >= 0);
  if (l0 < 0 || l1 < 0) return;
  int a = file_with("rank 0's"), b = file_with("rank 1's");
  CHECKF(cb_fd_send_to(n1, id, 0, a, 1000, why, sizeof why) == 0, "0 -> 1: %s", why);
  CHECKF(cb_fd_send_to(n0, id, 1, b, 1000, why, sizeof why) == 0, "1 -> 0: %s", why);
  close(a); /* as the exchange closes its export once sent */
  close(b);
  int rank = -1, fd = -1;
  CHECKF(cb_fd_accept_recv(l1, id, 1000, &rank, &fd, why, sizeof why) == 0, "at 1: %s", why);
  CHECK_EQ_INT(rank, 0);
  if (fd >= 0) check_holds(fd, "rank 0's"), close(fd);
  fd = -1;
  CHECKF(cb_fd_accept_recv(l0, id, 1000, &rank, &fd, why, sizeof why) == 0, "at 0: %s", why);
  CHECK_EQ_INT(rank, 1);
  if (fd >= 0) check_holds(fd, "rank 1's"), close(fd);
  close(l0);
  close(l1);
}

/* A peer that dies without sending: an error at once, not at the timeout. */
static void test_peer_gone(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  pid_t pid = fork();
  if (pid == 0) _exit(0); /* its end closes with it */
  close(sv[1]);
  double t0 = seconds();
  int rank, fd;
  CHECK(cb_fd_recv(sv[0], 1, 20000, &rank, &fd, why, sizeof why) != 0);
  CHECK_CONTAINS(why, "closed the connection without sending");
  CHECK(seconds() - t0 < 10.0);
  CHECK_EQ_INT(child_status(pid), 0);
  close(sv[0]);
}

/* A peer that stays but never sends: the timeout, with what was missing. */
static void test_peer_silent(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  double t0 = seconds();
  int rank, fd;
  CHECK(cb_fd_recv(sv[0], 1, 200, &rank, &fd, why, sizeof why) != 0);
  double took = seconds() - t0;
  CHECK_CONTAINS(why, "within 200 ms");
  CHECKF(took >= 0.15 && took < 5.0, "took %.3f s", took);
  close(sv[0]);
  close(sv[1]);
  /* A listener nobody connects to. */
  char name[64];
  uint64_t id = cb_fd_run_id();
  cb_fd_socket_name(id, 7, name, sizeof name);
  int l = cb_fd_listen(name, 8, why, sizeof why);
  CHECK(l >= 0);
  if (l >= 0) {
    CHECK(cb_fd_accept_recv(l, id, 200, &rank, &fd, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "no connection from a peer within 200 ms");
    close(l);
  }
}

/* Messages that are not what the exchange expects. */
static void test_bad_messages(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  int fd = file_with("stale");
  CHECK(cb_fd_send(sv[1], 99, 0, fd, why, sizeof why) == 0);
  int rank, got;
  CHECK(cb_fd_recv(sv[0], 100, 1000, &rank, &got, why, sizeof why) != 0);
  CHECK_CONTAINS(why, "another run");
  char zeros[16] = {0};
  CHECK(write(sv[1], zeros, sizeof zeros) == (ssize_t)sizeof zeros);
  CHECK(cb_fd_recv(sv[0], 100, 1000, &rank, &got, why, sizeof why) != 0);
  CHECK_CONTAINS(why, "not collbench's");
  /* Sending to a peer that is gone: an error, not SIGPIPE. */
  close(sv[0]);
  CHECK(cb_fd_send(sv[1], 1, 0, fd, why, sizeof why) != 0);
  CHECK_CONTAINS(why, "sending a file descriptor");
  close(sv[1]);
  close(fd);
}

int main(void) {
  signal(SIGPIPE, SIG_DFL); /* a SIGPIPE would end the test: cb_fd_send must avoid it */
  test_names();
  test_socketpair();
  test_listener();
  test_send_before_accept();
  test_peer_gone();
  test_peer_silent();
  test_bad_messages();
  return check_summary();
}
