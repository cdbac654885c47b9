/* Element counts, in-place offsets, algbw bytes and bus factors of every
 * collective shape, against nccl-tests' definitions and against real
 * nccl-tests outputs (the fixture files given as arguments). nccl-tests
 * 2.19.6's reduce, gather, scatter, alltoallv and hypercube have no
 * reference output here (none was run on the machine): their formulas are
 * written out again from its src/<collective>.cu, with worked examples. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alltoallv_env.h"
#include "check.h"
#include "coll_shape.h"
#include "collectives.h"
#include "fixture.h"
#include "sizes.h"

typedef enum { K_SAME, K_GATHER, K_SCATTER, K_ALLTOALL, K_ALLTOALLV } kind;

static const struct {
  const cb_coll_shape *shape;
  const char *name;
  kind k;
} shapes[] = {
    {&cb_shape_all_reduce, "all_reduce", K_SAME},
    {&cb_shape_all_gather, "all_gather", K_GATHER},
    {&cb_shape_reduce_scatter, "reduce_scatter", K_SCATTER},
    {&cb_shape_alltoall, "alltoall", K_ALLTOALL},
    {&cb_shape_sendrecv, "sendrecv", K_SAME},
    {&cb_shape_broadcast, "broadcast", K_SAME},
    {&cb_shape_reduce, "reduce", K_SAME},
    {&cb_shape_gather, "gather", K_GATHER},
    {&cb_shape_scatter, "scatter", K_SCATTER},
    {&cb_shape_alltoallv, "alltoallv", K_ALLTOALLV},
    {&cb_shape_hypercube, "hypercube", K_GATHER},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

/* nccl-tests' alltoallv pattern (AlltoAllvGetPeerBytesDistanceWeighted),
 * written out again: bytes rank i sends rank j of a total per rank. */
static size_t reference_peer_bytes(int i, int j, int n, size_t total, double spread) {
  if (n == 1) return total & ~(size_t)15;
  int distance = (j - i + n) % n;
  size_t sum_distances = (size_t)n * (n - 1) / 2;
  double uniform = (double)total / (double)n;
  double dist = (double)distance * (double)total / (double)sum_distances;
  double bytes = (1.0 - spread) * uniform + spread * dist;
  return (size_t)bytes & ~(size_t)15;
}

static double test_spread = 1.0; /* the spread the shape was set to (NCCL_TESTS_ALLTOALLV_SPREAD) */

/* nccl-tests' formulas, written out again: base = (count/nranks) & -(16/eltSize). */
static void reference_counts(kind k, size_t bytes, size_t elem, int n, int rank, cb_counts *c) {
  size_t count = bytes / elem;
  size_t align = 16 / elem;
  size_t base = (count / (size_t)n) / align * align;
  memset(c, 0, sizeof *c);
  switch (k) {
  case K_SAME:
    c->send_count = c->recv_count = c->param_count = count;
    break;
  case K_GATHER:
    c->send_count = c->param_count = base;
    c->recv_count = base * (size_t)n;
    c->send_inplace_offset = base * (size_t)rank;
    break;
  case K_SCATTER:
    c->recv_count = c->param_count = base;
    c->send_count = base * (size_t)n;
    c->recv_inplace_offset = base * (size_t)rank;
    break;
  case K_ALLTOALL:
    c->param_count = base;
    c->send_count = c->recv_count = base * (size_t)n;
    break;
  case K_ALLTOALLV: /* AlltoAllvGetCollByteCount: rank 0's pieces (every rank's alike) */
    c->param_count = base;
    for (int j = 0; j < n; j++)
      c->send_count += reference_peer_bytes(0, j, n, base * (size_t)n * elem, test_spread) / elem;
    c->recv_count = c->send_count;
    break;
  }
}

static double reference_factor(kind k, int n, const char *name) {
  if (strcmp(name, "all_reduce") == 0) return 2.0 * (n - 1) / n;
  if (strcmp(name, "hypercube") == 0) return 1.0;
  if (k == K_SAME) return 1.0; /* sendrecv, broadcast, reduce */
  return (double)(n - 1) / n;
}

