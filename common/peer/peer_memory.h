/* Memory every rank of one host can address: each rank allocates (or
 * shares) a buffer, and gets every peer's buffer mapped into its own address
 * space. Within one process the peers' pointers are used directly with peer
 * access enabled. Across processes the run's mapping (CB_PEER_MAPPING,
 * peer_mapping.h; auto is resolved to cumem or ipc before any kernel's
 * setup) decides how a buffer travels:
 *   ipc     cudaMalloc memory; CUDA IPC handles through the world's all-gather;
 *   cumem   cuMem memory (cumem.h); POSIX file descriptors over Unix
 *           sockets (fd_pass.h), imported and mapped into a reserved range;
 *   fabric  cuMem memory; fabric handles through the world's all-gather.
 * Set up once, outside any timing. */
#ifndef CB_PEER_MEMORY_H
#define CB_PEER_MEMORY_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_MAX_PEERS 8 /* ranks a peer-memory kernel serves: one host */

typedef struct {
  void *ptr[CB_MAX_PEERS]; /* ptr[r]: rank r's buffer as this rank addresses it */
  size_t bytes;
  int owned;                    /* this rank allocated ptr[rank] (cb_peer_alloc) */
  int mapping;                  /* the cb_peer_mapping it was mapped with */
  int ipc_opened[CB_MAX_PEERS]; /* ptr[r] came from cudaIpcOpenMemHandle */
  /* cumem, fabric: rank r's allocation imported into a range of this
   * process (its base and size; 0 bytes: nothing imported). */
  void *import_base[CB_MAX_PEERS];
  size_t import_bytes[CB_MAX_PEERS];
  int rank, nranks;
} cb_peer_buffer;

/* Collective: allocates bytes on the current device, zeroed (cudaMalloc
 * under ipc, cb_cumem_alloc otherwise), and maps every rank's allocation. */
void cb_peer_alloc(cb_rank_info *me, size_t bytes, cb_peer_buffer *out);
/* Collective: maps an allocation the rank already has: a cudaMalloc base
 * under ipc; under cumem or fabric, any pointer into a cb_cumem_alloc
 * allocation (its offset in it is kept). */
void cb_peer_share(cb_rank_info *me, void *local, size_t bytes, cb_peer_buffer *out);
/* Collective: unmaps the peers' buffers (after a barrier, so no rank frees
 * memory a peer still maps) and frees an owned allocation. */
void cb_peer_free(cb_rank_info *me, cb_peer_buffer *b);

/* The address on rank r of the byte that local_ptr addresses in this rank's
 * buffer (same offset). */
static inline void *cb_peer_ptr(const cb_peer_buffer *b, int r, const void *local_ptr) {
  return (char *)b->ptr[r] + ((const char *)local_ptr - (const char *)b->ptr[b->rank]);
}

/* The address on rank r of the byte local_ptr addresses in whichever of the
 * n buffers b[] holds it (an in-place call's send pointer lies in the
 * receive buffer); NULL when none does. */
static inline void *cb_peer_ptr_in(const cb_peer_buffer *b, int n, int r, const void *local_ptr) {
  for (int i = 0; i < n; i++) {
    const char *base = (const char *)b[i].ptr[b[i].rank];
    const char *p = (const char *)local_ptr;
    if (p >= base && p < base + b[i].bytes) return cb_peer_ptr(&b[i], r, local_ptr);
  }
  return NULL;
}

/* ---- one buffer for one peer ------------------------------------------------
 * copy_perf's d2d: rank 0 copies into rank 1's buffer while every other rank
 * idles, so only those two take part (the run may have more ranks than
 * CB_MAX_PEERS), and a missing P2P path is a reason to skip the copies, not a
 * stop. The offering rank makes an offer, a plain struct that reaches the
 * other rank however the caller exchanges data (the world's all-gather), and
 * the other rank opens it: within one process the pointer as it is, with
 * peer access enabled; across processes through a CUDA IPC handle, the way
 * CB_PEER_MAPPING=ipc maps, since the offered buffer is cudaMalloc memory. */
typedef struct {
  int pid;                   /* the offering process */
  void *ptr;                 /* the buffer, as the offering process addresses it */
  size_t offset;             /* of ptr in its allocation, which is what an IPC handle names */
  cudaIpcMemHandle_t handle; /* the allocation, when offered to another process */
} cb_peer_offer;

/* An opened offer. */
typedef struct {
  void *ptr;      /* the peer's buffer as this process addresses it; NULL: none */
  void *ipc_base; /* the allocation opened through CUDA IPC, else NULL (same process) */
} cb_peer_view;

/* The offer of ptr, which lies in the cudaMalloc allocation at base, to a
 * rank of this process or, with other_process, of another one (only then is
 * an IPC handle made). */
void cb_peer_offer_make(void *base, void *ptr, int other_process, cb_peer_offer *out);
/* Opens o on this rank's device (the current one), the offering rank's GPU
 * being peer_device as this process numbers it: NULL with *out set, or why
 * not (no P2P path between the two) with *out empty. */
const char *cb_peer_open(const cb_peer_offer *o, int device, int peer_device, cb_peer_view *out,
                         char *why, size_t len);
/* Closes what cb_peer_open opened (nothing for an empty view); before the
 * offering rank frees its buffer. */
void cb_peer_close(cb_peer_view *v);

#ifdef __cplusplus
}
#endif

#endif
