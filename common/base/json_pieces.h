/* Pieces of the JSON documents that every program writes (the collectives'
 * report_json.c and report_json_nccl_tests.c, copy_perf's
 * copy_report_json.c): the documents carry the same header, devices,
 * versions and per-measurement keys, so one reader serves them all. */
#ifndef CB_JSON_PIECES_H
#define CB_JSON_PIECES_H

#include <stddef.h>

#include "device_info.h"
#include "json_writer.h"
#include "kernel_menu.h"
#include "sizes.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The document's first keys: program, collective, date, nranks. */
void cb_json_run_head(cb_json *j, const char *program, const char *collective, const char *date,
                      int nranks);
/* The options every program has, inside "options": the sweep (-b -e -i -f), -n, -w, -c. */
void cb_json_sweep_options(cb_json *j, const cb_sweep *s, int iters, int warmup, int check);
/* "versions": collbench's, NCCL's when nccl is not NULL ({headers, library}), CUDA's, MPI's. */
void cb_json_versions(cb_json *j, const int *nccl, int cuda_runtime, int cuda_driver,
                      const char *mpi);
/* The keys a document names a rank's device with: collbench's documents
 * and nccl-tests' -J list the same fields under names of their own. */
typedef struct {
  const char *rank, *process /* NULL: left out */, *group, *pid, *host, *device, *pci, *name;
} cb_json_device_keys;
/* collbench's names, every field. */
extern const cb_json_device_keys cb_json_device_keys_collbench;
/* "devices": one object per rank of devices (n), named by keys, for the
 * ranks whose number is a multiple of step (1: every rank; nccl-tests
 * lists each process's first rank). */
void cb_json_devices(cb_json *j, const cb_json_device_keys *keys, const cb_device_info *devices,
                     int n, int step);
/* Adds a program's own keys to the entry of kernel k (an index into the
 * kernel table) of "kernels"; arg: what it needs to tell. */
typedef void (*cb_json_kernel_keys_fn)(cb_json *j, const void *arg, int k);
/* "kernels": every kernel of m's table that ran (ran[k]) or could not run
 * (skips[k]: why; skips NULL: none could not), with its id, name, summary,
 * ran and skipped, then extra's keys (extra NULL: none); a kernel that -k
 * did not select is left out. */
void cb_json_kernels(cb_json *j, const cb_kernel_menu *m, const int *ran, char *const *skips,
                     cb_json_kernel_keys_fn extra, const void *arg);
/* Opens one entry of "results" or "stress": its kernel's id ("kernel") and
 * name ("kernel_name") first; the caller adds the rest and closes it. */
void cb_json_row_begin(cb_json *j, int kernel_id, const char *kernel_name);
/* A measurement's call: type, redop, root, size, count, placement, mode. */
void cb_json_call_keys(cb_json *j, const char *type, const char *redop, int root, size_t size,
                       size_t count, const char *placement, const char *mode);
/* The last keys of a measurement that ran: algbw, busbw, wrong (null when
 * not checked), and iter_stats when stats is not NULL. */
void cb_json_measure_tail(cb_json *j, double algbw, double busbw, long long wrong,
                          const cb_iter_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
