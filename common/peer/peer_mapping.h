/* How our kernels map their peers' memory (peer_memory.c), chosen for
 * the whole run by the environment variable CB_PEER_MAPPING:
 *
 *   auto    (the default) cumem where every rank of the run can use it,
 *           else ipc; resolved at run time, on the GPUs, by every rank
 *           together (cb_peer_mapping_resolve_auto), before the buffers of
 *           our kernels are allocated;
 *   ipc     cudaMalloc memory, CUDA IPC handles between processes;
 *   cumem   cuMem allocations (cumem.h), exported as POSIX file descriptors
 *           that travel between the processes of one host over Unix
 *           sockets (SCM_RIGHTS);
 *   fabric  cuMem allocations exported as fabric handles, which travel
 *           through the world's all-gather: multi-node NVLink. Usable only
 *           where every rank's GPU supports fabric handles and NVML says
 *           they share one NVLink domain (cluster UUID and clique id).
 *           Never chosen by auto.
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

/* The mappings, and auto (a choice between two of them, not a mapping). */
typedef enum {
  CB_PEER_IPC = 0,
  CB_PEER_CUMEM = 1,
  CB_PEER_FABRIC = 2,
  CB_PEER_AUTO = 3
} cb_peer_mapping;
#define CB_PEER_MAPPINGS    3 /* ipc, cumem, fabric: what a run can map with */
#define CB_PEER_MAPPING_ENV "CB_PEER_MAPPING"

const char *cb_peer_mapping_name(cb_peer_mapping m); /* "auto" for CB_PEER_AUTO */
/* The variable's value (NULL: unset, auto) into *out, or why not (one line
 * naming the variable, the value and the choices). */
const char *cb_peer_mapping_parse(const char *value, cb_peer_mapping *out, char *why, size_t len);

/* The process's mapping, read by the peer-memory calls and the buffer
 * allocator. The harness sets CB_PEER_MAPPING's value before the rank
 * threads start; auto stays until the ranks resolve it, and each rank thread
 * then stores the mapping they chose together (the same on every rank).
 * Atomic: rank threads of one process store and load it concurrently. */
void cb_peer_mapping_use(cb_peer_mapping m);
cb_peer_mapping cb_peer_mapping_current(void);
/* The cuMem handle types (cumem.h) allocations need under m; 0 for ipc and
 * for an unresolved auto (no kernel of ours maps peer memory then). */
unsigned cb_peer_mapping_handle_types(cb_peer_mapping m);

/* What one rank found about its GPU for a mapping. */
typedef struct {
  char why[224];             /* empty: this rank can use the mapping */
  unsigned char cluster[16]; /* fabric only: NVML's cluster UUID */
  unsigned clique;           /* fabric only: NVML's clique id */
  /* cumem only: the process's network namespace (the inode of
   * /proc/self/ns/net; 0: unknown), where its Unix sockets live, and the
   * rank's group, within which namespaces are compared (a split's groups
   * may sit on different hosts). */
  unsigned long long netns;
  int group;
} cb_peer_mapping_probe;

/* Why mapping m cannot serve this rank's device, or NULL (probe filled). */
const char *cb_peer_mapping_probe_device(cb_peer_mapping m, int device, cb_peer_mapping_probe *p);
/* Why the ranks' probes rule the mapping out, or NULL: the first rank's own
 * reason, naming it; for cumem, ranks of a group in different network
 * namespaces; for fabric, ranks in different NVLink domains. */
const char *cb_peer_mapping_agree(cb_peer_mapping m, const cb_peer_mapping_probe *all, int n,
                                  char *why, size_t len);
/* Collective over the group: probes every rank's device and agrees. NULL
 * when the mapping can serve the run, else why not (the same on every
 * rank). ipc needs nothing and returns NULL without a collective call.
 * For a mapping named in CB_PEER_MAPPING, not auto. */
const char *cb_peer_mapping_check(cb_rank_info *me, int device, char *why, size_t len);

/* CB_PEER_MAPPING=auto as the ranks resolved it. */
typedef struct {
  int resolved;            /* 0: not resolved (no kernel of ours mapped peer memory) */
  cb_peer_mapping mapping; /* resolved: cumem, or ipc */
  char why[288];           /* ipc: why cumem could not serve the run ("<reason> (rank r)") */
} cb_peer_mapping_auto;

/* The pick from every rank's cumem probe (all[r] is rank r's): cumem when
 * the probes agree that it can serve (cb_peer_mapping_agree), else ipc with
 * the first refusing rank's reason, or the ranks whose namespaces differ. */
void cb_peer_mapping_auto_pick(const cb_peer_mapping_probe *all, int n, cb_peer_mapping_auto *out);
/* Collective over every rank of every group (the world's _all calls):
 * probes cumem on this rank's device, picks (the same on every rank, so the
 * run has one mapping to report) and makes the pick this process's
 * current mapping. */
void cb_peer_mapping_resolve_auto(cb_rank_info *me, int device, cb_peer_mapping_auto *out);

#ifdef __cplusplus
}
#endif

#endif
