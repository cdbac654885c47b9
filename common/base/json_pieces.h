/* Pieces of the JSON documents that every program writes (the collectives'
 * report_json.c, copy_perf's copy_report.c): both documents carry the same
 * header, devices, versions and per-measurement keys, so one reader serves
 * both. */
#ifndef CB_JSON_PIECES_H
#define CB_JSON_PIECES_H

#include <stddef.h>

#include "device_info.h"
#include "json_writer.h"
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
/* "devices": one object per rank. */
void cb_json_devices(cb_json *j, const cb_device_info *devices, int n);
/* Opens one entry of "kernels" and writes its common keys (skip: NULL or
 * why it could not run); the caller adds its own keys and closes it. */
void cb_json_kernel_begin(cb_json *j, int id, const char *name, const char *summary, int ran,
                          const char *skip);
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
