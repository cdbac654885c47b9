#define _GNU_SOURCE /* MSG_CMSG_CLOEXEC, accept4, SOCK_CLOEXEC */
#include "fd_pass.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define FD_MAGIC 0x63626664u /* "cbfd": a stray connection is told apart */

/* What travels with the descriptor. */
typedef struct {
  uint32_t magic;
  int32_t rank;
  uint64_t run_id;
} fd_message;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* splitmix64's finaliser: every input bit moves every output bit. */
static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t cb_fd_run_id(void) {
  static atomic_uint_fast64_t counter;
  uint64_t n = atomic_fetch_add(&counter, 1);
  /* The process id keeps two processes apart even at the same instant; the
   * counter keeps two calls of one process apart. */
  return mix(((uint64_t)getpid() << 32) ^ n) ^ mix(now_ns() + n);
}

void cb_fd_socket_name(uint64_t run_id, int rank, char *buf, size_t len) {
  snprintf(buf, len, "collbench-%016llx-r%d", (unsigned long long)run_id, rank);
}

/* The abstract address of name: a NUL byte, then the name (no terminator). */
static socklen_t abstract_address(const char *name, struct sockaddr_un *a) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  size_t n = strlen(name);
  if (n > sizeof a->sun_path - 1) n = sizeof a->sun_path - 1;
  memcpy(a->sun_path + 1, name, n);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int fail(char *why, size_t len, const char *what, const char *name) {
  snprintf(why, len, "%s %s: %s", what, name, strerror(errno));
  return -1;
}

int cb_fd_listen(const char *name, int backlog, char *why, size_t len) {
  struct sockaddr_un a;
  socklen_t alen = abstract_address(name, &a);
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return fail(why, len, "socket for", name);
  if (bind(s, (struct sockaddr *)&a, alen) != 0 || listen(s, backlog) != 0) {
    int e = errno;
    close(s);
    errno = e;
    return fail(why, len, "cannot listen on", name);
  }
  return s;
}

int cb_fd_send(int sock, uint64_t run_id, int rank, int fd, char *why, size_t len) {
  fd_message m = {FD_MAGIC, rank, run_id};
  struct iovec iov = {&m, sizeof m};
  union { /* aligned room for one descriptor */
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } c;
  memset(&c, 0, sizeof c);
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = c.buf;
  msg.msg_controllen = sizeof c.buf;
  struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
  h->cmsg_level = SOL_SOCKET;
  h->cmsg_type = SCM_RIGHTS;
  h->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(h), &fd, sizeof fd);
  ssize_t n;
  do n = sendmsg(sock, &msg, MSG_NOSIGNAL); /* a closed peer: EPIPE, not SIGPIPE */
  while (n < 0 && errno == EINTR);
  if (n != (ssize_t)sizeof m) {
    snprintf(why, len, "sending a file descriptor: %s", n < 0 ? strerror(errno) : "short write");
    return -1;
  }
  return 0;
}

int cb_fd_send_to(const char *name, uint64_t run_id, int rank, int fd, int timeout_ms, char *why,
                  size_t len) {
  struct sockaddr_un a;
  socklen_t alen = abstract_address(name, &a);
  uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
  for (;;) {
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return fail(why, len, "socket for", name);
    if (connect(s, (struct sockaddr *)&a, alen) == 0) {
      int rc = cb_fd_send(s, run_id, rank, fd, why, len);
      close(s); /* the message, descriptor included, stays queued for the listener */
      return rc;
    }
    int e = errno;
    close(s);
    /* Not listening yet, or its queue is full: try again until the deadline. */
    int again = e == ECONNREFUSED || e == ENOENT || e == EAGAIN || e == EINTR;
    if (!again || now_ns() >= deadline) {
      errno = e;
      snprintf(why, len, "cannot connect to %s within %d ms: %s", name, timeout_ms, strerror(e));
      return -1;
    }
    usleep(2000);
  }
}

/* Waits until sock is readable; 0, or -1 with why. */
static int wait_readable(int sock, int timeout_ms, const char *what, char *why, size_t len) {
  uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
  for (;;) {
    uint64_t now = now_ns();
    int left = now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
    struct pollfd p = {sock, POLLIN, 0};
    int n = poll(&p, 1, left);
    if (n > 0) return 0;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      snprintf(why, len, "waiting for %s: %s", what, strerror(errno));
      return -1;
    }
    snprintf(why, len, "no %s within %d ms", what, timeout_ms);
    return -1;
  }
}

int cb_fd_recv(int sock, uint64_t run_id, int timeout_ms, int *rank, int *fd, char *why,
               size_t len) {
  if (wait_readable(sock, timeout_ms, "file descriptor from the peer", why, len)) return -1;
  fd_message m;
  struct iovec iov = {&m, sizeof m};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } c;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = c.buf;
  msg.msg_controllen = sizeof c.buf;
  ssize_t n;
  do n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  while (n < 0 && errno == EINTR);
  struct cmsghdr *h = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
  int got = -1;
  if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
      h->cmsg_len == CMSG_LEN(sizeof(int)))
    memcpy(&got, CMSG_DATA(h), sizeof got);
  const char *bad = NULL;
  if (n < 0)
    bad = strerror(errno);
  else if (n == 0)
    bad = "the peer closed the connection without sending";
  else if (n != (ssize_t)sizeof m || m.magic != FD_MAGIC)
    bad = "a message that is not collbench's";
  else if (m.run_id != run_id)
    bad = "a message of another run";
  else if (got < 0)
    bad = "a message without a file descriptor";
  else if (msg.msg_flags & MSG_CTRUNC)
    bad = "a message with more descriptors than one";
  if (bad) {
    if (got >= 0) close(got);
    snprintf(why, len, "receiving a file descriptor: %s", bad);
    return -1;
  }
  *rank = m.rank;
  *fd = got;
  return 0;
}

int cb_fd_accept_recv(int listener, uint64_t run_id, int timeout_ms, int *rank, int *fd, char *why,
                      size_t len) {
  if (wait_readable(listener, timeout_ms, "connection from a peer", why, len)) return -1;
  int s = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
  if (s < 0) {
    snprintf(why, len, "accepting a peer's connection: %s", strerror(errno));
    return -1;
  }
  int rc = cb_fd_recv(s, run_id, timeout_ms, rank, fd, why, len);
  close(s);
  return rc;
}
