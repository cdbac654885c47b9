#include "placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "error.h"
#include "gpu.h"
#include "host_layout.h"
#include "run_env.h"   /* the queue count chosen */
#include "run_steps.h" /* CB_REFUSE */
#include "tunables.h"

int cb_ranks_on_gpu(cb_rank_info *me, int device) {
  char bus[32], *ids = calloc((size_t)me->world_nranks, CB_HOST_ID_MAX);
  cb_host_place *places = calloc((size_t)me->world_nranks, sizeof *places);
  char mine[CB_HOST_ID_MAX];
  if (!ids || !places) cb_fatal("out of host memory");
  CB_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  cb_gpu_identity(cb_world_machine(me->world), bus, mine, sizeof mine);
  cb_world_allgather_all(me, mine, sizeof mine, ids);
  cb_host_places(ids, CB_HOST_ID_MAX, me->world_nranks, places);
  const int n = places[me->world_rank].local_nprocs;
  free(ids);
  free(places);
  return n;
}

int cb_device_of(const cb_run *run, const cb_rank_info *me) {
  if (run->first_device >= 0) return run->first_device + me->thread;
  return cb_gpu_for_local_rank(me->local_proc * cb_options_ranks_per_proc(&run->opts) + me->thread,
                               run->visible_gpus, run->share_gpus);
}

void cb_place_hosts(cb_world *w, int lead) {
  int nhosts = (int)cb_tunable("CB_HOSTS");
  char why[320];
  cb_run_refuse_any(w, cb_world_hosts_problem(w, nhosts, why, sizeof why), lead);
  cb_world_simulate_hosts(w, nhosts);
}

/* Each group runs the test on its own ranks. Groups of different sizes would run
 * different calls (sizes per rank, kernels that fit), which one table
 * cannot report: refused. */
void cb_split_world(cb_world *w, int color, int lead) {
  cb_world_split(w, color);
  const char *uneven = cb_world_uneven_groups(w);
  if (uneven)
    CB_REFUSE(lead,
              "NCCL_TESTS_SPLIT puts the processes into %s: collbench needs groups of one size, "
              "which all run the same calls and are reported as one",
              uneven);
}

/* The devices a process's ranks drive: first .. first + count - 1. */
typedef struct {
  char host[64];
  int first, count, visible;
  int named; /* by NCCL_TESTS_DEVICE */
} device_span;

typedef struct {
  device_span mine, *all;
} span_exchange;

static int exchange_spans(cb_rank_info *me, void *arg) {
  span_exchange *x = arg;
  cb_world_allgather_all(me, &x->mine, sizeof x->mine, x->all);
  return 0;
}

/* Why the processes' devices cannot serve the run, or NULL: a device
 * NCCL_TESTS_DEVICE names that is not visible, or two processes of a host
 * on one device (NCCL_TESTS_DEVICE gives every process N.. N + (-t x -g)
 * - 1, nccl-tests' meaning: processes of one host need one value each). */
static const char *span_problem(const device_span *all, int n, char *why, size_t len) {
  for (int p = 0; p < n; p++) {
    const device_span *a = &all[p];
    if (a->named && a->first + a->count > a->visible) {
      snprintf(why, len,
               "NCCL_TESTS_DEVICE=%d with -t x -g = %d GPUs needs devices %d to %d, but process "
               "%d sees %d",
               a->first, a->count, a->first, a->first + a->count - 1, p, a->visible);
      return why;
    }
    for (int q = p + 1; q < n; q++) {
      const device_span *b = &all[q];
      if ((a->named || b->named) && strcmp(a->host, b->host) == 0 &&
          a->first < b->first + b->count && b->first < a->first + a->count) {
        snprintf(why, len,
                 "NCCL_TESTS_DEVICE puts processes %d and %d of host %s on the same devices "
                 "(from %d and from %d, %d each): give each process of a host its own",
                 p, q, a->host, a->first, b->first, a->count);
        return why;
      }
    }
  }
  return NULL;
}

