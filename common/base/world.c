#define _GNU_SOURCE /* gethostname, pthread_barrier */
#include "world.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "host_layout.h"
#include "watchdog.h"

#ifdef CB_HAVE_MPI
#include <mpi.h>
#define CB_MPI(call)                                                                               \
  do {                                                                                             \
    int mpi_rc_ = (call);                                                                          \
    if (mpi_rc_ != MPI_SUCCESS) {                                                                  \
      char mpi_msg_[MPI_MAX_ERROR_STRING];                                                         \
      int mpi_len_ = 0;                                                                            \
      MPI_Error_string(mpi_rc_, mpi_msg_, &mpi_len_);                                              \
      cb_die(__FILE__, __LINE__, #call, mpi_msg_);                                                 \
    }                                                                                              \
  } while (0)
#endif

#define HOST_MAX CB_HOST_ID_MAX

struct cb_world {
  int proc, nprocs, local_proc, local_nprocs, multi_host, mpi_started;
  /* Hosts (host_layout.h): how many, this process's index, whether two
   * processes of one machine are on different hosts, and how many machines
   * the processes run on. */
  int nhosts, host, simulated, nmachines;
  int machine_nprocs; /* the run's processes on this machine, whatever hosts they claim */
  /* This process's group (cb_world_split); the world until it is split. */
  int color, ngroups, group_proc, group_nprocs, group_multi_host;
  char uneven[160];
  /* This process's node group: the processes of its group on its host. */
  int node_proc, node_nprocs;
#ifdef CB_HAVE_MPI
  MPI_Comm group_comm, node_comm;
#endif
  char hostname[HOST_MAX]; /* the host's identity (cb_host_identity) */
  char machine[HOST_MAX];  /* the machine's name */
  char mpi_version[256];
  char waiter[64]; /* who waits in an MPI collective, for the watchdog's message */
  /* Threads of this process: set by cb_world_run. */
  int nthreads;
  pthread_barrier_t barrier;
  /* Exchange area for allgather, grown by thread 0 between barriers. */
  char *local_buf, *global_buf;
  size_t local_cap, global_cap;
};

typedef struct {
  cb_rank_info info;
  int (*fn)(cb_rank_info *, void *);
  void *arg;
  int rc;
} thread_slot;

#ifdef CB_HAVE_MPI
/* What a process says of where it runs. */
typedef struct {
  char id[HOST_MAX], machine[HOST_MAX];
} where_word;

/* The places of comm's nprocs processes by host identity, this process's
 * into *mine; returns the number of hosts. machines, when not NULL, gets
 * the number of machine names. */
static int places_in(cb_world *w, MPI_Comm comm, int nprocs, int me, cb_host_place *mine,
                     int *machines) {
  where_word word, *all = malloc((size_t)nprocs * sizeof *all);
  cb_host_place *places = malloc((size_t)nprocs * sizeof *places);
  if (!all || !places) cb_fatal("out of host memory");
  memset(&word, 0, sizeof word);
  snprintf(word.id, sizeof word.id, "%s", w->hostname);
  snprintf(word.machine, sizeof word.machine, "%s", w->machine);
  CB_MPI(MPI_Allgather(&word, sizeof word, MPI_BYTE, all, sizeof word, MPI_BYTE, comm));
  int nhosts = cb_host_places(all[0].id, sizeof *all, nprocs, places);
  *mine = places[me];
  if (machines) *machines = cb_host_places(all[0].machine, sizeof *all, nprocs, places);
  free(all);
  free(places);
  return nhosts;
}

/* The node group's communicator, for the group's processes (comm, this
 * one proc of it): those of this machine (MPI's shared-memory split of
 * comm) with this host identity, in comm's order. Made again whenever the
 * group or the hosts change. machine_hosts, when not NULL, gets the number
 * of host identities on this machine. */
static void set_node_comm(cb_world *w, MPI_Comm comm, int proc, int *machine_hosts,
                          int *machine_procs) {
  if (w->node_comm != MPI_COMM_NULL) MPI_Comm_free(&w->node_comm);
  MPI_Comm machine;
  int machine_proc, machine_nprocs;
  CB_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, proc, MPI_INFO_NULL, &machine));
  CB_MPI(MPI_Comm_rank(machine, &machine_proc));
  CB_MPI(MPI_Comm_size(machine, &machine_nprocs));
  cb_host_place place;
  int nhosts = places_in(w, machine, machine_nprocs, machine_proc, &place, NULL);
  CB_MPI(MPI_Comm_split(machine, place.host, proc, &w->node_comm));
  CB_MPI(MPI_Comm_free(&machine));
  CB_MPI(MPI_Comm_rank(w->node_comm, &w->node_proc));
  CB_MPI(MPI_Comm_size(w->node_comm, &w->node_nprocs));
  if (machine_hosts) *machine_hosts = nhosts;
  if (machine_procs) *machine_procs = machine_nprocs;
}

