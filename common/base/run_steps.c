#define _GNU_SOURCE /* access, strdup */
#include "run_steps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_check.h"
#include "gpu.h"

int cb_run_after_parse(cb_world *w, cb_opts_result parsed, const char *err, int lead) {
  if (parsed == CB_OPTS_ERROR) CB_REFUSE(lead, "%s", err);
  if (parsed == CB_OPTS_RUN) return 1;
  cb_world_finalize(w);
  return 0;
}

int cb_choose_kernels(const cb_kernel_menu *m, const char *spec, int *runnable, char **skips,
                      cb_kernel_reason_fn reason, const void *arg, int lead) {
  int explicit_pick;
  char err[256];
  if (cb_kernel_menu_select(m, spec, runnable, &explicit_pick, err, sizeof err))
    CB_REFUSE(lead, "%s", err);
  int n = 0;
  for (int k = 0; k < m->nkernels; k++) {
    if (!runnable[k]) continue;
    char buf[256];
    const char *why = reason(arg, k, buf, sizeof buf);
    if (why && explicit_pick) {
      cb_kernel_key key = m->key(m->table, k);
      CB_REFUSE(lead, "kernel %d (%s) cannot run: %s", key.id, key.name, why);
    }
    if (why) {
      skips[k] = strdup(why);
      if (!skips[k]) cb_fatal("out of host memory");
      runnable[k] = 0;
    }
    n += runnable[k];
  }
  if (n == 0) CB_REFUSE(lead, "no selected kernel can run here (-k list shows why)");
  return explicit_pick;
}

int cb_refuse_different_options(cb_rank_info *me, void *canonical) {
  enum { LEN = 512 };
  char mine[LEN] = {0};
  snprintf(mine, LEN, "%s", (const char *)canonical);
  char *all = malloc((size_t)me->nranks * LEN);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(me, mine, LEN, all);
  for (int r = 1; r < me->nranks; r++)
    if (strncmp(all, all + (size_t)r * LEN, LEN) != 0)
      CB_REFUSE(me->rank == 0,
                "processes were started with different options: process 0 has '%s', "
                "process %d has '%s'",
                all, r, all + (size_t)r * LEN);
  free(all);
  return 0;
}

cb_device_info *cb_gather_devices(cb_rank_info *me, int device) {
  cb_device_info mine;
  memset(&mine, 0, sizeof mine);
  cb_gpu_describe(device, &mine);
  mine.rank = me->rank;
  mine.proc = me->proc;
  snprintf(mine.host, sizeof mine.host, "%s", cb_world_hostname(me->world));
  cb_device_info *all = calloc((size_t)me->nranks, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(me, &mine, sizeof mine, all);
  if (me->rank == 0) return all;
  free(all);
  return NULL;
}

void cb_run_stamp(cb_world *w, int *cuda_runtime, int *cuda_driver, char *mpi, size_t mpi_len,
                  char *date, size_t date_len) {
  CB_CUDA(cudaRuntimeGetVersion(cuda_runtime));
  CB_CUDA(cudaDriverGetVersion(cuda_driver));
  snprintf(mpi, mpi_len, "%s", cb_world_mpi_version(w));
  time_t now = time(NULL);
  strftime(date, date_len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

void cb_sink_check(const char *path, const char *flag) {
  if (!path[0]) return;
  int existed = access(path, F_OK) == 0;
  FILE *f = fopen(path, "a");
  if (!f) cb_fatal("cannot write %s file '%s': %s", flag, path, strerror(errno));
  fclose(f);
  if (!existed) unlink(path);
}

FILE *cb_sink_open(const char *path, const char *flag) {
  FILE *f = fopen(path, "w");
  if (!f) cb_fatal("cannot write %s file '%s': %s", flag, path, strerror(errno));
  return f;
}

void cb_sink_close(FILE *f, int write_rc, const char *path, const char *flag) {
  if (write_rc != 0 || fclose(f) != 0) cb_fatal("writing %s file '%s' failed", flag, path);
}
