/* The JSON sink (-J): one document that is nccl-tests 2.19.6's -J document
 * (report_json_nccl_tests.c: its keys at the top level, so its
 * tools/analyze_perf_json.py and scripts written for nccl-tests read it)
 * with collbench's own, richer document beside them under "collbench"
 * (what scripts/collbench_results.py reads). */
#include "json_pieces.h"
#include "load_options.h"
#include "load_report.h"
#include "peer_mapping.h"
#include "report.h"

static const char *const placement_names[2] = {"out-of-place", "in-place"};

/* ---- collbench's document ------------------------------------------------ */

/* How our kernels mapped their peers' memory: peer_mapping the mapping
 * used (null: auto, not resolved, as no kernel of ours mapped peer memory),
 * peer_mapping_requested CB_PEER_MAPPING's value (auto when unset), and
 * peer_mapping_why why auto did not take cumem (null otherwise). */
static void json_peer_mapping(cb_json *j, const cb_report *r) {
  cb_peer_mapping used = cb_report_peer_mapping(r);
  cb_json_key(j, "peer_mapping");
  if (used == CB_PEER_AUTO)
    cb_json_null(j);
  else
    cb_json_string(j, cb_peer_mapping_name(used));
  cb_json_key(j, "peer_mapping_requested");
  cb_json_string(j, cb_peer_mapping_name((cb_peer_mapping)r->opts.peer_mapping));
  cb_json_key(j, "peer_mapping_why");
  if (r->opts.peer_mapping == CB_PEER_AUTO && used == CB_PEER_IPC && r->peer_auto.why[0])
    cb_json_string(j, r->peer_auto.why);
  else
    cb_json_null(j);
}

/* --plugin and CB_PLUGINS, when the run loaded any: each plugin's name and path. */
static void json_plugins(cb_json *j, const cb_plugin_set *p) {
  if (!p || p->n == 0) return;
  cb_json_key(j, "plugins");
  cb_json_begin_array(j);
  for (int i = 0; i < p->n; i++) {
    cb_json_begin_object(j);
    cb_json_key(j, "name"), cb_json_string(j, p->names[i]);
    cb_json_key(j, "path"), cb_json_string(j, p->paths[i]);
    cb_json_end_object(j);
  }
  cb_json_end_array(j);
}

static void json_options(cb_json *j, const cb_report *r) {
  const cb_options *o = &r->opts;
  cb_json_key(j, "options");
  cb_json_begin_object(j);
  cb_json_sweep_options(j, &o->sweep, o->iters, o->warmup, o->check);
  /* 1: nccl-tests' warm-up of every size before the first is timed. */
  cb_json_key(j, "all_sizes_warmup"), cb_json_int(j, o->all_sizes_warmup);
  cb_json_key(j, "root"), cb_json_int(j, o->root);
  cb_json_key(j, "nthreads"), cb_json_int(j, o->threads);
  cb_json_key(j, "ngpus"), cb_json_int(j, o->gpus);
  cb_json_key(j, "cudagraph"), cb_json_int(j, o->graph_launches);
  cb_json_key(j, "average"), cb_json_int(j, o->average);
  cb_json_key(j, "blocking"), cb_json_int(j, o->blocking);
  cb_json_key(j, "timeout"), cb_json_int(j, o->timeout_s);
  cb_json_key(j, "per_iter_timing"), cb_json_int(j, o->per_iter);
  cb_json_key(j, "stress"), cb_json_int(j, o->stress);
  cb_json_key(j, "unalign"), cb_json_int(j, o->unalign);
  cb_json_key(j, "data"), cb_json_string(j, cb_data_kind_name(o->data));
  cb_json_key(j, "kernel"), cb_json_string(j, o->kernels);
  /* How the times were taken, and kernel 0's nccl-tests flags (null: -x not given). */
  cb_json_key(j, "timer"), cb_json_string(j, cb_timer_name(o->timer));
  cb_json_key(j, "local_register"), cb_json_int(j, o->local_register);
  cb_json_key(j, "cta_policy");
  if (o->cta_policy == CB_CTA_POLICY_UNSET)
    cb_json_null(j);
  else
    cb_json_int(j, o->cta_policy);
  json_peer_mapping(j, r);
  cb_json_key(j, "agg_iters"), cb_json_int(j, o->agg_iters);
  cb_json_key(j, "run_cycles"), cb_json_int(j, o->run_cycles);
  cb_json_key(j, "stream_null"), cb_json_int(j, o->stream_null);
  cb_json_key(j, "report_cputime"), cb_json_int(j, o->report_cputime);
  cb_json_key(j, "per_iter_skip"), cb_json_int(j, o->per_iter_skip);
  cb_json_overlap_options(j, o->overlap, o->overlap_size); /* --overlap */
  json_plugins(j, r->plugins);
  cb_json_end_object(j);
}