/* Each collective's GetBw: the bytes it divides by the time. */
static size_t reference_algbw_bytes(kind k, const cb_counts *c, size_t elem, int n,
                                    const char *name) {
  if (strcmp(name, "hypercube") == 0) return c->param_count * elem * (size_t)(n - 1);
  if (k == K_ALLTOALLV) /* the larger of the busiest rank's sides */
    return (c->send_count > c->recv_count ? c->send_count : c->recv_count) * elem;
  return k == K_SAME ? c->param_count * elem : c->param_count * elem * (size_t)n;
}

/* Whether the expected output of a shape depends on the rank holding it:
 * from the formulas of coll_shape.h (the "me" in them). */
static int output_depends_on_rank(cb_expect e) {
  return e == CB_EXPECT_REDUCE_BLOCK || e == CB_EXPECT_ALLTOALL || e == CB_EXPECT_FROM_PREV ||
         e == CB_EXPECT_REDUCE_ROOT || e == CB_EXPECT_GATHER_ROOT || e == CB_EXPECT_SCATTER ||
         e == CB_EXPECT_ALLTOALLV;
}

/* The validation compares every rank's output bits exactly where they must
 * agree, and never where they must differ; a reducing shape names an op. */
static void test_flags_follow_the_expectation(void) {
  for (int s = 0; s < NSHAPES; s++) {
    const cb_coll_shape *sh = shapes[s].shape;
    CHECKF(sh->outputs_agree == !output_depends_on_rank(sh->expect),
           "%s: outputs_agree %d for expectation %d", sh->name, sh->outputs_agree, (int)sh->expect);
    int reduces = sh->expect == CB_EXPECT_REDUCE || sh->expect == CB_EXPECT_REDUCE_BLOCK ||
                  sh->expect == CB_EXPECT_REDUCE_ROOT;
    CHECKF(sh->reduces == reduces, "%s: reduces %d for expectation %d", sh->name, sh->reduces,
           (int)sh->expect);
  }
}

static void test_bus_factors(void) {
  for (int s = 0; s < NSHAPES; s++)
    for (int n = 2; n <= 8; n++) {
      double got = shapes[s].shape->bus_factor(n);
      double want = reference_factor(shapes[s].k, n, shapes[s].name);
      CHECKF(fabs(got - want) < 1e-12, "%s bus factor for %d ranks: %.15g, expected %.15g",
             shapes[s].name, n, got, want);
    }
  /* A few by hand. */
  CHECK_NEAR(cb_shape_all_reduce.bus_factor(2), 1.0, 1e-12);
  CHECK_NEAR(cb_shape_all_reduce.bus_factor(4), 1.5, 1e-12);
  CHECK_NEAR(cb_shape_all_reduce.bus_factor(8), 1.75, 1e-12);
  CHECK_NEAR(cb_shape_all_gather.bus_factor(2), 0.5, 1e-12);
  CHECK_NEAR(cb_shape_reduce_scatter.bus_factor(4), 0.75, 1e-12);
  CHECK_NEAR(cb_shape_alltoall.bus_factor(8), 0.875, 1e-12);
  CHECK_NEAR(cb_shape_all_gather.bus_factor(3), 2.0 / 3.0, 1e-12);
  CHECK_NEAR(cb_shape_sendrecv.bus_factor(7), 1.0, 1e-12);
  CHECK_NEAR(cb_shape_broadcast.bus_factor(5), 1.0, 1e-12);
}

