/* The world layer without a GPU.
 *
 *   mpirun -np 2 test_world_mpi 2    two processes on this host
 *   test_world_mpi 1                 a plain launch: a world of one process
 *   mpirun -np 4 test_world_mpi 4 hosts 2
 *                                    the 4 processes as 2 simulated hosts (CB_HOSTS)
 *
 * The argument is the number of processes the test expects. Each process
 * runs 2 rank threads: rank = proc * 2 + thread. */
#define _POSIX_C_SOURCE 200809L /* gethostname, nanosleep, clock_gettime */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "host_layout.h"
#include "world.h"

enum { THREADS = 2, BIG = 10000 };

typedef struct {
  cb_world *w;
  int expect_procs;
} test_ctx;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t); /* one clock for every process of a host */
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Byte i of rank r's message in round k: differs between ranks, rounds and offsets. */
static unsigned char pattern(int r, int round, size_t i) {
  return (unsigned char)(r * 37 + round * 101 + (int)(i * 11 + i / 251));
}

static void check_info(cb_rank_info *me, const test_ctx *ctx) {
  int p = ctx->expect_procs;
  /* One host: the node view is the group. */
  cb_rank_info node = cb_world_node_view(me);
  CHECKF(node.rank == me->rank && node.nranks == me->nranks && !me->node_view,
         "rank %d of %d: node view %d of %d", me->rank, me->nranks, node.rank, node.nranks);
  CHECK(me->world == ctx->w);
  CHECKF(me->nprocs == p, "rank %d: nprocs %d, expected %d", me->rank, me->nprocs, p);
  CHECKF(me->nranks == p * THREADS, "rank %d: nranks %d, expected %d", me->rank, me->nranks,
         p * THREADS);
  CHECKF(me->thread >= 0 && me->thread < THREADS, "thread %d", me->thread);
  CHECKF(me->proc == cb_world_proc(ctx->w), "proc %d vs %d", me->proc, cb_world_proc(ctx->w));
  CHECKF(me->rank == me->proc * THREADS + me->thread, "rank %d, proc %d, thread %d", me->rank,
         me->proc, me->thread);
  /* All processes on this one host. */
  CHECKF(me->local_nprocs == p, "rank %d: local_nprocs %d, expected %d", me->rank, me->local_nprocs,
         p);
  CHECKF(me->local_proc == me->proc, "rank %d: local_proc %d, proc %d", me->rank, me->local_proc,
         me->proc);
  CHECKF(me->multi_host == 0, "rank %d: multi_host %d", me->rank, me->multi_host);
  /* Not split: the group is the world. */
  CHECKF(me->world_rank == me->rank && me->world_nranks == me->nranks && me->group == 0,
         "rank %d: world rank %d of %d, group %d", me->rank, me->world_rank, me->world_nranks,
         me->group);
}

/* Every rank sees every rank's bytes, in rank order. */
static void check_allgather(cb_rank_info *me, size_t bytes, int round) {
  unsigned char *mine = malloc(bytes ? bytes : 1);
  unsigned char *all = malloc(bytes * (size_t)me->nranks + 1);
  if (!mine || !all) abort();
  for (size_t i = 0; i < bytes; i++) mine[i] = pattern(me->rank, round, i);
  memset(all, 0xee, bytes * (size_t)me->nranks + 1);
  cb_world_allgather(me, mine, bytes, all);
  int bad = 0;
  for (int r = 0; r < me->nranks; r++)
    for (size_t i = 0; i < bytes; i++)
      if (all[(size_t)r * bytes + i] != pattern(r, round, i)) bad++;
  CHECKF(bad == 0, "rank %d, round %d, %zu bytes: %d bytes wrong", me->rank, round, bytes, bad);
  CHECKF(all[bytes * (size_t)me->nranks] == 0xee, "rank %d: allgather wrote past the end",
         me->rank);
  /* The caller's buffer is left alone. */
  int changed = 0;
  for (size_t i = 0; i < bytes; i++) changed += mine[i] != pattern(me->rank, round, i);
  CHECK(changed == 0);
  free(mine);
  free(all);
}

/* The late rank enters the barrier 100 ms after the others: nobody may
 * leave before it entered. Clocks compared through an allgather. */
