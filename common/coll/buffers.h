/* Each rank's device buffers, sized once for the largest size of the sweep.
 * In place, the receive buffer is the one region both pointers fall in, so
 * it holds max(send, receive) bytes. With -u N every call's buffers start N
 * elements into them (nccl-tests' unalign), so each buffer has room for 8 N
 * bytes more (the widest element). Send and receive are allocated for the
 * kernel that runs, of the kind its row asks for (cb_buffer_kind): our
 * kernels map their buffers into their peers as CB_PEER_MAPPING says
 * (cudaMalloc memory for CUDA IPC, which cannot map the cuMem memory that
 * NCCL's registration and symmetric windows need; cuMem allocations of our
 * own, cumem.h, exportable as the mapping's handles, under cumem and fabric,
 * and under auto resolved to cumem), so neither kind can serve both; one set
 * at a time keeps the largest -e that fits the same as before. */
#ifndef CB_BUFFERS_H
#define CB_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#include "coll_shape.h"
#include "collective.h" /* cb_buffer_kind */

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes after a call's output region (cb_buffers_output_end) that the
 * validation poisons with its output and checks after the kernel: a kernel
 * that writes past the end of its output changes them. The receive buffer
 * holds them beyond the largest call. */
#define CB_GUARD_BYTES 4096

/* Calls validated back to back without the host in between (checked_calls.c)
 * at most, and the device words that count their results. */
#define CB_CHECK_SLOTS 64
typedef struct {
  unsigned long long wrong[CB_CHECK_SLOTS]; /* wrong elements of call i */
  unsigned long long hash[CB_CHECK_SLOTS];  /* hash of call i's output (rank agreement) */
  uint64_t round;                           /* data rounds used so far */
} cb_check_words;

typedef struct {
  void *send, *recv; /* NULL until cb_buffers_provide */
  size_t send_bytes, recv_bytes;
  int unalign;          /* -u: elements every call's pointers start into the buffers */
  cb_buffer_kind kind;  /* who allocated send and recv */
  unsigned cumem_types; /* CB_MEM_CUDA from cb_cumem_alloc with these handle types; 0: cudaMalloc */
  cb_check_words *check; /* device words of the validation (cudaMalloc) */
} cb_buffers;

/* Bytes a rank needs for messages up to max_bytes (any datatype), with
 * -u unalign elements in front, and the output's guard (CB_GUARD_BYTES)
 * after the receive buffer's region. */
void cb_buffers_need(const cb_coll_shape *shape, uint64_t max_bytes, int nranks, int unalign,
                     size_t *send, size_t *recv);
/* Largest message size whose buffers fit in avail bytes (0 if none). */
uint64_t cb_buffers_largest_fit(const cb_coll_shape *shape, int nranks, int unalign,
                                uint64_t avail);

/* Sizes the buffers (-u unalign elements in front) and allocates the
 * validation words; send and receive come from cb_buffers_provide. */
void cb_buffers_init(cb_buffers *b, size_t send_bytes, size_t recv_bytes, int unalign);
/* Send and receive buffers of kind, reallocated (contents lost) when the
 * ones held are of the other kind. */
void cb_buffers_provide(cb_buffers *b, cb_buffer_kind kind);
void cb_buffers_free(cb_buffers *b);

/* Device memory of our kernels' kind (CB_MEM_CUDA), allocated as the
 * harness's buffers for them are under the run's peer mapping, so a kernel
 * can map it into its peers: a hierarchical kernel's buffers between its
 * steps (hier.h). At least one byte. */
void *cb_buffers_alloc_ours(size_t bytes);
void cb_buffers_free_ours(void *p);

/* Where a call of elem-byte elements starts in buffer base (-u). */
static inline char *cb_buffers_start(const cb_buffers *b, void *base, size_t elem) {
  return (char *)base + (size_t)b->unalign * elem;
}

/* The end of a placed call's output region, where its guard begins: out of
 * place its output (recv_count elements from call->recv); in place the one
 * region both lie in (the larger count, from the start of the receive
 * buffer). */
char *cb_buffers_output_end(const cb_buffers *b, const cb_call *call, const cb_counts *c,
                            size_t elem);

#ifdef __cplusplus
}
#endif

#endif