static void test_counts_all(void) {
  static const size_t sizes[] = {
      0,   1,   4,    7,    8,    15,    16,       31,      32,       48,
      100, 128, 1000, 1024, 4096, 65537, 1u << 20, 3000005, 1u << 30, (size_t)1 << 33};
  static const size_t elems[] = {1, 2, 4, 8};
  int bad = 0;
  for (int s = 0; s < NSHAPES; s++)
    for (size_t e = 0; e < sizeof elems / sizeof elems[0]; e++)
      for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int n = 2; n <= 8; n++)
          for (int rank = 0; rank < n; rank++) {
            cb_counts got, want;
            memset(&got, 0xa5, sizeof got);
            shapes[s].shape->counts(sizes[z], elems[e], n, rank, &got);
            reference_counts(shapes[s].k, sizes[z], elems[e], n, rank, &want);
            int ok = memcmp(&got, &want, sizeof got) == 0;
            if (!ok && bad++ < 20)
              CHECKF(0,
                     "%s bytes=%zu elem=%zu n=%d rank=%d: send %zu recv %zu param %zu soff %zu "
                     "roff %zu; expected %zu %zu %zu %zu %zu",
                     shapes[s].name, sizes[z], elems[e], n, rank, got.send_count, got.recv_count,
                     got.param_count, got.send_inplace_offset, got.recv_inplace_offset,
                     want.send_count, want.recv_count, want.param_count, want.send_inplace_offset,
                     want.recv_inplace_offset);
            /* Both placements fit in the one in-place region of max(send, recv). */
            size_t region = got.send_count > got.recv_count ? got.send_count : got.recv_count;
            if (got.send_inplace_offset + got.send_count > region ||
                got.recv_inplace_offset + got.recv_count > region)
              if (bad++ < 20)
                CHECKF(0, "%s bytes=%zu elem=%zu n=%d rank=%d: in-place buffers leave the region",
                       shapes[s].name, sizes[z], elems[e], n, rank);
            /* algbw bytes as nccl-tests' getBw. */
            size_t ab = shapes[s].shape->algbw_bytes(&got, elems[e], n);
            size_t wab = reference_algbw_bytes(shapes[s].k, &want, elems[e], n, shapes[s].name);
            if (ab != wab && bad++ < 20)
              CHECKF(0, "%s bytes=%zu elem=%zu n=%d: algbw bytes %zu, expected %zu", shapes[s].name,
                     sizes[z], elems[e], n, ab, wab);
            /* The table's size column. */
            size_t tb = cb_counts_table_bytes(&got, elems[e]);
            size_t wtb =
                (want.send_count > want.recv_count ? want.send_count : want.recv_count) * elems[e];
            if (tb != wtb && bad++ < 20)
              CHECKF(0, "%s bytes=%zu elem=%zu n=%d: table bytes %zu, expected %zu", shapes[s].name,
                     sizes[z], elems[e], n, tb, wtb);
          }
  CHECKF(bad == 0, "%d count mismatches in all (first 20 shown)", bad);
}

