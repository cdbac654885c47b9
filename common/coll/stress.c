/* --stress N: N random calls of one kernel, every one validated, back to
 * back with no host wait between them.
 *
 * Each call draws a size in -b..-e (log-uniform: every power of two is as
 * likely), a datatype and op from -d/-o, and a placement, from a generator
 * seeded by the draw's number, so every rank draws the same calls. Out of
 * place it is launched 1 to 4 times before its check. Calls go in batches
 * of up to STRESS_BATCH different ones (checked_calls.c: each on fresh
 * inputs written on the GPU, each checked on the GPU), and a batch is run
 * up to STRESS_REPLAYS times over, on new rounds every time (in graph mode
 * one graph replayed), before the host waits once: races between one call
 * and the next, and stale data, are what this finds, and the host costs
 * little per call. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "stress.h"

#include <stdio.h>

#include "checked_calls.h"
#include "clock.h"
#include "error.h"
#include "sizes.h"

#define STRESS_BATCH   16
#define STRESS_REPLAYS 16
/* Draws in a row the kernel cannot serve before the stress gives up. */
#define STRESS_MAX_MISSES 10000

/* splitmix64: a well-mixed 64-bit value per (draw, which). */
static uint64_t draw(uint64_t n, uint64_t which) {
  uint64_t x = n * 0x9e3779b97f4a7c15ull + which * 0xd1b54a32d192ed03ull + 1;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* The r-th (mod the count) set bit of mask. */
static int pick_bit(uint32_t mask, uint64_t r) {
  int n = __builtin_popcount(mask), k = (int)(r % (uint64_t)n);
  for (int b = 0; b < 32; b++)
    if ((mask >> b) & 1u && k-- == 0) return b;
  return 0;
}

static int log2_floor(uint64_t v) {
  return 63 - __builtin_clzll(v);
}

static uint64_t pick_size(uint64_t lo, uint64_t hi, uint64_t r1, uint64_t r2) {
  int a = log2_floor(lo), b = log2_floor(hi);
  int e = a + (int)(r1 % (uint64_t)(b - a + 1));
  uint64_t size = (1ull << e) + r2 % (1ull << e);
  return size < lo ? lo : size > hi ? hi : size;
}

/* Draw n as a call of kernel k; 0 when the kernel cannot serve it. */
static int draw_call(cb_rank_state *st, int kidx, cb_kernel_ctx *ctx, uint64_t n,
                     cb_checked_call *out) {
  const cb_options *o = &st->run->opts;
  const cb_coll_shape *shape = st->run->coll->shape;
  const cb_kernel *k = st->run->coll->kernels[kidx];
  /* -r all: a root per call, so back-to-back calls change roots. */
  int root = o->root != CB_ROOT_ALL ? o->root : (int)(draw(n, 6) % (uint64_t)st->me->nranks);
  cb_launch l = {k, ctx, {.root = root}, st->me->rank == st->run->fault_skip_rank};
  l.call.dtype = (cb_dtype)pick_bit(o->dtypes, draw(n, 0));
  l.call.op = cb_shape_loops_ops(shape) ? (cb_redop)pick_bit(o->ops, draw(n, 1)) : CB_SUM;
  size_t elem = cb_dtype_size(l.call.dtype);
  uint64_t bytes = pick_size(o->sweep.min_bytes, o->sweep.max_bytes, draw(n, 2), draw(n, 3));
  shape->counts((size_t)bytes, elem, st->me->nranks, st->me->rank, &out->counts);
  int in_place = (int)(draw(n, 4) & 1), fits = 0;
  char why[128];
  for (int tries = 0; tries < 2 && !fits; tries++, in_place = !in_place) {
    cb_place_call(st, &out->counts, elem, in_place, &l.call);
    const cb_serve_question q = {.shape = shape,
                                 .call = &l.call,
                                 .table_bytes = cb_counts_table_bytes(&out->counts, elem),
                                 .ctx = ctx};
    fits = !cb_kernel_why_not(k, &q, why, sizeof why);
  }
  out->launch = l;
  /* In place, a second launch would reduce the first one's output again. */
  out->reps = l.call.in_place ? 1 : 1 + (int)(draw(n, 5) % 4);
  return fits;
}

static void describe(const cb_rank_state *st, const cb_checked_call *c, char *buf, size_t len) {
  const cb_coll_shape *shape = st->run->coll->shape;
  const cb_call *call = &c->launch.call;
  char root[24] = "";
  if (shape->rooted) snprintf(root, sizeof root, " root %d", call->root);
  snprintf(buf, len, "%s %s %zu B %s%s x%d", cb_dtype_name(call->dtype),
           cb_shape_op_name(shape, call->op),
           cb_counts_table_bytes(&c->counts, cb_dtype_size(call->dtype)),
           call->in_place ? "in-place" : "out-of-place", root, c->reps);
}

/* Rank 0: one line per call of the batch that went wrong. */
static void report_batch(const cb_rank_state *st, const cb_kernel *k, uint64_t first,
                         const cb_checked_call *calls, int n, int replays,
                         const cb_chain_result *res) {
  if (st->me->world_rank != 0) return;
  char call[96], what[256];
  for (int i = 0; i < n; i++) {
    if (!cb_chain_wrong(res, i)) continue;
    describe(st, &calls[i], call, sizeof call);
    snprintf(what, sizeof what,
             "stress kernel %d (%s), batch from call %llu, call %d (%s), %d replays", k->id,
             k->name, (unsigned long long)first, i, call, replays);
    if (res->wrong[i])
      fprintf(stderr, "%s: %s: %lld wrong elements\n", cb_error_program(), what, res->wrong[i]);
    cb_print_disagreement(st, what, &res->disagree[i]);
  }
}

long long cb_stress_kernel(cb_rank_state *st, int kidx, cb_kernel_ctx *ctx) {
  const cb_kernel *k = st->run->coll->kernels[kidx];
  cb_stress_result res = {.kernel = kidx, .batch = STRESS_BATCH, .replays = STRESS_REPLAYS};
  double start = cb_monotonic_s();
  cb_checked_call calls[STRESS_BATCH];
  uint64_t next_draw = 0;
  long long left = st->run->opts.stress;
  char what[160];
  while (left > 0) {
    int n = left < STRESS_BATCH ? (int)left : STRESS_BATCH, got = 0, misses = 0;
    int replays = left / n < STRESS_REPLAYS ? (int)(left / n) : STRESS_REPLAYS;
    while (got < n && misses < STRESS_MAX_MISSES) {
      if (draw_call(st, kidx, ctx, next_draw++, &calls[got]))
        got++, misses = 0;
      else
        res.skipped++, misses++;
    }
    if (got == 0) break; /* the kernel serves none of the calls drawn */
    snprintf(what, sizeof what, "stress of kernel %d (%s): %d calls x %d replays from draw %llu",
             k->id, k->name, got, replays, (unsigned long long)(next_draw - (uint64_t)got));
    cb_chain_result out;
    cb_run_checked_calls(st, calls, got, replays, what, &out);
    for (int i = 0; i < got; i++) res.wrong += cb_chain_wrong(&out, i);
    report_batch(st, k, res.calls, calls, got, replays, &out);
    res.calls += (long long)got * replays;
    left -= (long long)got * replays;
  }
  res.seconds = cb_monotonic_s() - start;
  if (st->me->world_rank == 0) {
    cb_report_add_stress(&st->run->report, &res);
    cb_text_stress(stdout, &st->run->report, &res);
    fflush(stdout);
  }
  return res.wrong;
}