/* Why the device's hardware queues cannot give every stream of ranks that
 * share a GPU in this process one of its own (CUDA_DEVICE_MAX_CONNECTIONS,
 * which cb_run_env_cuda_defaults sets, when unset, to this process's share
 * of MPS's pool), or NULL. Ranks take GPUs round robin, so one GPU holds
 * at most ceil(rpp / visible) of a process's; each has its call's stream,
 * and with --overlap the load's and the one whose events mark host times
 * (load.h). */
static const char *queues_problem(const cb_run *run, int rpp) {
  static char why[400];
  const char *text = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  if (!run->share_gpus || !text || run->visible_gpus < 1) return NULL;
  int most = (rpp + run->visible_gpus - 1) / run->visible_gpus;
  int streams = most * (run->opts.overlap ? 3 : 1);
  long queues = strtol(text, NULL, 10);
  if (most < 2 || queues >= streams) return NULL;
  const int procs = cb_run_env_queues_chosen_for();
  if (procs)
    snprintf(why, sizeof why,
             "the %d processes on this machine share MPS's pool of about %d hardware queues, %s "
             "each (CUDA_DEVICE_MAX_CONNECTIONS), fewer than the %d streams of this process's %d "
             "ranks that share a GPU, and a rank's kernel could then wait forever behind "
             "another's: run fewer processes on the machine, or fewer ranks a process",
             procs, CB_MPS_QUEUE_POOL, text, streams, most);
  else
    snprintf(why, sizeof why,
             "CUDA_DEVICE_MAX_CONNECTIONS=%s gives the %d ranks that share a GPU in a process "
             "fewer hardware queues than their %d streams, and a rank's kernel can then wait "
             "forever behind another's: unset it, or give it %d or more",
             text, most, streams, streams);
  return why;
}

/* The spans are exchanged by every process, whatever its environment. */
void cb_check_devices(cb_world *w, cb_run *run, int rpp, int lead) {
  if (run->first_device >= 0 && run->share_gpus)
    CB_REFUSE(lead, "NCCL_TESTS_DEVICE cannot be combined with CB_SHARE_GPUS=1, which puts ranks "
                    "on the visible GPUs round robin");
  if (run->opts.stream_null && run->share_gpus)
    CB_REFUSE(lead, "-y 1 cannot be combined with CB_SHARE_GPUS=1: ranks sharing a GPU would share "
                    "its one legacy NULL stream, where a kernel waiting for a peer blocks the "
                    "peer's");
  const char *few_queues = queues_problem(run, rpp);
  if (few_queues) CB_REFUSE(lead, "%s", few_queues);
  int n = cb_world_nprocs(w);
  span_exchange x = {.all = calloc((size_t)n, sizeof(device_span))};
  if (!x.all) cb_fatal("out of host memory");
  snprintf(x.mine.host, sizeof x.mine.host, "%s", cb_world_hostname(w));
  x.mine.named = run->first_device >= 0;
  x.mine.first = x.mine.named ? run->first_device : cb_world_local_proc(w) * rpp;
  x.mine.count = rpp;
  x.mine.visible = run->visible_gpus;
  cb_world_run(w, 1, exchange_spans, &x);
  char why[256];
  const char *bad = run->share_gpus ? NULL : span_problem(x.all, n, why, sizeof why);
  free(x.all);
  if (bad) CB_REFUSE(lead, "%s", bad);
  if (lead && cb_world_simulated_hosts(w))
    printf("# %d hosts simulated on this machine (NCCL_HOSTID differs between its processes): "
           "NCCL's traffic between them takes its network transport; for correctness checks "
           "only, times are not comparable\n",
           cb_world_nhosts(w));
  if (run->share_gpus) {
    if (lead)
      printf("# CB_SHARE_GPUS=1: ranks share the %d visible GPU%s round robin; for correctness "
             "checks only, times are not comparable\n",
             run->visible_gpus, run->visible_gpus == 1 ? "" : "s");
  } else if (run->first_device < 0) {
    cb_gpu_check_layout(run->visible_gpus, rpp, cb_world_local_nprocs(w), cb_world_hostname(w));
  }
}