/* Worked examples, by hand. */
static void test_counts_examples(void) {
  cb_counts c;
  /* all_gather of 8 B float on 2 ranks: 2 elements, 1 per rank, rounded to 4: nothing. */
  cb_shape_all_gather.counts(8, 4, 2, 1, &c);
  CHECK_EQ_U64(c.param_count, 0);
  CHECK_EQ_U64(c.recv_count, 0);
  CHECK_EQ_U64(cb_counts_table_bytes(&c, 4), 0);
  /* all_gather of 32 B float on 2 ranks: 4 per rank. */
  cb_shape_all_gather.counts(32, 4, 2, 1, &c);
  CHECK_EQ_U64(c.send_count, 4);
  CHECK_EQ_U64(c.recv_count, 8);
  CHECK_EQ_U64(c.param_count, 4);
  CHECK_EQ_U64(c.send_inplace_offset, 4);
  CHECK_EQ_U64(c.recv_inplace_offset, 0);
  CHECK_EQ_U64(cb_counts_table_bytes(&c, 4), 32);
  CHECK_EQ_U64(cb_shape_all_gather.algbw_bytes(&c, 4, 2), 32);
  /* all_gather of 100 B float on 3 ranks, rank 2: 25 elements, 8 each (multiple of 4). */
  cb_shape_all_gather.counts(100, 4, 3, 2, &c);
  CHECK_EQ_U64(c.send_count, 8);
  CHECK_EQ_U64(c.recv_count, 24);
  CHECK_EQ_U64(c.send_inplace_offset, 16);
  CHECK_EQ_U64(cb_counts_table_bytes(&c, 4), 96);
  CHECK_EQ_U64(cb_shape_all_gather.algbw_bytes(&c, 4, 3), 96);
  /* int8: blocks are multiples of 16 elements. */
  cb_shape_all_gather.counts(100, 1, 3, 0, &c);
  CHECK_EQ_U64(c.send_count, 32);
  CHECK_EQ_U64(c.recv_count, 96);
  /* double: multiples of 2. */
  cb_shape_all_gather.counts(56, 8, 2, 1, &c); /* 7 elements, 3 each, rounded to 2 */
  CHECK_EQ_U64(c.send_count, 2);
  CHECK_EQ_U64(c.recv_count, 4);
  CHECK_EQ_U64(c.send_inplace_offset, 2);
  /* reduce_scatter mirrors all_gather. */
  cb_shape_reduce_scatter.counts(1024, 4, 4, 3, &c); /* 256 elements, 64 each */
  CHECK_EQ_U64(c.send_count, 256);
  CHECK_EQ_U64(c.recv_count, 64);
  CHECK_EQ_U64(c.param_count, 64);
  CHECK_EQ_U64(c.send_inplace_offset, 0);
  CHECK_EQ_U64(c.recv_inplace_offset, 192);
  CHECK_EQ_U64(cb_counts_table_bytes(&c, 4), 1024);
  CHECK_EQ_U64(cb_shape_reduce_scatter.algbw_bytes(&c, 4, 4), 1024);
  /* alltoall: one block per peer. */
  cb_shape_alltoall.counts(1u << 20, 4, 8, 5, &c);
  CHECK_EQ_U64(c.param_count, 32768);
  CHECK_EQ_U64(c.send_count, 262144);
  CHECK_EQ_U64(c.recv_count, 262144);
  CHECK_EQ_U64(c.send_inplace_offset, 0);
  CHECK_EQ_U64(c.recv_inplace_offset, 0);
  CHECK_EQ_U64(cb_shape_alltoall.algbw_bytes(&c, 4, 8), 1u << 20);
  /* all_reduce, sendrecv, broadcast: the whole message; odd bytes drop the tail. */
  const cb_coll_shape *same[] = {&cb_shape_all_reduce, &cb_shape_sendrecv, &cb_shape_broadcast};
  for (int i = 0; i < 3; i++) {
    same[i]->counts(1002, 4, 5, 4, &c);
    CHECKF(c.send_count == 250 && c.recv_count == 250 && c.param_count == 250 &&
               c.send_inplace_offset == 0 && c.recv_inplace_offset == 0,
           "%s 1002 B float: %zu %zu %zu %zu %zu", same[i]->name, c.send_count, c.recv_count,
           c.param_count, c.send_inplace_offset, c.recv_inplace_offset);
    CHECK_EQ_U64(same[i]->algbw_bytes(&c, 4, 5), 1000);
    CHECK_EQ_U64(cb_counts_table_bytes(&c, 4), 1000);
  }
  /* cb_counts_table_bytes takes the larger side. */
  cb_counts big_send = {10, 3, 0, 0, 0}, big_recv = {3, 10, 0, 0, 0};
  CHECK_EQ_U64(cb_counts_table_bytes(&big_send, 8), 80);
  CHECK_EQ_U64(cb_counts_table_bytes(&big_recv, 2), 20);
}