/* Hosts, machines and local ranks, before any split: the group is the
 * world, so its node group is the host's processes. */
static void mpi_layout(cb_world *w) {
  cb_host_place place;
  w->nhosts = places_in(w, MPI_COMM_WORLD, w->nprocs, w->proc, &place, &w->nmachines);
  w->host = place.host;
  w->multi_host = w->nhosts > 1;
  int machine_hosts;
  set_node_comm(w, MPI_COMM_WORLD, w->proc, &machine_hosts, &w->machine_nprocs);
  w->local_proc = w->node_proc;
  w->local_nprocs = w->node_nprocs;
  int simulated_here = machine_hosts > 1;
  CB_MPI(MPI_Allreduce(&simulated_here, &w->simulated, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
}
#endif

cb_world *cb_world_init(int *argc, char ***argv) {
  cb_world *w = calloc(1, sizeof *w);
  if (!w) cb_fatal("out of host memory");
  w->nprocs = w->local_nprocs = w->nhosts = w->nmachines = w->node_nprocs = 1;
  w->machine_nprocs = 1;
  if (gethostname(w->machine, HOST_MAX - 1) != 0) snprintf(w->machine, HOST_MAX, "unknown");
  cb_host_identity(w->machine, getenv("NCCL_HOSTID"), w->hostname, sizeof w->hostname);
  snprintf(w->mpi_version, sizeof w->mpi_version, "none");
#ifdef CB_HAVE_MPI
  /* Only the thread that initialised MPI calls it (thread 0 of cb_world_run). */
  int provided;
  CB_MPI(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
  w->mpi_started = 1;
  CB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &w->proc));
  CB_MPI(MPI_Comm_size(MPI_COMM_WORLD, &w->nprocs));
  int len = 0;
  MPI_Get_library_version(w->mpi_version, &len);
  char *nl = strchr(w->mpi_version, '\n');
  if (nl) *nl = '\0';
  char *comma = strchr(w->mpi_version, ',');
  if (comma) *comma = '\0';
  w->node_comm = MPI_COMM_NULL;
  mpi_layout(w);
  snprintf(w->waiter, sizeof w->waiter, "process %d of %d, waiting for the others", w->proc,
           w->nprocs);
  w->group_comm = MPI_COMM_WORLD;
#else
  (void)argc;
  (void)argv;
#endif
  /* One group, the world, until cb_world_split. */
  w->ngroups = 1;
  w->group_proc = w->proc;
  w->group_nprocs = w->nprocs;
  w->group_multi_host = w->multi_host;
  return w;
}

const char *cb_world_hosts_problem(const cb_world *w, int nhosts, char *why, size_t len) {
  if (nhosts == 0) return NULL;
  if (getenv("NCCL_HOSTID")) {
    snprintf(why, len,
             "CB_HOSTS=%d and NCCL_HOSTID=%s both name this process's host: set one of them",
             nhosts, getenv("NCCL_HOSTID"));
    return why;
  }
  if (w->nmachines > 1) {
    snprintf(why, len,
             "CB_HOSTS=%d simulates hosts on one machine, and the processes run on %d machines",
             nhosts, w->nmachines);
    return why;
  }
  char id[HOST_MAX];
  return cb_host_simulated_id(nhosts, w->proc, w->nprocs, w->machine, id, sizeof id, why, len);
}

void cb_world_simulate_hosts(cb_world *w, int nhosts) {
  if (nhosts == 0) return;
  if (w->group_nprocs != w->nprocs || w->color != 0)
    cb_fatal("internal error: hosts must be simulated before the world is split");
  char why[256];
  if (cb_host_simulated_id(nhosts, w->proc, w->nprocs, w->machine, w->hostname, sizeof w->hostname,
                           why, sizeof why))
    cb_fatal("internal error: %s", why); /* cb_world_hosts_problem said yes */
  /* NCCL reads it once, at its first communicator, which comes later. */
  setenv("NCCL_HOSTID", w->hostname, 1);
#ifdef CB_HAVE_MPI
  if (w->mpi_started) mpi_layout(w);
#endif
  w->group_multi_host = w->multi_host;
}

void cb_world_finalize(cb_world *w) {
#ifdef CB_HAVE_MPI
  if (w->node_comm != MPI_COMM_NULL) MPI_Comm_free(&w->node_comm);
  if (w->group_comm != MPI_COMM_WORLD) MPI_Comm_free(&w->group_comm);
  if (w->mpi_started) MPI_Finalize();
#endif
  free(w->local_buf);
  free(w->global_buf);
  free(w);
}

int cb_world_proc(const cb_world *w) {
  return w->proc;
}
int cb_world_nprocs(const cb_world *w) {
  return w->nprocs;
}
int cb_world_local_proc(const cb_world *w) {
  return w->local_proc;
}
int cb_world_local_nprocs(const cb_world *w) {
  return w->local_nprocs;
}
int cb_world_multi_host(const cb_world *w) {
  return w->group_multi_host;
}
const char *cb_world_hostname(const cb_world *w) {
  return w->hostname;
}
const char *cb_world_machine(const cb_world *w) {
  return w->machine;
}
int cb_world_machine_nprocs(const cb_world *w) {
  return w->machine_nprocs;
}
int cb_world_nhosts(const cb_world *w) {
  return w->nhosts;
}
int cb_world_host(const cb_world *w) {
  return w->host;
}
int cb_world_simulated_hosts(const cb_world *w) {
  return w->simulated;
}
const char *cb_world_mpi_version(const cb_world *w) {
  return w->mpi_version;
}

static void *thread_main(void *p) {
  thread_slot *s = p;
  cb_error_set_rank(s->info.rank);
  s->rc = s->fn(&s->info, s->arg);
  return NULL;
}

int cb_world_run(cb_world *w, int ranks_per_proc, int (*fn)(cb_rank_info *, void *), void *arg) {
  w->nthreads = ranks_per_proc;
  if (pthread_barrier_init(&w->barrier, NULL, (unsigned)ranks_per_proc) != 0)
    cb_fatal("pthread_barrier_init failed");
  thread_slot *slots = calloc((size_t)ranks_per_proc, sizeof *slots);
  pthread_t *tids = calloc((size_t)ranks_per_proc, sizeof *tids);
  if (!slots || !tids) cb_fatal("out of host memory");
  for (int t = 0; t < ranks_per_proc; t++) {
    cb_rank_info *r = &slots[t].info;
    r->world = w;
    r->thread = t;
    r->proc = w->proc;
    r->nprocs = w->nprocs;
    r->rank = w->group_proc * ranks_per_proc + t;
    r->nranks = w->group_nprocs * ranks_per_proc;
    r->world_rank = w->proc * ranks_per_proc + t;
    r->world_nranks = w->nprocs * ranks_per_proc;
    r->group = w->color;
    r->local_proc = w->local_proc;
    r->local_nprocs = w->local_nprocs;
    r->multi_host = w->group_multi_host;
    slots[t].fn = fn;
    slots[t].arg = arg;
  }
  for (int t = 1; t < ranks_per_proc; t++)
    if (pthread_create(&tids[t], NULL, thread_main, &slots[t]) != 0)
      cb_fatal("cannot start host thread %d", t);
  thread_main(&slots[0]);
  int rc = slots[0].rc;
  for (int t = 1; t < ranks_per_proc; t++) {
    pthread_join(tids[t], NULL);
    if (slots[t].rc > rc) rc = slots[t].rc;
  }
  pthread_barrier_destroy(&w->barrier);
  cb_error_set_rank(-1); /* the calling thread is no longer rank 0 */
  free(slots);
  free(tids);
  return rc;
}

cb_rank_info cb_world_node_view(const cb_rank_info *me) {
  const cb_world *w = me->world;
  cb_rank_info v = *me;
  const cb_host_place node = {.local_proc = w->node_proc};
  v.rank = cb_host_rail_of(&node, w->nthreads, me->thread); /* its index on the host */
  v.nranks = w->node_nprocs * w->nthreads;
  v.local_proc = w->node_proc;
  v.local_nprocs = w->node_nprocs;
  v.multi_host = 0;
  v.node_view = 1;
  return v;
}

void cb_world_local_barrier(cb_rank_info *me) {
  pthread_barrier_wait(&me->world->barrier);
}

/* MPI has no timeout of its own: a process that stopped or died would hold
 * the others here for ever. The watchdog bounds the wait once the program
 * has set its -T (cb_watchdog_set_default). */
#define CB_MPI_BOUNDED(w, name, call)                                                              \
  do {                                                                                             \
    cb_watchdog_arm(cb_watchdog_default(), name, (w)->waiter);                                     \
    CB_MPI(call);                                                                                  \
    cb_watchdog_disarm();                                                                          \
  } while (0)

/* Which ranks a collective call spans: the rank's group, or the world. */
typedef enum { SCOPE_GROUP, SCOPE_WORLD, SCOPE_NODE } scope;

/* The scope of a rank's plain calls: its group's, or its node group's for
 * a node view (cb_world_node_view). */
static scope plain_scope(const cb_rank_info *me) {
  return me->node_view ? SCOPE_NODE : SCOPE_GROUP;
}

static int scope_nprocs(const cb_world *w, scope sc) {
  return sc == SCOPE_GROUP ? w->group_nprocs : sc == SCOPE_NODE ? w->node_nprocs : w->nprocs;
}

#ifdef CB_HAVE_MPI
static MPI_Comm scope_comm(const cb_world *w, scope sc) {
  return sc == SCOPE_GROUP ? w->group_comm : sc == SCOPE_NODE ? w->node_comm : MPI_COMM_WORLD;
}
#endif

static void barrier(cb_rank_info *me, scope sc) {
  cb_world_local_barrier(me);
#ifdef CB_HAVE_MPI
  if (me->thread == 0 && scope_nprocs(me->world, sc) > 1)
    CB_MPI_BOUNDED(me->world, "MPI_Barrier", MPI_Barrier(scope_comm(me->world, sc)));
  cb_world_local_barrier(me);
#else
  (void)sc;
#endif
}

void cb_world_barrier(cb_rank_info *me) {
  barrier(me, plain_scope(me));
}

void cb_world_barrier_all(cb_rank_info *me) {
  barrier(me, SCOPE_WORLD);
}

static void grow(char **buf, size_t *cap, size_t need) {
  if (*cap >= need) return;
  char *p = realloc(*buf, need);
  if (!p) cb_fatal("out of host memory (%zu bytes for a rank exchange)", need);
  *buf = p;
  *cap = need;
}

static void allgather(cb_rank_info *me, const void *mine, size_t bytes, void *all, scope sc) {
  cb_world *w = me->world;
  size_t local_bytes = (size_t)w->nthreads * bytes;
  int nprocs = scope_nprocs(w, sc);
  /* 1: thread 0 sizes the buffers while nobody uses them. */
  cb_world_local_barrier(me);
  if (me->thread == 0) {
    grow(&w->local_buf, &w->local_cap, local_bytes);
    grow(&w->global_buf, &w->global_cap, local_bytes * (size_t)nprocs);
  }
  cb_world_local_barrier(me);
  /* 2: every thread deposits its bytes; thread 0 exchanges between processes. */
  memcpy(w->local_buf + (size_t)me->thread * bytes, mine, bytes);
  cb_world_local_barrier(me);
  if (me->thread == 0) {
#ifdef CB_HAVE_MPI
    if (nprocs > 1)
      CB_MPI_BOUNDED(w, "MPI_Allgather",
                     MPI_Allgather(w->local_buf, (int)local_bytes, MPI_BYTE, w->global_buf,
                                   (int)local_bytes, MPI_BYTE, scope_comm(w, sc)));
    else
#endif
      memcpy(w->global_buf, w->local_buf, local_bytes);
  }
  cb_world_local_barrier(me);
  /* 3: everyone reads; the closing barrier keeps the next call from overwriting. */
  memcpy(all, w->global_buf, local_bytes * (size_t)nprocs);
  cb_world_local_barrier(me);
}

void cb_world_allgather(cb_rank_info *me, const void *mine, size_t bytes, void *all) {
  allgather(me, mine, bytes, all, plain_scope(me));
}

void cb_world_allgather_all(cb_rank_info *me, const void *mine, size_t bytes, void *all) {
  allgather(me, mine, bytes, all, SCOPE_WORLD);
}

/* ---- groups ------------------------------------------------------------- */

/* Counts the groups of colors (n processes) and notes in w->uneven when
 * they differ in size. */
static void count_groups(cb_world *w, const int *colors, int n) {
  int *sizes = calloc((size_t)n, sizeof *sizes), *seen = calloc((size_t)n, sizeof *seen);
  if (!sizes || !seen) cb_fatal("out of host memory");
  int ngroups = 0;
  for (int p = 0; p < n; p++) {
    int g = 0;
    while (g < ngroups && seen[g] != colors[p]) g++;
    if (g == ngroups) seen[ngroups++] = colors[p];
    sizes[g]++;
  }
  w->ngroups = ngroups;
  w->uneven[0] = '\0';
  int even = 1;
  for (int g = 1; g < ngroups; g++) even &= sizes[g] == sizes[0];
  if (!even) cb_process_counts_text("groups", sizes, ngroups, w->uneven, sizeof w->uneven);
  free(sizes);
  free(seen);
}

void cb_world_split(cb_world *w, int color) {
  w->color = color;
#ifdef CB_HAVE_MPI
  if (w->mpi_started) {
    int *colors = malloc((size_t)w->nprocs * sizeof *colors);
    if (!colors) cb_fatal("out of host memory");
    CB_MPI_BOUNDED(w, "MPI_Allgather",
                   MPI_Allgather(&color, 1, MPI_INT, colors, 1, MPI_INT, MPI_COMM_WORLD));
    count_groups(w, colors, w->nprocs);
    free(colors);
    /* Ordered by process, so a group's ranks keep the processes' order. */
    CB_MPI_BOUNDED(w, "MPI_Comm_split",
                   MPI_Comm_split(MPI_COMM_WORLD, color, w->proc, &w->group_comm));
    CB_MPI(MPI_Comm_rank(w->group_comm, &w->group_proc));
    CB_MPI(MPI_Comm_size(w->group_comm, &w->group_nprocs));
    cb_host_place place;
    w->group_multi_host =
        places_in(w, w->group_comm, w->group_nprocs, w->group_proc, &place, NULL) > 1;
    set_node_comm(w, w->group_comm, w->group_proc, NULL, NULL);
    return;
  }
#endif
  count_groups(w, &color, 1);
}

int cb_world_color(const cb_world *w) {
  return w->color;
}
int cb_world_group_nprocs(const cb_world *w) {
  return w->group_nprocs;
}
int cb_world_group_proc(const cb_world *w) {
  return w->group_proc;
}
int cb_world_ngroups(const cb_world *w) {
  return w->ngroups;
}
const char *cb_world_uneven_groups(const cb_world *w) {
  return w->uneven[0] ? w->uneven : NULL;
}
