/* File descriptors between the processes of one host: how cuMem allocations
 * exported as POSIX file descriptors reach their peers (peer_memory.c under
 * CB_PEER_MAPPING=cumem). A descriptor is a process's own number, so it
 * travels as SCM_RIGHTS ancillary data over a Unix domain socket, which
 * makes the kernel install a copy in the receiver.
 *
 * Each rank listens on a socket in Linux's abstract namespace named after
 * the run and the rank (cb_fd_socket_name): nothing in the file system to
 * clean up, and the name disappears with the last descriptor of the socket,
 * so a process that dies leaves nothing behind. Every wait is bounded: a
 * peer that is gone or never sends gives an error naming what was missing,
 * never a hang. No GPU in here: tested on the CPU (tests/unit/test_fd_pass.c).
 *
 * Every call returns 0 on success, or -1 with why set to one line. */
#ifndef CB_FD_PASS_H
#define CB_FD_PASS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A fresh id, unique on this host: this process's id, the monotonic clock
 * and a per-process counter, mixed. The ranks of a run agree on rank 0's
 * (through the world's all-gather) before naming their sockets. */
uint64_t cb_fd_run_id(void);
/* The abstract socket name of rank in run run_id (without the leading NUL
 * byte of the abstract namespace). */
void cb_fd_socket_name(uint64_t run_id, int rank, char *buf, size_t len);

/* A socket listening on the abstract name; its descriptor, or -1. */
int cb_fd_listen(const char *name, int backlog, char *why, size_t len);

/* Sends fd, tagged with run_id and the sender's rank, on a connected socket. */
int cb_fd_send(int sock, uint64_t run_id, int rank, int fd, char *why, size_t len);
/* Connects to the listener of name (retrying until timeout_ms while it is
 * not there yet) and sends fd as cb_fd_send does. */
int cb_fd_send_to(const char *name, uint64_t run_id, int rank, int fd, int timeout_ms, char *why,
                  size_t len);

/* Receives one descriptor from a connected socket within timeout_ms: *fd
 * (the receiver's own, close-on-exec) and the sender's *rank. A message of
 * another run, one without a descriptor, and a peer that closes without
 * sending are errors. */
int cb_fd_recv(int sock, uint64_t run_id, int timeout_ms, int *rank, int *fd, char *why,
               size_t len);
/* Accepts one connection on a listener within timeout_ms and receives its
 * descriptor as cb_fd_recv does. */
int cb_fd_accept_recv(int listener, uint64_t run_id, int timeout_ms, int *rank, int *fd, char *why,
                      size_t len);

#ifdef __cplusplus
}
#endif

#endif