static void json_measure(cb_json *j, const cb_report *r, const cb_row *row, int p) {
  const cb_kernel *k = r->coll->kernels[row->kernel];
  const cb_measure *m = &row->m[p];
  cb_json_row_begin(j, k->id, k->name);
  cb_json_call_keys(j, cb_dtype_name(row->dtype), cb_shape_op_name(r->coll->shape, row->op),
                    row->root, row->bytes, row->count, placement_names[p],
                    r->opts.graph_launches ? "graph" : "stream");
  if (!m->ran) {
    cb_json_key(j, "skipped"), cb_json_string(j, m->skip);
  } else {
    cb_json_key(j, "time_us"), cb_json_double(j, m->time_us);
    cb_json_measure_tail(j, m->algbw, m->busbw, m->wrong, m->has_stats ? &m->stats : NULL);
    if (m->has_res) cb_json_resources(j, &m->res);
    cb_json_overlap(j, r->opts.overlap, &m->overlap, m->time_us);
  }
  cb_json_end_object(j);
}

static void json_stress(cb_json *j, const cb_report *r) {
  cb_json_key(j, "stress");
  cb_json_begin_array(j);
  for (int i = 0; i < r->nstress; i++) {
    const cb_stress_result *s = &r->stress[i];
    const cb_kernel *k = r->coll->kernels[s->kernel];
    cb_json_row_begin(j, k->id, k->name);
    cb_json_key(j, "calls"), cb_json_int(j, s->calls);
    cb_json_key(j, "skipped"), cb_json_int(j, s->skipped);
    cb_json_key(j, "wrong"), cb_json_int(j, s->wrong);
    cb_json_key(j, "seconds"), cb_json_double(j, s->seconds);
    cb_json_end_object(j);
  }
  cb_json_end_array(j);
}

static void json_collbench(cb_json *j, const cb_report *r) {
  cb_json_begin_object(j);
  cb_json_run_head(j, r->program, r->coll->shape->name, r->date, r->nranks);
  json_options(j, r);
  cb_json_key(j, "times_comparable"), cb_json_bool(j, !r->times_void[0]);
  cb_json_key(j, "times_not_comparable");
  if (r->times_void[0])
    cb_json_string(j, r->times_void);
  else
    cb_json_null(j);
  const int nccl[2] = {r->nccl_header, r->nccl_library};
  cb_json_versions(j, nccl, r->cuda_runtime, r->cuda_driver, r->mpi);
  cb_json_devices(j, &cb_json_device_keys_collbench, r->devices, cb_report_all_ranks(r), 1);
  const cb_kernel_menu kernels = cb_kernels_menu(r->coll, r->program);
  cb_json_kernels(j, &kernels, r->kernels_run, r->kernel_skips, NULL, NULL);
  cb_json_key(j, "results");
  cb_json_begin_array(j);
  for (size_t i = 0; i < r->nrows; i++)
    for (int p = 0; p < 2; p++) json_measure(j, r, &r->rows[i], p);
  cb_json_end_array(j);
  json_stress(j, r);
  cb_json_key(j, "wrong_total"), cb_json_int(j, cb_report_wrong(r));
  cb_json_key(j, "avg_busbw"), cb_json_double(j, cb_report_avg_busbw(r, -1));
  cb_json_end_object(j);
}

static void json_keys(cb_json *j, const void *report) {
  const cb_report *r = report;
  cb_json_nccl_tests_keys(j, r);
  cb_json_key(j, "collbench");
  json_collbench(j, r);
}

const cb_json_sink cb_report_json = {json_keys};
