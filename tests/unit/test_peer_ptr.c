/* cb_peer_ptr and cb_peer_ptr_in: a call's pointer translated into the same
 * byte of a peer's buffer (how the ce and direct kernels find peers' send and
 * receive buffers, in-place calls included); and the offer of one buffer
 * inside its allocation (copy_perf's d2d), within one process. Pure address
 * arithmetic: no GPU. */
#include <stddef.h>
#include <unistd.h>

#include "check.h"
#include "peer_memory.h"

static cb_peer_buffer buffer(int rank, char *mine, char *peer, size_t bytes) {
  cb_peer_buffer b = {.bytes = bytes, .rank = rank, .nranks = 2};
  b.ptr[rank] = mine;
  b.ptr[1 - rank] = peer;
  return b;
}

int main(void) {
  static char send0[64], recv0[128], send1[64], recv1[128], other[8];
  /* Rank 0's view: its own buffers and rank 1's mapped ones. */
  cb_peer_buffer bufs[2] = {buffer(0, send0, send1, sizeof send0),
                            buffer(0, recv0, recv1, sizeof recv0)};
  CHECK(cb_peer_ptr(&bufs[0], 1, send0 + 16) == send1 + 16);
  CHECK(cb_peer_ptr(&bufs[0], 0, send0 + 16) == send0 + 16);
  /* The buffer that holds the pointer is the one translated. */
  CHECK(cb_peer_ptr_in(bufs, 2, 1, send0) == send1);
  CHECK(cb_peer_ptr_in(bufs, 2, 1, send0 + 63) == send1 + 63);
  CHECK(cb_peer_ptr_in(bufs, 2, 1, recv0 + 100) == recv1 + 100);
  /* In place, the send pointer lies in the receive buffer. */
  CHECK(cb_peer_ptr_in(bufs, 2, 1, recv0 + 32) == recv1 + 32);
  /* In no buffer, or in a buffer not listed: none. */
  CHECK(cb_peer_ptr_in(bufs, 2, 1, other) == NULL);
  CHECK(cb_peer_ptr_in(&bufs[1], 1, 1, send0) == NULL);
  CHECK(cb_peer_ptr_in(bufs, 0, 1, send0) == NULL);

  /* An offer within the process names the buffer and its offset in the
   * allocation (what an IPC handle opens is the allocation's base). */
  static char alloc[256];
  cb_peer_offer o;
  cb_peer_offer_make(alloc, alloc + 64, 0, &o);
  CHECK(o.pid == (int)getpid());
  CHECK(o.ptr == alloc + 64);
  CHECK(o.offset == 64);
  /* Closing a view that opened nothing is a no-op. */
  cb_peer_view v = {.ptr = alloc};
  cb_peer_close(&v);
  CHECK(v.ptr == NULL && v.ipc_base == NULL);
  return check_summary();
}