static void check_barrier(cb_rank_info *me, int late, int world_wide) {
  double t_enter = 0;
  if (me->rank == late) sleep_ms(100);
  t_enter = now_s();
  if (world_wide)
    cb_world_barrier(me);
  else
    cb_world_local_barrier(me);
  double t_exit = now_s();
  double mine[2] = {t_enter, t_exit}, *all = malloc(sizeof mine * (size_t)me->nranks);
  if (!all) abort();
  cb_world_allgather(me, mine, sizeof mine, all);
  int late_proc = late / THREADS;
  for (int r = 0; r < me->nranks; r++) {
    /* The local barrier holds this process's threads only. */
    if (!world_wide && r / THREADS != late_proc) continue;
    CHECKF(all[2 * r + 1] >= all[2 * late],
           "%s barrier: rank %d left %.1f ms before rank %d entered",
           world_wide ? "world" : "local", r, 1e3 * (all[2 * late] - all[2 * r + 1]), late);
  }
  free(all);
}

static int rank_main(cb_rank_info *me, void *arg) {
  const test_ctx *ctx = arg;
  check_info(me, ctx);

  /* Everyone agrees on the layout. */
  int info[6] = {me->rank, me->proc, me->thread, me->local_proc, me->local_nprocs, me->multi_host};
  int *infos = malloc(sizeof info * (size_t)me->nranks);
  if (!infos) abort();
  cb_world_allgather(me, info, sizeof info, infos);
  for (int r = 0; r < me->nranks; r++) {
    CHECKF(infos[6 * r] == r, "slot %d holds rank %d", r, infos[6 * r]);
    CHECKF(infos[6 * r + 1] == r / THREADS && infos[6 * r + 2] == r % THREADS,
           "rank %d: proc %d thread %d", r, infos[6 * r + 1], infos[6 * r + 2]);
    CHECKF(infos[6 * r + 3] == r / THREADS, "rank %d: local_proc %d", r, infos[6 * r + 3]);
    CHECKF(infos[6 * r + 4] == me->local_nprocs && infos[6 * r + 5] == 0,
           "rank %d: local_nprocs %d multi_host %d", r, infos[6 * r + 4], infos[6 * r + 5]);
  }
  free(infos);

  /* Messages of changing sizes: growing, then shrinking, then growing again. */
  static const size_t sizes[] = {1, 8, 7, BIG, 3, 256, BIG, 1, 2 * BIG, 5};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) check_allgather(me, sizes[i], (int)i);

  /* Barriers, each rank taking its turn to be late. */
  for (int late = 0; late < me->nranks; late++) check_barrier(me, late, 1);
  check_barrier(me, me->nranks - 1, 0);
  check_barrier(me, 0, 0);

  /* A barrier as the very last call. */
  cb_world_barrier(me);
  return 10 + me->rank;
}

/* One thread per process: rank = process. */
static int rank_main_one(cb_rank_info *me, void *arg) {
  const test_ctx *ctx = arg;
  CHECKF(me->nranks == ctx->expect_procs && me->rank == me->proc && me->thread == 0,
         "one thread per process: rank %d of %d, proc %d, thread %d", me->rank, me->nranks,
         me->proc, me->thread);
  check_allgather(me, BIG, 99);
  check_barrier(me, me->nranks - 1, 1);
  return 0;
}

/* After cb_world_split(w, proc): every process is a group of its own. A
 * rank's rank, nranks and the plain calls are its group's; world_rank and
 * the _all calls span every group. */
static int rank_main_split(cb_rank_info *me, void *arg) {
  const test_ctx *ctx = arg;
  int p = ctx->expect_procs;
  CHECKF(me->nranks == THREADS && me->rank == me->thread,
         "split: group rank %d of %d, thread %d (expected the process's own ranks)", me->rank,
         me->nranks, me->thread);
  CHECKF(me->world_nranks == p * THREADS && me->world_rank == me->proc * THREADS + me->thread,
         "split: world rank %d of %d, proc %d thread %d", me->world_rank, me->world_nranks,
         me->proc, me->thread);
  CHECKF(me->group == me->proc, "split: group %d, proc %d", me->group, me->proc);
  /* A node group lies within the group: here the process's own ranks. */
  cb_rank_info node = cb_world_node_view(me);
  CHECKF(node.nranks == THREADS && node.rank == me->thread, "split: node view %d of %d", node.rank,
         node.nranks);
  /* The group's exchange holds this process's ranks only... */
  int mine[2] = {me->world_rank, me->group}, group[2 * THREADS], *world;
  cb_world_allgather(me, mine, sizeof mine, group);
  for (int r = 0; r < THREADS; r++)
    CHECKF(group[2 * r] == me->proc * THREADS + r && group[2 * r + 1] == me->proc,
           "split: group slot %d holds world rank %d of group %d", r, group[2 * r],
           group[2 * r + 1]);
  /* ... the world's every rank, in world order. */
  world = malloc(sizeof mine * (size_t)me->world_nranks);
  if (!world) abort();
  cb_world_allgather_all(me, mine, sizeof mine, world);
  for (int r = 0; r < me->world_nranks; r++)
    CHECKF(world[2 * r] == r && world[2 * r + 1] == r / THREADS,
           "split: world slot %d holds world rank %d of group %d", r, world[2 * r],
           world[2 * r + 1]);
  free(world);
  /* A late rank holds the world barrier for everyone. */
  double t_enter = 0;
  if (me->world_rank == me->world_nranks - 1) sleep_ms(100);
  t_enter = now_s();
  cb_world_barrier_all(me);
  double times[2] = {t_enter, now_s()}, *all = malloc(sizeof times * (size_t)me->world_nranks);
  if (!all) abort();
  cb_world_allgather_all(me, times, sizeof times, all);
  int late = me->world_nranks - 1;
  for (int r = 0; r < me->world_nranks; r++)
    CHECKF(all[2 * r + 1] >= all[2 * late], "split: world barrier left by rank %d too early", r);
  free(all);
  cb_world_barrier(me);
  return 0;
}

