/* nccl-tests' warm-up for all sizes: its sizes (CPU only) and the calls. */
#include "warmup.h"

#include "gpu.h"

size_t cb_warmup_sizes(const cb_sweep *sweep, const cb_coll_shape *shape, size_t elem, int nranks,
                       int rank, uint64_t max_table_bytes, cb_warmup_size *out, size_t cap) {
  /* nccl-tests' loop: size = minbytes; size <= maxbytes; size *= 2. The
   * sweep's own walk, by a factor of 2, stops where doubling would wrap. */
  const cb_sweep doubling = {sweep->min_bytes, sweep->max_bytes, 2, 0};
  size_t n = 0, count = cb_sweep_count(&doubling);
  for (size_t i = 0; i < count; i++) {
    cb_warmup_size s = {.bytes = cb_sweep_size(&doubling, i)};
    shape->counts((size_t)s.bytes, elem, nranks, rank, &s.counts);
    s.table_bytes = cb_counts_table_bytes(&s.counts, elem);
    if (max_table_bytes && s.table_bytes > max_table_bytes) continue;
    if (n < cap) out[n] = s;
    n++;
  }
  return n;
}

/* Places l's call at size s as nccl-tests warms up, out of place, or in
 * place where the kernel serves only that there. Returns 0 where it serves
 * neither: the sweep skips that size (a datatype, op, alignment or size
 * limit, or what its setup cannot serve), and so does the warm-up, asking
 * the same question (cb_kernel_why_not), which every rank answers
 * alike. */
static int place_served(cb_rank_state *st, cb_launch *l, const cb_warmup_size *s, size_t elem) {
  const cb_coll_shape *shape = st->run->coll->shape;
  char why[128];
  for (int in_place = 0; in_place < 2; in_place++) {
    cb_place_call(st, &s->counts, elem, in_place, &l->call);
    const cb_serve_question q = {
        .shape = shape, .call = &l->call, .table_bytes = s->table_bytes, .ctx = l->ctx};
    if (!cb_kernel_why_not(l->kernel, &q, why, sizeof why)) return 1;
  }
  return 0;
}

/* -w single calls at one size, then the wait (-T) for them: nccl-tests'
 * startColl -w times and its completeColl. */
static void warm_up_size(cb_rank_state *st, const cb_launch *proto, const cb_warmup_size *s,
                         size_t elem) {
  cb_launch l = *proto;
  if (!place_served(st, &l, s, elem)) return;
  if (l.kernel->prepare) l.kernel->prepare(l.ctx, &l.call);
  char what[224];
  cb_call_what(st, &l, &s->counts, ", warm-up for all sizes", what, sizeof what);
  for (int i = 0; i < st->timing.warmup; i++) cb_enqueue_kernel(&l, st->stream);
  cb_gpu_wait(st->stream, st->timing.timeout_s, what);
}

void cb_warm_up_sizes(cb_rank_state *st, const cb_launch *proto) {
  if (st->timing.warmup == 0) return; /* nccl-tests' loop makes no call then */
  size_t elem = cb_dtype_size(proto->call.dtype);
  cb_warmup_size sizes[CB_WARMUP_MAX_SIZES];
  size_t n =
      cb_warmup_sizes(&st->run->opts.sweep, st->run->coll->shape, elem, st->me->nranks,
                      st->me->rank, proto->kernel->limits.max_bytes, sizes, CB_WARMUP_MAX_SIZES);
  /* As nccl-tests' TimeTest starts ("Sync to avoid first-call timeout"):
   * the ranks' first calls start together, none behind a peer still busy
   * with the previous case (rank 0 printing its last row, say). */
  cb_world_barrier_all(st->me);
  for (size_t i = 0; i < n && i < CB_WARMUP_MAX_SIZES; i++)
    warm_up_size(st, proto, &sizes[i], elem);
}
