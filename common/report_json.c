/* The JSON sink: one document holding the run's setup and every measurement. */
#include "json_writer.h"
#include "report.h"

static const char *const placement_names[2] = {"out-of-place", "in-place"};

static void json_options(cb_json *j, const cb_options *o) {
  cb_json_key(j, "options");
  cb_json_begin_object(j);
  cb_json_key(j, "minbytes"), cb_json_int(j, (long long)o->sweep.min_bytes);
  cb_json_key(j, "maxbytes"), cb_json_int(j, (long long)o->sweep.max_bytes);
  cb_json_key(j, "stepbytes"), cb_json_int(j, (long long)o->sweep.step_bytes);
  cb_json_key(j, "stepfactor"), cb_json_int(j, (long long)o->sweep.step_factor);
  cb_json_key(j, "iters"), cb_json_int(j, o->iters);
  cb_json_key(j, "warmup_iters"), cb_json_int(j, o->warmup);
  cb_json_key(j, "check"), cb_json_int(j, o->check);
  cb_json_key(j, "root"), cb_json_int(j, o->root);
  cb_json_key(j, "nthreads"), cb_json_int(j, o->threads);
  cb_json_key(j, "ngpus"), cb_json_int(j, o->gpus);
  cb_json_key(j, "cudagraph"), cb_json_int(j, o->graph_launches);
  cb_json_key(j, "average"), cb_json_int(j, o->average);
  cb_json_key(j, "blocking"), cb_json_int(j, o->blocking);
  cb_json_key(j, "timeout"), cb_json_int(j, o->timeout_s);
  cb_json_key(j, "per_iter_timing"), cb_json_int(j, o->per_iter);
  cb_json_key(j, "stress"), cb_json_int(j, o->stress);
  cb_json_key(j, "kernel"), cb_json_string(j, o->kernels);
  cb_json_end_object(j);
}

static void json_versions(cb_json *j, const cb_report *r) {
  cb_json_key(j, "versions");
  cb_json_begin_object(j);
  cb_json_key(j, "collbench"), cb_json_string(j, CB_VERSION);
  cb_json_key(j, "nccl_headers"), cb_json_int(j, r->nccl_header);
  cb_json_key(j, "nccl_library"), cb_json_int(j, r->nccl_library);
  cb_json_key(j, "cuda_runtime"), cb_json_int(j, r->cuda_runtime);
  cb_json_key(j, "cuda_driver"), cb_json_int(j, r->cuda_driver);
  cb_json_key(j, "mpi"), cb_json_string(j, r->mpi);
  cb_json_end_object(j);
}

static void json_devices(cb_json *j, const cb_report *r) {
  cb_json_key(j, "devices");
  cb_json_begin_array(j);
  for (int i = 0; i < r->nranks; i++) {
    const cb_device_info *d = &r->devices[i];
    cb_json_begin_object(j);
    cb_json_key(j, "rank"), cb_json_int(j, d->rank);
    cb_json_key(j, "process"), cb_json_int(j, d->proc);
    cb_json_key(j, "pid"), cb_json_int(j, d->pid);
    cb_json_key(j, "host"), cb_json_string(j, d->host);
    cb_json_key(j, "device"), cb_json_int(j, d->device);
    cb_json_key(j, "pci"), cb_json_string(j, d->pci);
    cb_json_key(j, "name"), cb_json_string(j, d->name);
    cb_json_end_object(j);
  }
  cb_json_end_array(j);
}

static void json_kernels(cb_json *j, const cb_report *r) {
  cb_json_key(j, "kernels");
  cb_json_begin_array(j);
  for (int k = 0; k < r->coll->nkernels; k++) {
    const cb_kernel *kd = &r->coll->kernels[k];
    const char *skip = r->kernel_skips ? r->kernel_skips[k] : NULL;
    if (!r->kernels_run[k] && !skip) continue; /* not selected by -k */
    cb_json_begin_object(j);
    cb_json_key(j, "id"), cb_json_int(j, kd->id);
    cb_json_key(j, "name"), cb_json_string(j, kd->name);
    cb_json_key(j, "summary"), cb_json_string(j, kd->summary);
    cb_json_key(j, "ran"), cb_json_bool(j, r->kernels_run[k]);
    if (skip) cb_json_key(j, "skipped"), cb_json_string(j, skip);
    cb_json_end_object(j);
  }
  cb_json_end_array(j);
}

