#define _GNU_SOURCE /* setenv */
#include "run_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "nccl_tests_env.h"
#include "peer_mapping.h"
#include "thread_stacks.h"
#include "tunables.h"

/* The processes of this machine whose CUDA_DEVICE_MAX_CONNECTIONS this
 * process chose (cb_queues_per_process), or 0 where the user set it or it
 * was not set here. */
static int queues_chosen_for;

int cb_queues_per_process(int procs) {
  int q = CB_MPS_QUEUE_POOL / (procs > 0 ? procs : 1);
  return q < 1 ? 1 : q > CB_MOST_QUEUES ? CB_MOST_QUEUES : q;
}

static void choose_queues(int procs) {
  char text[16];
  snprintf(text, sizeof text, "%d", cb_queues_per_process(procs));
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", text, 1);
  queues_chosen_for = procs > 0 ? procs : 1;
}

/* This machine's processes as the launcher tells each before MPI starts
 * (Open MPI; MPICH's Hydra), or 0 where none says. */
static int launcher_local_procs(void) {
  const char *names[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *v = getenv(names[i]);
    long n = v ? strtol(v, NULL, 10) : 0;
    if (n > 0) return (int)n;
  }
  return 0;
}

void cb_run_env_queues_for(int machine_procs) {
  if (queues_chosen_for && machine_procs != queues_chosen_for) choose_queues(machine_procs);
}

int cb_run_env_queues_chosen_for(void) {
  return queues_chosen_for;
}

const char *cb_run_env_context_failure(int rc, int share_gpus, char *buf, size_t len) {
  if (!share_gpus || (rc != cudaErrorMemoryAllocation && rc != cudaErrorMpsMaxConnectionsReached &&
                      rc != cudaErrorMpsMaxClientsReached))
    return NULL;
  const char *queues = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  snprintf(buf, len,
           "%s: under MPS the processes on a GPU share one pool of hardware queues, each owning "
           "CUDA_DEVICE_MAX_CONNECTIONS (%s here) of them, and this process found too few left: "
           "run fewer processes on the GPU, or give CUDA_DEVICE_MAX_CONNECTIONS a smaller value",
           cudaGetErrorString((cudaError_t)rc), queues ? queues : "unset, CUDA's default");
  return buf;
}

void cb_run_env_cuda_defaults(void) {
  /* Every kernel is loaded when the context is created. With lazy loading (CUDA's default), the
   * first launch of a kernel may have to synchronise the context, and the
   * CUDA Programming Guide warns that kernels which wait on kernels
   * launched later can then deadlock. Ours do by design (a rank's kernel
   * spins until its peers' kernels run), and the ce kernels launch new
   * kernels while a spinning one runs. The user's own setting wins. */
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  /* Ranks sharing a GPU (CB_SHARE_GPUS=1, tests only) spin on each other
   * from different streams; streams that share one of the device's hardware
   * queues run in order, so a rank's kernel can wait behind another rank's
   * waiting one forever (docs/architecture.md, "Ranks sharing a GPU"). Under
   * MPS the processes on a GPU share one pool of queues, each its own part
   * of it, and a process that asks for more than is left is refused at its
   * first CUDA call ("out of memory"): each takes its share of the pool,
   * 32 (the most, a queue for each of up to 32 streams) for up to 3
   * processes on the machine (cb_queues_per_process). The launcher's count
   * of this machine's processes decides it now, and MPI's once it runs
   * (cb_run_env_queues_for). Too few for this process's streams is refused
   * (cb_check_devices, placement.h), a user's setting included. */
  const char *shared = getenv("CB_SHARE_GPUS");
  queues_chosen_for = 0;
  if (!shared || strcmp(shared, "1") != 0) return;
  if (!getenv("CUDA_DEVICE_MAX_CONNECTIONS")) choose_queues(launcher_local_procs());
  /* Three more waits of one rank on another's spinning kernel, in NCCL, seen
   * with ranks of one process on one GPU (docs/multi-node.md, "Ranks of one
   * process on one GPU"): where a rank takes NCCL and another of its
   * process runs ours at the same time (the hierarchical kernels).
   * - NCCL connects a communicator's peers at its first call of each kind
   *   (NCCL_RUNTIME_CONNECT=1), and its proxy thread then allocates pinned
   *   memory (cuMemHostAlloc), which waits on a lock of the CUDA driver that
   *   another rank's thread held while its launch waited for room in its
   *   stream's queue, behind its kernel that waited for this rank.
   *   NCCL_RUNTIME_CONNECT=0 connects every peer when the communicator is
   *   created, during setup, before anything spins.
   * - A launch that needs more local memory than the context holds grows it,
   *   and growing waits for the context's running kernels: a rank's first
   *   ncclBroadcast stayed in cuLaunchKernelEx while another rank's kernel
   *   waited for it. NCCL_SET_STACK_SIZE=1 has NCCL size it for its largest
   *   kernel when a communicator is created, before anything spins (our
   *   kernels need less).
   * - NCCL's default graph mixing makes each captured call wait on an event
   *   of its communicator's outside the graph; graphs of ranks of one process
   *   then hung in a stress, a rank's kernel waiting on another's until the
   *   watchdog. Without it NCCL needs no graph of a communicator outstanding
   *   when that communicator is called outside a graph or from another
   *   stream: a rank calls its own communicators from its one stream, and
   *   waits for every graph before anything else (timing.c). */
  setenv("NCCL_RUNTIME_CONNECT", "0", 0);
  setenv("NCCL_SET_STACK_SIZE", "1", 0);
  setenv("NCCL_GRAPH_MIXING_SUPPORT", "0", 0);
}