/* The new programs' shapes, worked by hand from nccl-tests' sources. */
static void test_new_shapes_examples(void) {
  cb_counts c;
  /* reduce: the whole message, busbw = algbw, rooted, reduces. */
  cb_shape_reduce.counts(1002, 4, 3, 2, &c);
  CHECK_EQ_U64(c.send_count, 250);
  CHECK_EQ_U64(c.recv_count, 250);
  CHECK_EQ_U64(c.param_count, 250);
  CHECK_EQ_U64(cb_shape_reduce.algbw_bytes(&c, 4, 3), 1000);
  CHECK_NEAR(cb_shape_reduce.bus_factor(8), 1.0, 1e-12);
  CHECK(cb_shape_reduce.rooted && cb_shape_reduce.reduces && !cb_shape_reduce.outputs_agree);
  /* gather: 100 B float on 3 ranks, rank 1: 8 elements each (a multiple of
   * 4), in place at block 1 of the output; algbw of all 3 blocks. */
  cb_shape_gather.counts(100, 4, 3, 1, &c);
  CHECK_EQ_U64(c.send_count, 8);
  CHECK_EQ_U64(c.recv_count, 24);
  CHECK_EQ_U64(c.param_count, 8);
  CHECK_EQ_U64(c.send_inplace_offset, 8);
  CHECK_EQ_U64(c.recv_inplace_offset, 0);
  CHECK_EQ_U64(cb_counts_table_bytes(&c, 4), 96);
  CHECK_EQ_U64(cb_shape_gather.algbw_bytes(&c, 4, 3), 96);
  CHECK_NEAR(cb_shape_gather.bus_factor(4), 0.75, 1e-12);
  CHECK(cb_shape_gather.rooted && !cb_shape_gather.reduces);
  /* scatter: 1 KiB float on 4 ranks, rank 3: block 3 of the root's input. */
  cb_shape_scatter.counts(1024, 4, 4, 3, &c);
  CHECK_EQ_U64(c.send_count, 256);
  CHECK_EQ_U64(c.recv_count, 64);
  CHECK_EQ_U64(c.param_count, 64);
  CHECK_EQ_U64(c.send_inplace_offset, 0);
  CHECK_EQ_U64(c.recv_inplace_offset, 192);
  CHECK_EQ_U64(cb_shape_scatter.algbw_bytes(&c, 4, 4), 1024);
  CHECK_NEAR(cb_shape_scatter.bus_factor(2), 0.5, 1e-12);
  CHECK(cb_shape_scatter.rooted);
  /* hypercube: all_gather's counts; algbw of the n - 1 blocks received,
   * busbw = algbw; power-of-two rank counts; an empty redop word. */
  cb_shape_hypercube.counts(1u << 20, 4, 8, 5, &c);
  CHECK_EQ_U64(c.send_count, 32768);
  CHECK_EQ_U64(c.recv_count, 262144);
  CHECK_EQ_U64(c.send_inplace_offset, 5 * 32768);
  CHECK_EQ_U64(cb_counts_table_bytes(&c, 4), 1u << 20);
  CHECK_EQ_U64(cb_shape_hypercube.algbw_bytes(&c, 4, 8), 7u * 131072);
  CHECK_NEAR(cb_shape_hypercube.bus_factor(8), 1.0, 1e-12);
  CHECK(cb_shape_hypercube.pow2_ranks && !cb_shape_hypercube.rooted);
  CHECK_STR(cb_shape_op_column(&cb_shape_hypercube, 0), "");
  CHECK_STR(cb_shape_op_name(&cb_shape_hypercube, 0), "none"); /* JSON, CSV: our schema */
  CHECK_STR(cb_shape_op_column(&cb_shape_gather, 0), "none");
  CHECK_STR(cb_shape_op_column(&cb_shape_reduce, 3), "max");
  /* alltoallv, spread 1, 1 MiB float on 4 ranks: 65536 elements a peer
   * (the count column), a total of 1 MiB cut by distance 0..3 into 0,
   * 1/6, 2/6 and 3/6 of it, each rounded down to 16 bytes:
   * 0 + 174752 + 349520 + 524288 = 1048560 bytes. */
  cb_shape_alltoallv.counts(1u << 20, 4, 4, 2, &c);
  CHECK_EQ_U64(c.param_count, 65536);
  CHECK_EQ_U64(c.send_count, 1048560 / 4);
  CHECK_EQ_U64(c.recv_count, 1048560 / 4);
  CHECK_EQ_U64(cb_counts_table_bytes(&c, 4), 1048560);
  CHECK_EQ_U64(cb_shape_alltoallv.algbw_bytes(&c, 4, 4), 1048560);
  CHECK_NEAR(cb_shape_alltoallv.bus_factor(4), 0.75, 1e-12);
  /* One rank sends itself the whole total, rounded down to 16 bytes. */
  cb_shape_alltoallv.counts(1000, 1, 1, 0, &c);
  CHECK_EQ_U64(c.param_count, 992);
  CHECK_EQ_U64(c.send_count, 992);
}

