/* Each rank's device buffers, sized once for the largest size of the sweep.
 * In place, the receive buffer is the one region both pointers fall in, so
 * it holds max(send, receive) bytes. Send and receive are allocated for the
 * kernel that runs, of the kind its row asks for (cb_buffer_kind): our
 * kernels map cudaMalloc memory into their peers with CUDA IPC, which cannot
 * map the cuMem memory that NCCL's registration and symmetric windows need,
 * so neither kind can serve both; one set at a time keeps the largest -e that
 * fits the same as before. */
#ifndef CB_BUFFERS_H
#define CB_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#include "coll_shape.h"
#include "collective.h" /* cb_buffer_kind */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  void *send, *recv; /* NULL until cb_buffers_provide */
  size_t send_bytes, recv_bytes;
  cb_buffer_kind kind;         /* who allocated send and recv */
  unsigned long long *counter; /* device word for validation results (cudaMalloc) */
} cb_buffers;

/* Bytes a rank needs for messages up to max_bytes (any datatype). */
void cb_buffers_need(const cb_coll_shape *shape, uint64_t max_bytes, int nranks, size_t *send,
                     size_t *recv);
/* Largest message size whose buffers fit in avail bytes (0 if none). */
uint64_t cb_buffers_largest_fit(const cb_coll_shape *shape, int nranks, uint64_t avail);

/* Sizes the buffers and allocates the validation counter; send and receive
 * come from cb_buffers_provide. */
void cb_buffers_init(cb_buffers *b, size_t send_bytes, size_t recv_bytes);
/* Send and receive buffers of kind, reallocated (contents lost) when the
 * ones held are of the other kind. */
void cb_buffers_provide(cb_buffers *b, cb_buffer_kind kind);
void cb_buffers_free(cb_buffers *b);

#ifdef __cplusplus
}
#endif

#endif
