/* --stress N: N random calls of one kernel, every one validated.
 *
 * Each call draws a size in -b..-e (log-uniform: every power of two is as
 * likely), a datatype and op from -d/-o, and a placement, from a generator
 * seeded by the call's number, so every rank draws the same call. Out of
 * place, the kernel is launched 1 to 4 times back to back before the check
 * (all through one graph in graph mode), so epochs, FIFOs and flags are
 * driven across launch boundaries with no barrier between launches. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>

#include "clock.h"
#include "error.h"
#include "run_state.h"
#include "sizes.h"

typedef struct {
  cb_launch *launch;
  int reps;
} repeated_launch;

static void enqueue_repeated(void *p, cudaStream_t s) {
  repeated_launch *r = p;
  for (int i = 0; i < r->reps; i++) cb_enqueue_kernel(r->launch, s);
}

/* splitmix64: a well-mixed 64-bit value per (call, draw). */
static uint64_t draw(uint64_t call, uint64_t which) {
  uint64_t x = call * 0x9e3779b97f4a7c15ull + which * 0xd1b54a32d192ed03ull + 1;
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

long long cb_stress_kernel(cb_rank_state *st, int kidx, cb_kernel_ctx *ctx) {
  const cb_options *o = &st->run->opts;
  const cb_coll_shape *shape = st->run->coll->shape;
  const cb_kernel *k = &st->run->coll->kernels[kidx];
  cb_stress_result res = {.kernel = kidx};
  double start = cb_monotonic_s();
  char why[128], what[192];
  for (uint64_t i = 0; i < (uint64_t)o->stress; i++) {
    cb_launch l = {k, ctx, {.root = o->root}, st->me->rank == st->run->fault_skip_rank};
    l.call.dtype = (cb_dtype)pick_bit(o->dtypes, draw(i, 0));
    l.call.op = cb_shape_loops_ops(shape) ? (cb_redop)pick_bit(o->ops, draw(i, 1)) : CB_SUM;
    size_t elem = cb_dtype_size(l.call.dtype);
    uint64_t bytes = pick_size(o->sweep.min_bytes, o->sweep.max_bytes, draw(i, 2), draw(i, 3));
    cb_counts c;
    shape->counts((size_t)bytes, elem, st->me->nranks, st->me->rank, &c);
    int in_place = (int)(draw(i, 4) & 1), fits = 0;
    for (int tries = 0; tries < 2 && !fits; tries++, in_place = !in_place) {
      cb_place_call(st, &c, elem, in_place, &l.call);
      fits = !cb_kernel_call_reason(k, shape, &l.call, cb_counts_table_bytes(&c, elem), why,
                                    sizeof why);
    }
    if (!fits) {
      res.skipped++;
      continue;
    }
    /* In place, a second launch would reduce the first one's output again. */
    repeated_launch rep = {&l, l.call.in_place ? 1 : 1 + (int)(draw(i, 5) % 4)};
    cb_data_spec spec = cb_spec_for(st, &l.call, &c, (int)(i % 1000000) + 1);
    snprintf(what, sizeof what, "stress call %llu of kernel %d (%s): %s %s %zu B %s x%d",
             (unsigned long long)i, k->id, k->name, cb_dtype_name(l.call.dtype),
             cb_shape_op_name(shape, l.call.op), cb_counts_table_bytes(&c, elem),
             l.call.in_place ? "in-place" : "out-of-place", rep.reps);
    long long wrong = cb_check_round(st, &spec, &l.call, &c, enqueue_repeated, &rep, what);
    if (wrong && st->me->rank == 0)
      fprintf(stderr, "%s: %s: %lld wrong\n", cb_error_program(), what, wrong);
    res.wrong += wrong;
    res.calls++;
  }
  res.seconds = cb_monotonic_s() - start;
  if (st->me->rank == 0) {
    cb_report_add_stress(&st->run->report, &res);
    cb_text_stress(stdout, &st->run->report, &res);
    fflush(stdout);
  }
  return res.wrong;
}