/* NCCL_TESTS_ALLTOALLV_SPREAD sets the pattern: 0 is uniform (alltoall's
 * blocks); a spread that is no number in 0..1, a traffic matrix and the
 * per-rank summary are refused with one line naming the variable. */
static void test_alltoallv_environment(void) {
  char err[256];
  static const char *const bad[] = {"2", "-0.5", "abc", "0.5x", "", "nan"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setenv("NCCL_TESTS_ALLTOALLV_SPREAD", bad[i], 1);
    const char *why = cb_alltoallv_environment(err, sizeof err);
    CHECKF(why != NULL, "spread '%s' accepted", bad[i]);
    if (why) CHECK_CONTAINS(why, "NCCL_TESTS_ALLTOALLV_SPREAD");
  }
  setenv("NCCL_TESTS_ALLTOALLV_SPREAD", "0", 1);
  CHECK(cb_alltoallv_environment(err, sizeof err) == NULL);
  CHECK_NEAR(cb_alltoallv_spread(), 0.0, 0);
  cb_counts c, a2a;
  cb_shape_alltoallv.counts(1u << 20, 4, 4, 1, &c);
  cb_shape_alltoall.counts(1u << 20, 4, 4, 1, &a2a);
  CHECK_EQ_U64(c.send_count, a2a.send_count);
  setenv("NCCL_TESTS_ALLTOALLV_MATRIX_FILE", "/tmp/m.txt", 1);
  const char *why = cb_alltoallv_environment(err, sizeof err);
  CHECK(why != NULL);
  if (why) CHECK_CONTAINS(why, "NCCL_TESTS_ALLTOALLV_MATRIX_FILE");
  unsetenv("NCCL_TESTS_ALLTOALLV_MATRIX_FILE");
  setenv("NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY", "1", 1);
  why = cb_alltoallv_environment(err, sizeof err);
  CHECK(why != NULL);
  if (why) CHECK_CONTAINS(why, "NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY");
  setenv("NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY", "0", 1);
  CHECK(cb_alltoallv_environment(err, sizeof err) == NULL);
  unsetenv("NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY");
  /* Every count of every shape again at other spreads. */
  static const char *const spreads[] = {"0", "0.35", "0.999"};
  for (size_t i = 0; i < sizeof spreads / sizeof spreads[0]; i++) {
    setenv("NCCL_TESTS_ALLTOALLV_SPREAD", spreads[i], 1);
    CHECK(cb_alltoallv_environment(err, sizeof err) == NULL);
    test_spread = atof(spreads[i]);
    test_counts_all();
  }
  unsetenv("NCCL_TESTS_ALLTOALLV_SPREAD");
}

/* |computed - printed| within the rounding of the printed 2 decimals. */
static int bw_close(double computed, double printed) {
  return fabs(computed - printed) <= 0.006 || fabs(computed - printed) <= 0.005 * fabs(printed);
}