/* A rank's node view: the ranks of its host, in order, and its calls
 * span them only. */
static void check_node_view(cb_rank_info *me, int per) {
  cb_rank_info node = cb_world_node_view(me);
  int host = me->proc / per;
  CHECKF(node.node_view && node.nranks == per * THREADS &&
             node.rank == (me->proc % per) * THREADS + me->thread && node.multi_host == 0,
         "rank %d: node view rank %d of %d, multi_host %d", me->rank, node.rank, node.nranks,
         node.multi_host);
  CHECKF(node.world_rank == me->world_rank && node.thread == me->thread,
         "rank %d: node view changed world rank or thread", me->rank);
  int *ranks = malloc(sizeof(int) * (size_t)node.nranks);
  if (!ranks) abort();
  cb_world_allgather(&node, &me->rank, sizeof me->rank, ranks);
  for (int r = 0; r < node.nranks; r++)
    CHECKF(ranks[r] == host * per * THREADS + r, "rank %d: node slot %d holds rank %d", me->rank, r,
           ranks[r]);
  free(ranks);
  check_barrier(&node, node.nranks - 1, 1); /* its clocks gathered within the node too */
}

/* The ranks of simulated hosts still meet as one world, and each host as a
 * node group. */
static int rank_main_hosts(cb_rank_info *me, void *arg) {
  int per = *(const int *)arg;
  int mine[3] = {me->rank, me->local_proc, me->multi_host}, *all;
  all = malloc(sizeof mine * (size_t)me->nranks);
  if (!all) abort();
  cb_world_allgather(me, mine, sizeof mine, all);
  for (int r = 0; r < me->nranks; r++)
    CHECKF(all[3 * r] == r && all[3 * r + 2] == me->multi_host, "hosts: slot %d holds rank %d", r,
           all[3 * r]);
  free(all);
  check_barrier(me, me->nranks - 1, 1);
  check_node_view(me, per);
  check_allgather(me, BIG, 7); /* the group's calls again, after the node's */
  return 0;
}

/* CB_HOSTS=nhosts over the processes: refused where it cannot be, else
 * process p on host p / (P / H), its NCCL_HOSTID set, local ranks counted
 * within its host, and a split by host leaves each group on one host. */
