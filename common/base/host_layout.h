/* Which host each process of a run is on, and what that makes of its ranks:
 * the processes with one host identity are one host (its node group), and
 * the ranks with one index on their host across the hosts are one rail.
 * A host's identity is what NCCL takes for it: NCCL_HOSTID when the process
 * has it, else the machine's name (NCCL adds the machine's boot id to the
 * name, which tells machines of one name apart; collbench's processes of one
 * machine are told apart by MPI's shared-memory split as well, see world.c).
 *
 * Simulated hosts: CB_HOSTS=H makes the P processes of one machine H hosts
 * of P / H processes each, process p on host p / (P / H), by giving each
 * its own NCCL_HOSTID before NCCL starts. NCCL's rule of one rank per GPU
 * is a host's, so ranks of different simulated hosts may share a GPU, and
 * NCCL's traffic between them takes its network transport (sockets on this
 * machine), as between nodes. Plain logic here, tested on any machine. */
#ifndef CB_HOST_LAYOUT_H
#define CB_HOST_LAYOUT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest host identity kept, with its terminating zero. */
#define CB_HOST_ID_MAX 256

/* Where one process is. */
typedef struct {
  int host;         /* the host's index: hosts are numbered by their first process */
  int local_proc;   /* the process's index among its host's, in process order */
  int local_nprocs; /* processes on its host */
} cb_host_place;

/* The identity of this process's host: nccl_hostid (NCCL_HOSTID's value, or
 * NULL when unset) or else machine, the machine's name. */
void cb_host_identity(const char *machine, const char *nccl_hostid, char *id, size_t len);

/* CB_HOSTS=nhosts for process proc of nprocs on machine `machine`: writes
 * the identity of its simulated host ("<machine>-host<k>") into id and
 * returns NULL, or returns why the layout is refused (one line into why):
 * a process count that is not a multiple of nhosts, or nhosts above it. */
const char *cb_host_simulated_id(int nhosts, int proc, int nprocs, const char *machine, char *id,
                                 size_t len, char *why, size_t why_len);

/* The places of nprocs processes whose identities are ids[p * stride]
 * (zero-terminated strings): places[p] for every p; returns the number of
 * hosts. */
int cb_host_places(const char *ids, size_t stride, int nprocs, cb_host_place *places);

/* "<what> of 2, 2 and 1 processes" into buf: the n counts, in order. */
void cb_process_counts_text(const char *what, const int *counts, int n, char *buf, size_t len);

/* The hosts cb_host_uneven names, at most (a line, not a table). */
#define CB_HOST_COUNTS_SHOWN 16

/* Why the nprocs processes' hosts (places, nhosts of them) do not all hold
 * the same number of processes ("hosts of 2, 2 and 1 processes", the
 * first CB_HOST_COUNTS_SHOWN hosts), or NULL when they do. */
const char *cb_host_uneven(const cb_host_place *places, int nprocs, int nhosts, char *why,
                           size_t len);

/* The identity of a GPU, whatever host its rank claims: its machine's name
 * and its PCI bus id ("<machine>/<bus id>", cut to len). Ranks with one
 * identity share one GPU, its SMs and its residency budget (grid_fit.h),
 * whether they are one host's or several simulated hosts'; cb_host_places
 * over the ranks' identities counts them (a place's local_nprocs). */
void cb_gpu_identity(const char *machine, const char *bus_id, char *id, size_t len);

/* The node group and the rail of the rank that is thread `thread` of a
 * process at place p, with ranks_per_proc ranks a process: its host's
 * index, and its index among its host's ranks. */
int cb_host_node_of(const cb_host_place *p);
int cb_host_rail_of(const cb_host_place *p, int ranks_per_proc, int thread);

#ifdef __cplusplus
}
#endif

#endif
