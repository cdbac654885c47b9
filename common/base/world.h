/* The world: every rank of the run, whether it is an MPI process, a host
 * thread inside one, or both. Each rank is one GPU driven by its own host
 * thread; rank = process * ranks_per_process + thread. This layer has no CUDA
 * in it, so it is tested under mpirun on machines without a GPU. */
#ifndef CB_WORLD_H
#define CB_WORLD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_world cb_world;

/* One rank's handle: what a thread knows about itself and the world. */
typedef struct {
  cb_world *world;
  int rank;   /* global rank, 0 .. nranks-1 */
  int nranks; /* processes * ranks per process */
  int thread; /* index of this rank inside its process */
  int proc;   /* MPI rank of the process (0 without MPI) */
  int nprocs;
  int local_proc;   /* index of the process among those on its host */
  int local_nprocs; /* processes on this host */
  int multi_host;   /* 1 if the processes span several hosts */
} cb_rank_info;

/* Starts MPI when it was built in (a plain launch without mpirun is a world
 * of one process). Exits with a message if MPI fails. Returns the world. */
cb_world *cb_world_init(int *argc, char ***argv);
void cb_world_finalize(cb_world *w);

int cb_world_proc(const cb_world *w);
int cb_world_nprocs(const cb_world *w);
int cb_world_local_proc(const cb_world *w);
int cb_world_local_nprocs(const cb_world *w);
int cb_world_multi_host(const cb_world *w);
const char *cb_world_hostname(const cb_world *w);
/* The MPI library's version line, or "none". */
const char *cb_world_mpi_version(const cb_world *w);

/* Runs fn on ranks_per_proc threads of this process (the calling thread is
 * thread 0, so MPI is only ever called from the thread that initialised it)
 * and waits for them. Returns the largest value fn returned. */
int cb_world_run(cb_world *w, int ranks_per_proc, int (*fn)(cb_rank_info *me, void *arg),
                 void *arg);

/* Collective calls: every rank of the world must make them, in the same order. */
void cb_world_barrier(cb_rank_info *me);
/* Gathers bytes from every rank into all (nranks * bytes), in rank order. */
void cb_world_allgather(cb_rank_info *me, const void *mine, size_t bytes, void *all);
/* Process-wide, not world-wide: ranks of this process only. */
void cb_world_local_barrier(cb_rank_info *me);

#ifdef __cplusplus
}
#endif

#endif
