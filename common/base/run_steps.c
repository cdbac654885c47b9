#define _GNU_SOURCE /* strdup */
#include "run_steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_check.h"
#include "gpu.h"
#include "tunables.h"

/* ---- what every process found, agreed before any GPU work -------------- */

/* One process's word: what it is about to do (code) and, when it cannot
 * go on, why. */
typedef struct {
  int code;
  char host[64];
  char why[448];
} proc_word;

typedef struct {
  proc_word mine;
  proc_word *all; /* nprocs entries, in process order */
} word_exchange;

static int exchange_words(cb_rank_info *me, void *arg) {
  word_exchange *x = arg;
  cb_world_allgather_all(me, &x->mine, sizeof x->mine, x->all);
  return 0;
}

/* Collective over the processes: every process gives its code and its
 * reason to stop (why: NULL to go on). When any process must stop, the
 * lead prints one line, the reason alone when every process gave the same
 * one (as a refusal of the same options on every process is), else the
 * first stopping process's, naming it; then every process leaves. When
 * every process can go on but their codes differ, the lead refuses with
 * "processes were started with different options", naming with what_code
 * what process 0 and the first process that differs from it are about to do.
 * Returns the agreed code. */
static int agree(cb_world *w, int lead, int code, const char *why,
                 const char *(*what_code)(int code)) {
  int n = cb_world_nprocs(w);
  word_exchange x = {.all = calloc((size_t)n, sizeof(proc_word))};
  if (!x.all) cb_fatal("out of host memory");
  x.mine.code = code;
  snprintf(x.mine.host, sizeof x.mine.host, "%s", cb_world_hostname(w));
  snprintf(x.mine.why, sizeof x.mine.why, "%s", why ? why : "");
  cb_world_run(w, 1, exchange_words, &x);
  int first = -1, stopping = 0, same = 1, differs = -1;
  for (int p = 0; p < n; p++) {
    const proc_word *wp = &x.all[p];
    if (wp->why[0]) {
      stopping++;
      if (first < 0)
        first = p;
      else
        same &= strcmp(wp->why, x.all[first].why) == 0;
    }
    if (differs < 0 && wp->code != x.all[0].code) differs = p;
  }
  int agreed = x.all[0].code;
  if (stopping && lead) {
    const proc_word *f = &x.all[first];
    if (stopping == n && same) cb_fatal("%s", f->why);
    cb_fatal("process %d of %d (host %s): %s", first, n, f->host, f->why);
  }
  if (!stopping && differs >= 0 && lead)
    cb_fatal("processes were started with different options: process 0 %s, process %d %s",
             what_code(x.all[0].code), differs, what_code(x.all[differs].code));
  free(x.all);
  if (stopping || differs >= 0) cb_exit_quietly();
  return agreed;
}

static const char *what_parse_asks(int code) {
  switch ((cb_opts_result)code) {
  case CB_OPTS_HELP:
    return "asks for -h";
  case CB_OPTS_LIST_KERNELS:
    return "asks for -k list";
  default:
    return "asks for a run";
  }
}

int cb_run_after_parse(cb_world *w, cb_opts_result parsed, const char *err, int lead) {
  parsed =
      (cb_opts_result)agree(w, lead, parsed, parsed == CB_OPTS_ERROR ? err : NULL, what_parse_asks);
  if (parsed == CB_OPTS_RUN) return 1;
  cb_world_finalize(w);
  return 0;
}

static const char *no_code(int code) {
  (void)code;
  return "";
}

void cb_run_refuse_any(cb_world *w, const char *why, int lead) {
  agree(w, lead, 0, why, no_code);
}

int cb_run_visible_gpus(cb_world *w, int lead) {
  int n;
  const char *why = cb_gpu_count(&n);
  agree(w, lead, 0, why, no_code);
  return n;
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

/* The options in which two canonical lines ("-b 8; -e 8; ...", the same
 * options in the same order) differ, as the user types them: "-b 8 on process
 * 0, -b 16 on process r; ...". */
static void options_differing(const char *a, const char *b, int r, char *out, size_t len) {
  size_t at = 0;
  out[0] = '\0';
  while (*a && *b && at < len) {
    size_t na = strcspn(a, ";"), nb = strcspn(b, ";");
    if (na != nb || strncmp(a, b, na) != 0)
      at += (size_t)snprintf(out + at, len - at, "%s%.*s on process 0, %.*s on process %d",
                             at ? "; " : "", (int)na, a, (int)nb, b, r);
    a += na + (a[na] == ';'), b += nb + (b[nb] == ';');
    a += *a == ' ', b += *b == ' ';
  }
}

int cb_refuse_different_options(cb_rank_info *me, void *canonical) {
  enum { LEN = CB_OPTIONS_LINE_MAX };
  char mine[LEN] = {0};
  snprintf(mine, LEN, "%s", (const char *)canonical);
  char *all = malloc((size_t)me->world_nranks * LEN);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather_all(me, mine, LEN, all);
  for (int r = 1; r < me->world_nranks; r++)
    if (strncmp(all, all + (size_t)r * LEN, LEN) != 0) {
      char diff[LEN * 2];
      options_differing(all, all + (size_t)r * LEN, r, diff, sizeof diff);
      CB_REFUSE(me->world_rank == 0, "processes were started with different options: %s", diff);
    }
  free(all);
  return 0;
}

int cb_refuse_different_tunables(cb_rank_info *me, void *arg) {
  (void)arg;
  int rows;
  cb_tunable_rows(&rows);
  size_t bytes = (size_t)rows * sizeof(cb_tunable_setting);
  cb_tunable_setting *mine = malloc(bytes), *all = malloc(bytes * (size_t)me->world_nranks);
  if (!mine || !all) cb_fatal("out of host memory");
  cb_tunable_settings(mine);
  cb_world_allgather_all(me, mine, bytes, all);
  char why[384];
  const char *bad = cb_tunables_mismatch(all, me->world_nranks, why, sizeof why);
  if (bad) CB_REFUSE(me->world_rank == 0, "%s", bad);
  free(mine);
  free(all);
  return 0;
}

cb_device_info *cb_gather_devices(cb_rank_info *me, int device) {
  cb_device_info mine;
  memset(&mine, 0, sizeof mine);
  cb_gpu_describe(device, &mine);
  mine.rank = me->world_rank;
  mine.proc = me->proc;
  mine.group = me->group;
  snprintf(mine.host, sizeof mine.host, "%s", cb_world_hostname(me->world));
  cb_device_info *all = calloc((size_t)me->world_nranks, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather_all(me, &mine, sizeof mine, all);
  if (me->world_rank == 0) return all;
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
