/* Peer memory, the harness's service to a kernel's setup: buffers every
 * rank of one host can address, each rank's mapped into every rank's
 * address space by the run's mapping (CB_PEER_MAPPING: cuMem allocations,
 * CUDA IPC or fabric handles). Set up once, outside any timing; the
 * harness's own send and receive buffers (cb_kernel_ctx) are mapped with
 * cb_peer_share, a kernel's scratch and flags allocated with cb_peer_alloc. */
#ifndef COLLBENCH_PEER_H
#define COLLBENCH_PEER_H

#include <stddef.h>

#include "collbench/world.h"

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
#ifdef __cplusplus
}
#endif

#endif
