/* The world: every rank of the run, whether it is an MPI process, a host
 * thread inside one, or both. Each rank is one GPU driven by its own host
 * thread; rank = process * ranks_per_process + thread. This layer has no CUDA
 * in it, so it is tested under mpirun on machines without a GPU.
 *
 * Groups (nccl-tests' NCCL_TESTS_SPLIT): the processes may be split into
 * disjoint groups that run the same test at once, each on its own ranks. A
 * rank's rank and nranks, and the collective calls cb_world_barrier and
 * cb_world_allgather, are then its group's, so a kernel (which sees its
 * world through cb_kernel_ctx) works within its group unchanged; the
 * harness, which keeps every group in step and reports for all of them,
 * uses world_rank and the _all calls. Without a split the group is the
 * world.
 *
 * Node groups: the ranks of a group on one host (host_layout.h). A node
 * view of a rank (cb_world_node_view) is the same rank seen within its node
 * group: its rank and nranks are the node group's, and so are its plain
 * collective calls, so a kernel set up with it (a hierarchical kernel's
 * part within a host) works within the host unchanged. */
#ifndef CB_WORLD_H
#define CB_WORLD_H

#include <stddef.h>

#include "collbench/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_world cb_world;

/* One rank's handle: what a thread knows about itself and the world (a
 * kernel's context holds it: collbench/world.h). */
struct cb_rank_info {
  cb_world *world;
  int rank;         /* rank in its group, 0 .. nranks-1 (the world's rank without a split) */
  int nranks;       /* ranks of its group: the group's processes * ranks per process */
  int thread;       /* index of this rank inside its process */
  int proc;         /* MPI rank of the process (0 without MPI) */
  int nprocs;       /* processes of the world */
  int local_proc;   /* index of the process among those on its host (host_layout.h) */
  int local_nprocs; /* processes on this host */
  int multi_host;   /* 1 if the processes of its group span several hosts */
  int world_rank;   /* rank among every rank of every group */
  int world_nranks;
  int group;     /* the group's color (nccl-tests' "Group" column); 0 without a split */
  int node_view; /* 1: rank, nranks and the plain calls are the node group's (cb_world_node_view) */
};

/* Starts MPI when it was built in (a plain launch without mpirun is a world
 * of one process). Exits with a message if MPI fails. Returns the world. */
cb_world *cb_world_init(int *argc, char ***argv);
void cb_world_finalize(cb_world *w);

int cb_world_proc(const cb_world *w);
int cb_world_nprocs(const cb_world *w);
int cb_world_local_proc(const cb_world *w);
int cb_world_local_nprocs(const cb_world *w);
/* Whether the processes of this process's group span several hosts. */
int cb_world_multi_host(const cb_world *w);
/* The host's identity (host_layout.h): NCCL_HOSTID, or the machine's name. */
const char *cb_world_hostname(const cb_world *w);
/* The machine's own name, whatever host the process claims (CB_HOSTS,
 * NCCL_HOSTID): what tells the GPUs of one machine apart from another's. */
const char *cb_world_machine(const cb_world *w);
/* The run's processes on this machine, whatever hosts they claim (1
 * without MPI). */
int cb_world_machine_nprocs(const cb_world *w);
/* The hosts of the world, and this process's (0 .. nhosts - 1, numbered by
 * their first process). */
int cb_world_nhosts(const cb_world *w);
int cb_world_host(const cb_world *w);
/* Whether two processes of one machine are on different hosts (CB_HOSTS,
 * or NCCL_HOSTID set per process): times between them mean nothing. */
int cb_world_simulated_hosts(const cb_world *w);

/* Simulated hosts (CB_HOSTS=nhosts, 0: none; host_layout.h). Why this
 * process cannot take part in them, or NULL: NCCL_HOSTID set too, the
 * processes on several machines, or a process count that is not a
 * multiple of nhosts. Local: the caller agrees on it across the processes. */
const char *cb_world_hosts_problem(const cb_world *w, int nhosts, char *why, size_t len);
/* Collective over the processes, once every process has had no problem
 * (above), before cb_world_split: gives this process its simulated host's
 * identity, in NCCL_HOSTID too, and lays the world out again. */
void cb_world_simulate_hosts(cb_world *w, int nhosts);
/* The MPI library's version line, or "none". */
const char *cb_world_mpi_version(const cb_world *w);

/* Collective over the processes, once, before cb_world_run: puts this
 * process into the group of the processes with the same color (ordered by
 * process). Without MPI (one process) the group is the process. */
void cb_world_split(cb_world *w, int color);
/* This process's group: its color, its processes, this process's index in
 * it, and the number of groups. */
int cb_world_color(const cb_world *w);
int cb_world_group_nprocs(const cb_world *w);
int cb_world_group_proc(const cb_world *w);
int cb_world_ngroups(const cb_world *w);
/* NULL when every group has as many processes, else what they hold
 * ("groups of 2, 1 and 1 processes"). */
const char *cb_world_uneven_groups(const cb_world *w);

/* Runs fn on ranks_per_proc threads of this process (the calling thread is
 * thread 0, so MPI is only ever called from the thread that initialised it)
 * and waits for them. Returns the largest value fn returned. */
int cb_world_run(cb_world *w, int ranks_per_proc, int (*fn)(cb_rank_info *me, void *arg),
                 void *arg);

/* The rank me within its node group: rank (its index among the node
 * group's ranks, in group order), nranks, local_proc and local_nprocs are
 * the node group's, multi_host 0, and cb_world_barrier and
 * cb_world_allgather called with it span the node group. Every rank of a
 * process uses the same view at a call. */
cb_rank_info cb_world_node_view(const cb_rank_info *me);

/* cb_world_barrier and cb_world_allgather (collbench/world.h) are collective
 * over the rank's group (its node group for a node view): every rank of the
 * group must make them, in the same order. The same over every rank of every group (world_nranks *
 * bytes, in world-rank order): the harness's calls, which keep the groups in step. */
void cb_world_barrier_all(cb_rank_info *me);
void cb_world_allgather_all(cb_rank_info *me, const void *mine, size_t bytes, void *all);
/* Process-wide, not world-wide: ranks of this process only. */
void cb_world_local_barrier(cb_rank_info *me);

#ifdef __cplusplus
}
#endif

#endif
