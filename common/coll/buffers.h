/* Each rank's device buffers, allocated once for the largest size of the
 * sweep. In place, the receive buffer is the one region both pointers fall
 * in, so it holds max(send, receive) bytes. */
#ifndef CB_BUFFERS_H
#define CB_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#include "coll_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  void *send, *recv;
  size_t send_bytes, recv_bytes;
  unsigned long long *counter; /* device word for validation results */
} cb_buffers;

/* Bytes a rank needs for messages up to max_bytes (any datatype). */
void cb_buffers_need(const cb_coll_shape *shape, uint64_t max_bytes, int nranks, size_t *send,
                     size_t *recv);
/* Largest message size whose buffers fit in avail bytes (0 if none). */
uint64_t cb_buffers_largest_fit(const cb_coll_shape *shape, int nranks, uint64_t avail);

void cb_buffers_alloc(cb_buffers *b, size_t send_bytes, size_t recv_bytes);
void cb_buffers_free(cb_buffers *b);

#ifdef __cplusplus
}
#endif

#endif