static void test_fixture(const char *path) {
  fx_file *fx = malloc(sizeof *fx);
  if (!fx || fx_load(path, fx) != 0) {
    CHECKF(0, "cannot load fixture %s", path);
    free(fx);
    return;
  }
  const char *base = fx_base(path);
  const cb_coll_shape *shape = fx_shape(fx->collective);
  CHECKF(shape != NULL, "%s: no shape named '%s'", base, fx->collective);
  if (!shape) {
    free(fx);
    return;
  }
  int n = fx->nthread * fx->ngpus;
  CHECKF(n == 2 && fx->nranks == 2, "%s: expected a 2-rank run", base);
  /* The rows are the sizes of the header's sweep, in order. */
  cb_sweep sw = {fx->min_bytes, fx->max_bytes, 1, 0};
  if (strcmp(fx->step_kind, "factor") == 0)
    sw.step_factor = fx->step;
  else
    sw.step_bytes = fx->step;
  size_t nsizes = cb_sweep_count(&sw);
  CHECKF(nsizes == (size_t)fx->nrows, "%s: the header's sweep has %zu sizes, the table %d rows",
         base, nsizes, fx->nrows);
  int mismatches = 0;
  for (int i = 0; i < fx->nrows; i++) {
    const fx_row *r = &fx->rows[i];
    CHECKF(strcmp(r->type, "float") == 0, "%s:%d: type %s", base, r->line_no, r->type);
    size_t elem = 4;
    cb_counts c;
    /* From the size the run asked for (the sweep)... */
    if ((size_t)i < nsizes) {
      size_t asked = (size_t)cb_sweep_size(&sw, (size_t)i);
      shape->counts(asked, elem, n, 0, &c);
      CHECKF(cb_counts_table_bytes(&c, elem) == r->size && c.param_count == r->count,
             "%s:%d: sweep size %zu gives size %zu count %zu, the reference prints %zu %zu", base,
             r->line_no, asked, cb_counts_table_bytes(&c, elem), c.param_count, r->size, r->count);
    }
    /* ...and from the row's own size column, which must be a fixed point. */
    shape->counts(r->size, elem, n, 0, &c);
    CHECKF(cb_counts_table_bytes(&c, elem) == r->size && c.param_count == r->count,
           "%s:%d: size %zu gives size %zu count %zu, the reference prints count %zu", base,
           r->line_no, r->size, cb_counts_table_bytes(&c, elem), c.param_count, r->count);
    /* algbw and busbw from the printed time. */
    double bytes = (double)shape->algbw_bytes(&c, elem, n);
    for (int p = 0; p < 2; p++) {
      const char *what = p ? "in-place" : "out-of-place";
      double t = atof(r->f[p ? FX_IP_TIME : FX_OOP_TIME]);
      double algbw = atof(r->f[p ? FX_IP_ALGBW : FX_OOP_ALGBW]);
      double busbw = atof(r->f[p ? FX_IP_BUSBW : FX_OOP_BUSBW]);
      double want_alg = t > 0 ? bytes / 1e3 / t : 0.0;
      double want_bus = want_alg * shape->bus_factor(n);
      if (!bw_close(want_alg, algbw) || !bw_close(want_bus, busbw)) {
        mismatches++;
        CHECKF(0, "%s:%d %s: time %.2f us -> algbw %.4f busbw %.4f, the reference prints %.2f %.2f",
               base, r->line_no, what, t, want_alg, want_bus, algbw, busbw);
      }
    }
  }
  CHECKF(mismatches == 0, "%s: %d bandwidths differ from the reference's", base, mismatches);
  printf("%s: %d rows of %s checked\n", base, fx->nrows, fx->collective);
  free(fx);
}

int main(int argc, char **argv) {
  test_flags_follow_the_expectation();
  test_bus_factors();
  test_counts_all();
  test_counts_examples();
  test_new_shapes_examples();
  test_alltoallv_environment();
  CHECKF(argc > 1, "usage: %s FIXTURE...", argv[0]);
  for (int i = 1; i < argc; i++) test_fixture(argv[i]);
  return check_summary();
}
