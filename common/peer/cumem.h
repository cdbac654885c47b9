/* Device memory from the driver's virtual memory calls (cuMem), for peer
 * memory under CB_PEER_MAPPING=cumem or fabric (peer_memory.c): pinned
 * device memory, its size rounded up to the allocation granularity, mapped
 * into a VA range reserved for it, readable and writable by its own device
 * and by every device that can reach it peer to peer (so the ranks of one
 * process use each other's pointers as they are). Unlike cudaMalloc memory,
 * it can be exported as a shareable handle: a POSIX file descriptor, or a
 * fabric handle inside a multi-node NVLink domain.
 *
 * Each allocation is recorded in a process-wide registry, so that the
 * allocation a pointer into it belongs to (its base and rounded size) can be
 * found: cb_peer_share maps the harness's buffers by a pointer. */
#ifndef CB_CUMEM_H
#define CB_CUMEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* bytes rounded up to a multiple of granularity (a power of two or not);
 * at least one granularity, so an empty buffer still maps. */
size_t cb_cumem_round_up(size_t bytes, size_t granularity);

/* Allocation handle types, the driver's CUmemAllocationHandleType bits. */
enum { CB_CUMEM_POSIX_FD = 0x1, CB_CUMEM_FABRIC = 0x8 };

/* bytes of device memory on device (not zeroed), exportable as the handle
 * types asked for; stops the program on failure. */
void *cb_cumem_alloc(size_t bytes, int device, unsigned handle_types);
/* Unmaps and frees an allocation of cb_cumem_alloc (by its base). */
void cb_cumem_free(void *base);

/* The allocation holding ptr: what the registry knows. */
typedef struct {
  void *base;            /* where its mapping starts */
  size_t size;           /* its size, rounded to the granularity */
  int device;            /* where its memory is */
  unsigned handle_types; /* what it can be exported as */
} cb_cumem_region;

/* 0 with *out filled when ptr lies in an allocation of cb_cumem_alloc
 * (or one cb_cumem_register recorded); -1 otherwise. */
int cb_cumem_find(const void *ptr, cb_cumem_region *out);
/* The registry alone, for tests: records or forgets a region. */
void cb_cumem_register(const cb_cumem_region *r);
void cb_cumem_unregister(const void *base);

#ifdef __cplusplus
}
#endif

#endif
