/* What both runners do around their sweep (runner.c for the collective
 * programs, copy_runner.c for copy_perf): refusing bad input once, checking
 * that every process was given the same options, gathering the devices,
 * and stamping the report (the output files: sink.h). */
#ifndef CB_LAUNCH_H
#define CB_LAUNCH_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"
#include "kernel_menu.h"
#include "option_parse.h" /* cb_opts_result */
#include "device_info.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bad input is the same on every process of a run: the lead process says
 * why, the others leave quietly, so mpirun shows the reason once. */
#define CB_REFUSE(lead, ...)                                                                       \
  do {                                                                                             \
    if (lead) cb_fatal(__VA_ARGS__);                                                               \
    cb_exit_quietly();                                                                             \
  } while (0)

/* Why kernel k cannot run here at all, or NULL; buf (len bytes) may hold
 * the text. arg: what the program needs to tell. */
typedef const char *(*cb_kernel_reason_fn)(const void *arg, int k, char *buf, size_t len);

/* After the options were parsed (parsed, and err on a refusal), before
 * any GPU work: bad input is refused; after -h or -k list, which lead has
 * printed, the world is finalized and 0 returned: the program is done.
 * Returns 1 when a run follows. Collective over the processes: a refusal
 * on one process only is printed by the lead, naming that process, and
 * processes that disagree on what to do (-h on one, a run on another)
 * are refused too. */
int cb_run_after_parse(cb_world *w, cb_opts_result parsed, const char *err, int lead);

/* Collective over the processes: why this process cannot go on, or NULL.
 * When any process cannot, the lead says why once (naming the process when
 * the others could, or said otherwise) and every process exits. */
void cb_run_refuse_any(cb_world *w, const char *why, int lead);

/* The CUDA devices this process sees. Collective over the processes: when
 * a process sees none, the lead says so once ("no CUDA device visible",
 * naming the process when others do see devices) and every process exits. */
int cb_run_visible_gpus(cb_world *w, int lead);

/* Resolves -k (spec) against m into runnable[] (m->nkernels entries), then
 * drops each chosen kernel that reason says cannot run here: one named
 * with -k is refused, one that -k all chose keeps its reason in skips[k]
 * (to free). Bad -k, and a run left without a kernel, are refused. Every
 * process calls it; lead says why. Returns whether -k named kernels. */
int cb_choose_kernels(const cb_kernel_menu *m, const char *spec, int *runnable, char **skips,
                      cb_kernel_reason_fn reason, const void *arg, int lead);

/* For cb_world_run with one thread per process: compares this process's
 * canonical options line (canonical: cb_options_canonical's or
 * cb_copy_options_canonical's) with the first process's, and refuses a
 * mismatch (a launcher passing different arguments to different ranks),
 * naming each option that differs as the line spells it. */
int cb_refuse_different_options(cb_rank_info *me, void *canonical);
/* The same for the tunables that must agree across ranks (tunables.h), as
 * cb_tunables_read read them on every process: a difference is refused in
 * one line naming the variable, the processes and both values. arg: none. */
int cb_refuse_different_tunables(cb_rank_info *me, void *arg);

/* Collective over the world: every rank describes the GPU it drives. World
 * rank 0 gets all of them (world_nranks entries, to free), the others NULL. */
cb_device_info *cb_gather_devices(cb_rank_info *me, int device);

/* The report's stamp: CUDA's runtime and driver versions, MPI's version
 * line, and the date (ISO 8601, UTC). */
void cb_run_stamp(cb_world *w, int *cuda_runtime, int *cuda_driver, char *mpi, size_t mpi_len,
                  char *date, size_t date_len);

#ifdef __cplusplus
}
#endif

#endif