/* A bad value is refused like a bad option (parsed becomes CB_OPTS_ERROR,
 * err says why), so that every process agrees before anything runs. */
static cb_opts_result read_nccl_tests_vars(cb_world *w, cb_opts_result parsed,
                                           cb_nccl_tests_vars *v, char *err, size_t len) {
  *v = (cb_nccl_tests_vars){0, -1, -1};
  if (parsed != CB_OPTS_RUN) return parsed;
  const char *bad = cb_env_split_color(getenv("NCCL_TESTS_SPLIT"), getenv("NCCL_TESTS_SPLIT_MASK"),
                                       cb_world_proc(w), &v->color, err, len);
  if (!bad) bad = cb_env_first_device(getenv("NCCL_TESTS_DEVICE"), &v->first_device, err, len);
  if (!bad) bad = cb_env_min_bw(getenv("NCCL_TESTS_MIN_BW"), &v->min_bw, err, len);
  return bad ? CB_OPTS_ERROR : CB_OPTS_RUN;
}

/* CB_PEER_MAPPING into the options (so that processes started with
 * different values are refused like different options; auto is a value of
 * its own there) and into the peer memory calls; a bad value is refused
 * like a bad option. auto is resolved later, on the GPUs (rank_main). */
static cb_opts_result read_peer_mapping(cb_opts_result parsed, cb_options *o, char *err,
                                        size_t len) {
  if (parsed != CB_OPTS_RUN) return parsed;
  cb_peer_mapping m = CB_PEER_AUTO;
  if (cb_peer_mapping_parse(getenv(CB_PEER_MAPPING_ENV), &m, err, len)) return CB_OPTS_ERROR;
  o->peer_mapping = (int)m;
  cb_peer_mapping_use(m);
  return CB_OPTS_RUN;
}

/* Every CB_ tunable of the kernels (tunables.h), read and checked here with
 * the options, whichever kernels run: a bad value is refused like a bad
 * option, before any GPU work; the processes compare them after the
 * options (cb_refuse_different_tunables). */
static cb_opts_result read_tunables(cb_opts_result parsed, char *err, size_t len) {
  if (parsed != CB_OPTS_RUN) return parsed;
  return cb_tunables_read(CB_TUNE_COLL, err, len) ? CB_OPTS_ERROR : CB_OPTS_RUN;
}

/* CB_ERROR_STACKS: a value other than 0 or 1 is refused like a bad option. */
static cb_opts_result read_error_stacks(cb_opts_result parsed, char *err, size_t len) {
  if (parsed != CB_OPTS_RUN) return parsed;
  return cb_thread_stacks_read(err, len) ? CB_OPTS_ERROR : CB_OPTS_RUN;
}

cb_opts_result cb_run_env_read(cb_world *w, cb_opts_result parsed, cb_options *o,
                               cb_nccl_tests_vars *vars, char *err, size_t len) {
  parsed = read_nccl_tests_vars(w, parsed, vars, err, len);
  parsed = read_peer_mapping(parsed, o, err, len);
  parsed = read_error_stacks(parsed, err, len);
  return read_tunables(parsed, err, len);
}
