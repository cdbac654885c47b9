/* copy_perf's JSON document (-J): collbench's document, with the keys of
 * the collective programs' documents where copy_perf has them, so one
 * reader (scripts/collbench_results.py) serves both; and its own: the
 * floor, each row's protocol and how far its latency is above the floor. */
#include "copy_report.h"
#include "copy_report_overlap.h"
#include "json_pieces.h"

static void json_options(cb_json *j, const cb_copy_options *o) {
  cb_json_key(j, "options");
  cb_json_begin_object(j);
  cb_json_sweep_options(j, &o->sweep, o->iters, o->warmup, o->check);
  cb_json_key(j, "ngpus"), cb_json_int(j, o->gpus);
  cb_json_key(j, "timeout"), cb_json_int(j, o->timeout_s);
  cb_json_key(j, "direction");
  cb_json_begin_array(j);
  for (int d = 0; d < CB_NUM_DIRS; d++)
    if (o->dirs & CB_DIR_BIT(d)) cb_json_string(j, cb_copy_dir_name((cb_copy_dir)d));
  cb_json_end_array(j);
  cb_json_key(j, "window"), cb_json_int(j, o->window);
  cb_json_key(j, "post_gap_ns"), cb_json_int(j, o->post_gap_ns);
  cb_json_key(j, "host_memory"), cb_json_string(j, cb_copy_host_memory(o));
  cb_json_key(j, "osu"), cb_json_bool(j, o->osu);
  cb_json_key(j, "kernel"), cb_json_string(j, o->kernels);
  cb_json_overlap_options(j, o->overlap, o->overlap_size); /* --overlap */
  cb_json_end_object(j);
}

/* "skipped_directions": the directions that have a reason (why[d], NULL
 * for none), as direction: reason; the run's and each kernel's. */
static void json_skipped_directions(cb_json *j, char *const *why) {
  cb_json_key(j, "skipped_directions");
  cb_json_begin_object(j);
  for (int d = 0; d < CB_NUM_DIRS; d++)
    if (why[d]) cb_json_key(j, cb_copy_dir_name((cb_copy_dir)d)), cb_json_string(j, why[d]);
  cb_json_end_object(j);
}

/* A kernel's own keys in "kernels": the directions it skipped, and why. */
static void json_kernel_keys(cb_json *j, const void *report, int k) {
  const cb_copy_report *r = report;
  json_skipped_directions(j, &r->kd_skips[k * CB_NUM_DIRS]);
}

/* "floor": the flag round trip the host paths are measured against
 * (copy_floor.h), or null where it was not measured. */
static void json_floor(cb_json *j, const cb_copy_floor *f) {
  cb_json_key(j, "floor");
  if (!f->ran) {
    cb_json_null(j);
    return;
  }
  cb_json_begin_object(j);
  cb_json_key(j, "what"), cb_json_string(j, "CPU -> resident GPU kernel -> CPU flag round trip");
  cb_json_key(j, "trips"), cb_json_int(j, f->trips);
  cb_json_key(j, "p50_us"), cb_json_double(j, f->p50_us);
  cb_json_key(j, "p99_us"), cb_json_double(j, f->p99_us);
  cb_json_end_object(j);
}

/* One measurement; the keys of the collective programs' rows are there
 * too (type uint8: bytes; no op or root; out of place; stream mode), so
 * readers of those find what they expect. */
static void json_measure(cb_json *j, const cb_copy_report *r, const cb_copy_row *row, int m) {
  const cb_copy_kernel *k = &r->prog->kernels[row->kernel];
  const cb_copy_measure *x = &row->m[m];
  cb_json_row_begin(j, k->id, k->name);
  cb_json_key(j, "direction"), cb_json_string(j, cb_copy_dir_name(row->dir));
  cb_json_key(j, "measurement"), cb_json_string(j, cb_copy_measure_name(m));
  cb_json_key(j, "host_memory"), cb_json_string(j, cb_copy_host_memory(&r->opts));
  cb_json_call_keys(j, "uint8", "none", -1, row->bytes, row->bytes, "out-of-place", "stream");
  if (x->protocol[0]) cb_json_key(j, "protocol"), cb_json_string(j, x->protocol);
  double over;
  if (m == CB_COPY_LAT && cb_copy_over_floor(r, row, &over))
    cb_json_key(j, "over_floor_us"), cb_json_double(j, over);
  if (row->skip[0]) {
    cb_json_key(j, "skipped"), cb_json_string(j, row->skip);
  } else {
    cb_json_key(j, "copies"), cb_json_int(j, x->copies);
    cb_json_key(j, "iterations"), cb_json_int(j, x->samples);
    cb_json_key(j, "time_us"), cb_json_double(j, x->time_us);
    if (m == CB_COPY_LAT) cb_json_key(j, "p99_us"), cb_json_double(j, x->p99_us);
    /* One link: bus bandwidth = algorithm bandwidth. */
    cb_json_measure_tail(j, x->algbw, x->algbw, row->wrong, x->has_stats ? &x->stats : NULL);
    cb_copy_json_overlap(j, r, row, m);
  }
  cb_json_end_object(j);
}

static void json_keys(cb_json *j, const void *report) {
  const cb_copy_report *r = report;
  cb_json_run_head(j, r->program, "copy", r->date, r->nranks);
  json_options(j, &r->opts);
  cb_json_versions(j, NULL, r->cuda_runtime, r->cuda_driver, r->mpi);
  cb_json_devices(j, &cb_json_device_keys_collbench, r->devices, r->nranks, 1);
  const cb_kernel_menu kernels = cb_copy_kernels_menu(r->prog);
  cb_json_kernels(j, &kernels, r->kernels_run, r->kernel_skips, json_kernel_keys, r);
  json_skipped_directions(j, r->dir_notes);
  json_floor(j, &r->floor);
  cb_json_key(j, "results");
  cb_json_begin_array(j);
  for (size_t i = 0; i < r->nrows; i++)
    for (int m = 0; m < CB_COPY_NUM_MEASURES; m++) json_measure(j, r, &r->rows[i], m);
  cb_json_end_array(j);
  cb_json_key(j, "wrong_total"), cb_json_int(j, cb_copy_report_wrong(r));
}

const cb_json_sink cb_copy_report_json = {json_keys};
