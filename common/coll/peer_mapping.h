/* How our kernels map their peers' memory (mesh/peer_memory.c), chosen for
 * the whole run by the environment variable CB_PEER_MAPPING:
 *
 *   ipc     cudaMalloc memory, CUDA IPC handles between processes (default:
 *           the mapping every kernel has been validated with on GPUs);
 *   cumem   cuMem allocations (cumem.h), exported as POSIX file descriptors
 *           that travel between the processes of one host over Unix
 *           sockets (SCM_RIGHTS);
 *   fabric  cuMem allocations exported as fabric handles, which travel
 *           through the world's all-gather: multi-node NVLink. Usable only
 *           where every rank's GPU supports fabric handles and NVML says
 *           they share one NVLink domain (cluster UUID and clique id).
 *
 * Within one process every mapping uses plain pointers. The harness
 * allocates the send and receive buffers of our kernels (CB_MEM_CUDA) to
 * suit the mapping (cb_peer_mapping_handle_types). */
#ifndef CB_PEER_MAPPING_H
#define CB_PEER_MAPPING_H

#include <stddef.h>

#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CB_PEER_IPC = 0, CB_PEER_CUMEM = 1, CB_PEER_FABRIC = 2 } cb_peer_mapping;
#define CB_PEER_MAPPINGS    3
#define CB_PEER_MAPPING_ENV "CB_PEER_MAPPING"

const char *cb_peer_mapping_name(cb_peer_mapping m);
/* The variable's value (NULL: unset, ipc) into *out, or why not (one line
 * naming the variable, the value and the choices). */
const char *cb_peer_mapping_parse(const char *value, cb_peer_mapping *out, char *why, size_t len);

/* The run's mapping: set once by the harness before the rank threads start,
 * read by the peer-memory calls and the buffer allocator. */
void cb_peer_mapping_use(cb_peer_mapping m);
cb_peer_mapping cb_peer_mapping_current(void);
/* The cuMem handle types (cumem.h) allocations need under m; 0 for ipc. */
unsigned cb_peer_mapping_handle_types(cb_peer_mapping m);

/* What one rank found about its GPU for a mapping. */
typedef struct {
  char why[224];             /* empty: this rank can use the mapping */
  unsigned char cluster[16]; /* fabric only: NVML's cluster UUID */
  unsigned clique;           /* fabric only: NVML's clique id */
} cb_peer_mapping_probe;

/* Why mapping m cannot serve this rank's device, or NULL (probe filled). */
const char *cb_peer_mapping_probe_device(cb_peer_mapping m, int device, cb_peer_mapping_probe *p);
/* Why the ranks' probes rule the mapping out, or NULL: the first rank's own
 * reason, naming it; for fabric, ranks in different NVLink domains. */
const char *cb_peer_mapping_agree(cb_peer_mapping m, const cb_peer_mapping_probe *all, int n,
                                  char *why, size_t len);
/* Collective over the group: probes every rank's device and agrees. NULL
 * when the mapping can serve the run, else why not (the same on every
 * rank). ipc needs nothing and returns NULL without a collective call. */
const char *cb_peer_mapping_check(cb_rank_info *me, int device, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
