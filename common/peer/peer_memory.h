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

#include "collbench/peer.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

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
