#include "host_layout.h"

#include <stdio.h>
#include <string.h>

void cb_host_identity(const char *machine, const char *nccl_hostid, char *id, size_t len) {
  snprintf(id, len, "%s", nccl_hostid ? nccl_hostid : machine);
}

const char *cb_host_simulated_id(int nhosts, int proc, int nprocs, const char *machine, char *id,
                                 size_t len, char *why, size_t why_len) {
  if (nhosts < 1 || nhosts > nprocs || nprocs % nhosts != 0) {
    snprintf(why, why_len,
             "CB_HOSTS=%d makes the processes %d simulated hosts of as many processes each, and "
             "this run has %d process%s (the ranks of one process share its host): start a "
             "multiple of %d with mpirun -np",
             nhosts, nhosts, nprocs, nprocs == 1 ? "" : "es", nhosts);
    return why;
  }
  snprintf(id, len, "%s-host%d", machine, proc / (nprocs / nhosts));
  return NULL;
}

/* Quadratic in the processes, which are thousands at most, once a run. */
int cb_host_places(const char *ids, size_t stride, int nprocs, cb_host_place *places) {
  int nhosts = 0;
  for (int p = 0; p < nprocs; p++) {
    const char *mine = ids + (size_t)p * stride;
    cb_host_place *me = &places[p];
    me->host = -1;
    me->local_proc = me->local_nprocs = 0;
    for (int q = 0; q < nprocs; q++) {
      if (strcmp(ids + (size_t)q * stride, mine) != 0) continue;
      if (me->host < 0) me->host = q < p ? places[q].host : nhosts++;
      me->local_proc += q < p;
      me->local_nprocs++;
    }
  }
  return nhosts;
}

void cb_process_counts_text(const char *what, const int *counts, int n, char *buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "%s of", what);
  for (int i = 0; i < n && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, "%s%d",
                             i == 0       ? " "
                             : i == n - 1 ? " and "
                                          : ", ",
                             counts[i]);
  if (used < len) snprintf(buf + used, len - used, " processes");
}

const char *cb_host_uneven(const cb_host_place *places, int nprocs, int nhosts, char *why,
                           size_t len) {
  int counts[CB_HOST_COUNTS_SHOWN],
      shown = nhosts < CB_HOST_COUNTS_SHOWN ? nhosts : CB_HOST_COUNTS_SHOWN;
  int even = 1;
  for (int p = 0; p < nprocs; p++) {
    even &= places[p].local_nprocs == places[0].local_nprocs;
    if (places[p].host < shown) counts[places[p].host] = places[p].local_nprocs;
  }
  if (even) return NULL;
  cb_process_counts_text("hosts", counts, shown, why, len);
  return why;
}

void cb_gpu_identity(const char *machine, const char *bus_id, char *id, size_t len) {
  snprintf(id, len, "%s/%s", machine, bus_id);
}

int cb_host_node_of(const cb_host_place *p) {
  return p->host;
}

int cb_host_rail_of(const cb_host_place *p, int ranks_per_proc, int thread) {
  return p->local_proc * ranks_per_proc + thread;
}