static void json_stats(cb_json *j, const cb_iter_stats *s) {
  cb_json_key(j, "iter_stats");
  cb_json_begin_object(j);
  cb_json_key(j, "samples"), cb_json_int(j, s->samples);
  cb_json_key(j, "min_us"), cb_json_double(j, s->min_us);
  cb_json_key(j, "p50_us"), cb_json_double(j, s->p50_us);
  cb_json_key(j, "p99_us"), cb_json_double(j, s->p99_us);
  cb_json_key(j, "max_us"), cb_json_double(j, s->max_us);
  cb_json_key(j, "cv_pct"), cb_json_double(j, s->cv_pct);
  cb_json_end_object(j);
}

static void json_measure(cb_json *j, const cb_report *r, const cb_row *row, int p) {
  const cb_kernel *k = &r->coll->kernels[row->kernel];
  const cb_measure *m = &row->m[p];
  cb_json_begin_object(j);
  cb_json_key(j, "kernel"), cb_json_int(j, k->id);
  cb_json_key(j, "kernel_name"), cb_json_string(j, k->name);
  cb_json_key(j, "type"), cb_json_string(j, cb_dtype_name(row->dtype));
  cb_json_key(j, "redop"), cb_json_string(j, cb_shape_op_name(r->coll->shape, row->op));
  cb_json_key(j, "root"), cb_json_int(j, row->root);
  cb_json_key(j, "size"), cb_json_int(j, (long long)row->bytes);
  cb_json_key(j, "count"), cb_json_int(j, (long long)row->count);
  cb_json_key(j, "placement"), cb_json_string(j, placement_names[p]);
  cb_json_key(j, "mode"), cb_json_string(j, r->opts.graph_launches ? "graph" : "stream");
  if (!m->ran) {
    cb_json_key(j, "skipped"), cb_json_string(j, m->skip);
  } else {
    cb_json_key(j, "time_us"), cb_json_double(j, m->time_us);
    cb_json_key(j, "algbw"), cb_json_double(j, m->algbw);
    cb_json_key(j, "busbw"), cb_json_double(j, m->busbw);
    cb_json_key(j, "wrong");
    if (m->wrong >= 0)
      cb_json_int(j, m->wrong);
    else
      cb_json_null(j);
    if (m->has_stats) json_stats(j, &m->stats);
  }
  cb_json_end_object(j);
}

int cb_json_write(FILE *out, const cb_report *r) {
  cb_json j;
  cb_json_init(&j, out);
  cb_json_begin_object(&j);
  cb_json_key(&j, "program"), cb_json_string(&j, r->program);
  cb_json_key(&j, "collective"), cb_json_string(&j, r->coll->shape->name);
  cb_json_key(&j, "date"), cb_json_string(&j, r->date);
  cb_json_key(&j, "nranks"), cb_json_int(&j, r->nranks);
  json_options(&j, &r->opts);
  json_versions(&j, r);
  json_devices(&j, r);
  json_kernels(&j, r);
  cb_json_key(&j, "results");
  cb_json_begin_array(&j);
  for (size_t i = 0; i < r->nrows; i++)
    for (int p = 0; p < 2; p++) json_measure(&j, r, &r->rows[i], p);
  cb_json_end_array(&j);
  cb_json_key(&j, "stress");
  cb_json_begin_array(&j);
  for (int i = 0; i < r->nstress; i++) {
    const cb_stress_result *s = &r->stress[i];
    cb_json_begin_object(&j);
    cb_json_key(&j, "kernel"), cb_json_int(&j, r->coll->kernels[s->kernel].id);
    cb_json_key(&j, "kernel_name"), cb_json_string(&j, r->coll->kernels[s->kernel].name);
    cb_json_key(&j, "calls"), cb_json_int(&j, s->calls);
    cb_json_key(&j, "skipped"), cb_json_int(&j, s->skipped);
    cb_json_key(&j, "wrong"), cb_json_int(&j, s->wrong);
    cb_json_key(&j, "seconds"), cb_json_double(&j, s->seconds);
    cb_json_end_object(&j);
  }
  cb_json_end_array(&j);
  cb_json_key(&j, "wrong_total"), cb_json_int(&j, cb_report_wrong(r));
  cb_json_key(&j, "avg_busbw"), cb_json_double(&j, cb_report_avg_busbw(r, -1));
  cb_json_end_object(&j);
  return ferror(out) ? -1 : 0;
}
