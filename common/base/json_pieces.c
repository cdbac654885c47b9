#include "json_pieces.h"

#include "text_pieces.h" /* CB_VERSION */

void cb_json_run_head(cb_json *j, const char *program, const char *collective, const char *date,
                      int nranks) {
  cb_json_key(j, "program"), cb_json_string(j, program);
  cb_json_key(j, "collective"), cb_json_string(j, collective);
  cb_json_key(j, "date"), cb_json_string(j, date);
  cb_json_key(j, "nranks"), cb_json_int(j, nranks);
}

void cb_json_sweep_options(cb_json *j, const cb_sweep *s, int iters, int warmup, int check) {
  cb_json_key(j, "minbytes"), cb_json_int(j, (long long)s->min_bytes);
  cb_json_key(j, "maxbytes"), cb_json_int(j, (long long)s->max_bytes);
  cb_json_key(j, "stepbytes"), cb_json_int(j, (long long)s->step_bytes);
  cb_json_key(j, "stepfactor"), cb_json_int(j, (long long)s->step_factor);
  cb_json_key(j, "iters"), cb_json_int(j, iters);
  cb_json_key(j, "warmup_iters"), cb_json_int(j, warmup);
  cb_json_key(j, "check"), cb_json_int(j, check);
}

void cb_json_versions(cb_json *j, const int *nccl, int cuda_runtime, int cuda_driver,
                      const char *mpi) {
  cb_json_key(j, "versions");
  cb_json_begin_object(j);
  cb_json_key(j, "collbench"), cb_json_string(j, CB_VERSION);
  if (nccl) {
    cb_json_key(j, "nccl_headers"), cb_json_int(j, nccl[0]);
    cb_json_key(j, "nccl_library"), cb_json_int(j, nccl[1]);
  }
  cb_json_key(j, "cuda_runtime"), cb_json_int(j, cuda_runtime);
  cb_json_key(j, "cuda_driver"), cb_json_int(j, cuda_driver);
  cb_json_key(j, "mpi"), cb_json_string(j, mpi);
  cb_json_end_object(j);
}

const cb_json_device_keys cb_json_device_keys_collbench = {"rank", "process", "group", "pid",
                                                           "host", "device",  "pci",   "name"};

void cb_json_devices(cb_json *j, const cb_json_device_keys *k, const cb_device_info *devices, int n,
                     int step) {
  cb_json_key(j, "devices");
  cb_json_begin_array(j);
  for (int i = 0; i < n && devices; i++) {
    const cb_device_info *d = &devices[i];
    if (d->rank % step != 0) continue;
    cb_json_begin_object(j);
    cb_json_key(j, k->rank), cb_json_int(j, d->rank);
    if (k->process) cb_json_key(j, k->process), cb_json_int(j, d->proc);
    cb_json_key(j, k->group), cb_json_int(j, d->group);
    cb_json_key(j, k->pid), cb_json_int(j, d->pid);
    cb_json_key(j, k->host), cb_json_string(j, d->host);
    cb_json_key(j, k->device), cb_json_int(j, d->device);
    cb_json_key(j, k->pci), cb_json_string(j, d->pci);
    cb_json_key(j, k->name), cb_json_string(j, d->name);
    cb_json_end_object(j);
  }
  cb_json_end_array(j);
}

void cb_json_kernels(cb_json *j, const cb_kernel_menu *m, const int *ran, char *const *skips,
                     cb_json_kernel_keys_fn extra, const void *arg) {
  cb_json_key(j, "kernels");
  cb_json_begin_array(j);
  for (int k = 0; k < m->nkernels; k++) {
    const cb_kernel_key key = m->key(m->table, k);
    const char *skip = skips ? skips[k] : NULL;
    if (!ran[k] && !skip) continue; /* not selected by -k */
    cb_json_begin_object(j);
    cb_json_key(j, "id"), cb_json_int(j, key.id);
    cb_json_key(j, "name"), cb_json_string(j, key.name);
    cb_json_key(j, "summary"), cb_json_string(j, key.summary);
    cb_json_key(j, "ran"), cb_json_bool(j, ran[k]);
    if (skip) cb_json_key(j, "skipped"), cb_json_string(j, skip);
    if (extra) extra(j, arg, k);
    cb_json_end_object(j);
  }
  cb_json_end_array(j);
}

void cb_json_row_begin(cb_json *j, int kernel_id, const char *kernel_name) {
  cb_json_begin_object(j);
  cb_json_key(j, "kernel"), cb_json_int(j, kernel_id);
  cb_json_key(j, "kernel_name"), cb_json_string(j, kernel_name);
}

void cb_json_call_keys(cb_json *j, const char *type, const char *redop, int root, size_t size,
                       size_t count, const char *placement, const char *mode) {
  cb_json_key(j, "type"), cb_json_string(j, type);
  cb_json_key(j, "redop"), cb_json_string(j, redop);
  cb_json_key(j, "root"), cb_json_int(j, root);
  cb_json_key(j, "size"), cb_json_int(j, (long long)size);
  cb_json_key(j, "count"), cb_json_int(j, (long long)count);
  cb_json_key(j, "placement"), cb_json_string(j, placement);
  cb_json_key(j, "mode"), cb_json_string(j, mode);
}

static void json_iter_stats(cb_json *j, const cb_iter_stats *s) {
  const cb_json_number stats[] = {{"min_us", s->min_us},
                                  {"p50_us", s->p50_us},
                                  {"p99_us", s->p99_us},
                                  {"max_us", s->max_us},
                                  {"cv_pct", s->cv_pct}};
  cb_json_key(j, "iter_stats");
  cb_json_begin_object(j);
  cb_json_key(j, "samples"), cb_json_int(j, s->samples);
  cb_json_numbers(j, stats, (int)(sizeof stats / sizeof stats[0]));
  cb_json_end_object(j);
}

void cb_json_measure_tail(cb_json *j, double algbw, double busbw, long long wrong,
                          const cb_iter_stats *stats) {
  cb_json_key(j, "algbw"), cb_json_double(j, algbw);
  cb_json_key(j, "busbw"), cb_json_double(j, busbw);
  cb_json_key(j, "wrong");
  if (wrong >= 0)
    cb_json_int(j, wrong);
  else
    cb_json_null(j);
  if (stats) json_iter_stats(j, stats);
}