static int hosts_test(cb_world *w, int nprocs, int nhosts) {
  char why[256];
  int proc = cb_world_proc(w), per = nprocs / nhosts;
  CHECK(cb_world_hosts_problem(w, 0, why, sizeof why) == NULL); /* unset: nothing to do */
  const char *bad = cb_world_hosts_problem(w, nprocs + 1, why, sizeof why);
  CHECKF(bad && strstr(bad, "a multiple of"), "CB_HOSTS=%d: %s", nprocs + 1, bad ? bad : "(null)");
  setenv("NCCL_HOSTID", "mine", 1);
  bad = cb_world_hosts_problem(w, nhosts, why, sizeof why);
  CHECKF(bad && strstr(bad, "NCCL_HOSTID=mine"), "with NCCL_HOSTID: %s", bad ? bad : "(null)");
  unsetenv("NCCL_HOSTID");
  bad = cb_world_hosts_problem(w, nhosts, why, sizeof why);
  CHECKF(!bad, "CB_HOSTS=%d over %d processes refused: %s", nhosts, nprocs, bad ? bad : "");
  if (bad) return check_summary();
  CHECK_EQ_INT(cb_world_simulated_hosts(w), 0);
  cb_world_simulate_hosts(w, nhosts);
  char machine[200] = {0}, want[CB_HOST_ID_MAX];
  gethostname(machine, sizeof machine - 1);
  snprintf(want, sizeof want, "%s-host%d", machine, proc / per);
  CHECK_STR(cb_world_hostname(w), want);
  const char *env = getenv("NCCL_HOSTID");
  CHECKF(env && !strcmp(env, want), "NCCL_HOSTID %s, expected %s", env ? env : "unset", want);
  CHECK_EQ_INT(cb_world_nhosts(w), nhosts);
  CHECK_EQ_INT(cb_world_host(w), proc / per);
  CHECK_EQ_INT(cb_world_local_proc(w), proc % per);
  CHECK_EQ_INT(cb_world_local_nprocs(w), per);
  CHECK_EQ_INT(cb_world_machine_nprocs(w), nprocs); /* the machine's, whatever the hosts */
  CHECK_STR(cb_world_machine(w), machine);
  CHECK_EQ_INT(cb_world_multi_host(w), nhosts > 1);
  CHECK_EQ_INT(cb_world_simulated_hosts(w), nhosts > 1);
  CHECK_EQ_INT(cb_world_run(w, THREADS, rank_main_hosts, &per), 0);
  cb_world_split(w, cb_world_host(w)); /* a node group: one host's processes */
  CHECK_EQ_INT(cb_world_group_nprocs(w), per);
  CHECK_EQ_INT(cb_world_multi_host(w), 0);
  cb_world_finalize(w);
  printf("process %d of %d, host %d of %d: ", proc, nprocs, proc / per, nhosts);
  return check_summary();
}

int main(int argc, char **argv) {
  cb_world *w = cb_world_init(&argc, &argv);
  if (argc > 3 && !strcmp(argv[2], "hosts")) return hosts_test(w, atoi(argv[1]), atoi(argv[3]));
  test_ctx ctx = {w, argc > 1 ? atoi(argv[1]) : 2};
  CHECKF(ctx.expect_procs >= 1, "usage: %s NPROCS", argv[0]);

  int proc = cb_world_proc(w), nprocs = cb_world_nprocs(w);
  CHECKF(nprocs == ctx.expect_procs, "nprocs %d, expected %d", nprocs, ctx.expect_procs);
  CHECKF(proc >= 0 && proc < nprocs, "proc %d of %d", proc, nprocs);
  CHECKF(cb_world_local_nprocs(w) == ctx.expect_procs, "local_nprocs %d, expected %d",
         cb_world_local_nprocs(w), ctx.expect_procs);
  CHECKF(cb_world_local_proc(w) == proc, "local_proc %d, proc %d", cb_world_local_proc(w), proc);
  CHECK_EQ_INT(cb_world_machine_nprocs(w), ctx.expect_procs);
  CHECK_EQ_INT(cb_world_multi_host(w), 0);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  CHECK_STR(cb_world_hostname(w), host);
  const char *mpi = cb_world_mpi_version(w);
  CHECK(mpi != NULL && mpi[0] != '\0');
#ifdef CB_HAVE_MPI
  CHECKF(strcmp(mpi, "none") != 0, "built with MPI, but the version is '%s'", mpi);
  CHECKF(strchr(mpi, '\n') == NULL, "MPI version '%s' is more than one line", mpi);
#else
  CHECK_STR(mpi, "none");
#endif

  if (ctx.expect_procs >= 1 && nprocs == ctx.expect_procs) {
    int rc = cb_world_run(w, THREADS, rank_main, &ctx);
    /* The largest value any local thread returned: the last thread's. */
    CHECK_EQ_INT(rc, 10 + proc * THREADS + THREADS - 1);
    /* A second run in the same world, with one thread. */
    rc = cb_world_run(w, 1, rank_main_one, &ctx);
    CHECK_EQ_INT(rc, 0);
    /* Split into one group per process (NCCL_TESTS_SPLIT="MOD nprocs"). */
    CHECK_EQ_INT(cb_world_ngroups(w), 1);
    cb_world_split(w, proc);
    CHECK_EQ_INT(cb_world_ngroups(w), nprocs);
    CHECK_EQ_INT(cb_world_color(w), proc);
    CHECK_EQ_INT(cb_world_group_nprocs(w), 1);
    CHECK_EQ_INT(cb_world_group_proc(w), 0);
    CHECK(cb_world_uneven_groups(w) == NULL);
    CHECK_EQ_INT(cb_world_multi_host(w), 0);
    rc = cb_world_run(w, THREADS, rank_main_split, &ctx);
    CHECK_EQ_INT(rc, 0);
  }
  cb_world_finalize(w);
  printf("process %d of %d: ", proc, nprocs);
  return check_summary();
}
