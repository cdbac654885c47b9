#include "coll_shape.h"

#include "alltoallv_env.h"
#include "alltoallv_pattern.h"
#include "types.h"

/* Per-rank block of the gather/scatter-like collectives: whole 16-byte
 * multiples, as nccl-tests rounds them, so every rank's block is aligned. */
static size_t block_count(size_t bytes, size_t elem, int nranks) {
  size_t count = bytes / elem;
  size_t per16 = elem >= 16 ? 1 : 16 / elem;
  return (count / (size_t)nranks) & ~(per16 - 1);
}

static void counts_same(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  (void)nranks;
  (void)rank;
  c->send_count = c->recv_count = c->param_count = bytes / elem;
  c->send_inplace_offset = c->recv_inplace_offset = 0;
}

static void counts_all_gather(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  size_t base = block_count(bytes, elem, nranks);
  c->param_count = c->send_count = base;
  c->recv_count = base * (size_t)nranks;
  c->send_inplace_offset = base * (size_t)rank; /* my block of the output */
  c->recv_inplace_offset = 0;
}

static void counts_reduce_scatter(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  size_t base = block_count(bytes, elem, nranks);
  c->param_count = c->recv_count = base;
  c->send_count = base * (size_t)nranks;
  c->send_inplace_offset = 0;
  c->recv_inplace_offset = base * (size_t)rank; /* my block of the input */
}

static void counts_alltoall(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  (void)rank;
  size_t base = block_count(bytes, elem, nranks);
  c->param_count = base;
  c->send_count = c->recv_count = base * (size_t)nranks;
  c->send_inplace_offset = c->recv_inplace_offset = 0;
}

/* alltoallv: the count is the per-peer block of alltoall (nccl-tests' paramcount),
 * which sets the total each rank sends; that total is cut into pieces by
 * distance (alltoallv_pattern.h), and send and receive hold the pieces. */
static void counts_alltoallv(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  (void)rank;
  size_t base = block_count(bytes, elem, nranks);
  size_t total = base * (size_t)nranks * elem, pieces = 0;
  for (int to = 0; to < nranks; to++)
    pieces += cb_a2av_peer_bytes(0, to, nranks, total, cb_alltoallv_spread()) / elem;
  c->param_count = base;
  c->send_count = c->recv_count = pieces;
  c->send_inplace_offset = c->recv_inplace_offset = 0;
}

static double factor_all_reduce(int n) {
  return 2.0 * (n - 1) / n;
}
static double factor_n_minus_1_over_n(int n) {
  return (double)(n - 1) / n;
}
static double factor_one(int n) {
  (void)n;
  return 1.0;
}

static size_t algbw_param(const cb_counts *c, size_t elem, int n) {
  (void)n;
  return c->param_count * elem;
}
static size_t algbw_param_times_n(const cb_counts *c, size_t elem, int n) {
  return c->param_count * elem * (size_t)n;
}
/* hypercube: the n - 1 blocks a rank receives. */
static size_t algbw_param_times_n_minus_1(const cb_counts *c, size_t elem, int n) {
  return c->param_count * elem * (size_t)(n - 1);
}
/* alltoallv: what the busiest rank sends or receives (every rank alike here). */
static size_t algbw_larger_side(const cb_counts *c, size_t elem, int n) {
  (void)n;
  return (c->send_count > c->recv_count ? c->send_count : c->recv_count) * elem;
}

const cb_coll_shape cb_shape_all_reduce = {.name = "all_reduce",
                                           .reduces = 1,
                                           .outputs_agree = 1,
                                           .expect = CB_EXPECT_REDUCE,
                                           .counts = counts_same,
                                           .bus_factor = factor_all_reduce,
                                           .algbw_bytes = algbw_param};
const cb_coll_shape cb_shape_all_gather = {.name = "all_gather",
                                           .outputs_agree = 1,
                                           .expect = CB_EXPECT_GATHER,
                                           .counts = counts_all_gather,
                                           .bus_factor = factor_n_minus_1_over_n,
                                           .algbw_bytes = algbw_param_times_n};
const cb_coll_shape cb_shape_reduce_scatter = {.name = "reduce_scatter",
                                               .reduces = 1,
                                               .expect = CB_EXPECT_REDUCE_BLOCK,
                                               .counts = counts_reduce_scatter,
                                               .bus_factor = factor_n_minus_1_over_n,
                                               .algbw_bytes = algbw_param_times_n};
const cb_coll_shape cb_shape_alltoall = {.name = "alltoall",
                                         .expect = CB_EXPECT_ALLTOALL,
                                         .counts = counts_alltoall,
                                         .bus_factor = factor_n_minus_1_over_n,
                                         .algbw_bytes = algbw_param_times_n};
const cb_coll_shape cb_shape_sendrecv = {.name = "sendrecv",
                                         .op_column = 1,
                                         .expect = CB_EXPECT_FROM_PREV,
                                         .counts = counts_same,
                                         .bus_factor = factor_one,
                                         .algbw_bytes = algbw_param};
const cb_coll_shape cb_shape_broadcast = {.name = "broadcast",
                                          .rooted = 1,
                                          .outputs_agree = 1,
                                          .expect = CB_EXPECT_FROM_ROOT,
                                          .counts = counts_same,
                                          .bus_factor = factor_one,
                                          .algbw_bytes = algbw_param};

const cb_coll_shape cb_shape_reduce = {.name = "reduce",
                                       .reduces = 1,
                                       .rooted = 1,
                                       .expect = CB_EXPECT_REDUCE_ROOT,
                                       .counts = counts_same,
                                       .bus_factor = factor_one,
                                       .algbw_bytes = algbw_param};
const cb_coll_shape cb_shape_gather = {.name = "gather",
                                       .rooted = 1,
                                       .expect = CB_EXPECT_GATHER_ROOT,
                                       .counts = counts_all_gather,
                                       .bus_factor = factor_n_minus_1_over_n,
                                       .algbw_bytes = algbw_param_times_n};
const cb_coll_shape cb_shape_scatter = {.name = "scatter",
                                        .rooted = 1,
                                        .expect = CB_EXPECT_SCATTER,
                                        .counts = counts_reduce_scatter,
                                        .bus_factor = factor_n_minus_1_over_n,
                                        .algbw_bytes = algbw_param_times_n};
const cb_coll_shape cb_shape_alltoallv = {.name = "alltoallv",
                                          .expect = CB_EXPECT_ALLTOALLV,
                                          .counts = counts_alltoallv,
                                          .bus_factor = factor_n_minus_1_over_n,
                                          .algbw_bytes = algbw_larger_side,
                                          .environment = cb_alltoallv_environment};
const cb_coll_shape cb_shape_hypercube = {.name = "hypercube",
                                          .outputs_agree = 1,
                                          .expect = CB_EXPECT_GATHER,
                                          .counts = counts_all_gather,
                                          .bus_factor = factor_one,
                                          .algbw_bytes = algbw_param_times_n_minus_1,
                                          .no_op_column = "",
                                          .pow2_ranks = 1};

const char *cb_shape_op_name(const cb_coll_shape *s, int op) {
  return cb_shape_loops_ops(s) ? cb_redop_name((cb_redop)op) : "none";
}

const char *cb_shape_op_column(const cb_coll_shape *s, int op) {
  return !cb_shape_loops_ops(s) && s->no_op_column ? s->no_op_column : cb_shape_op_name(s, op);
}

size_t cb_counts_table_bytes(const cb_counts *c, size_t elem) {
  size_t n = c->send_count > c->recv_count ? c->send_count : c->recv_count;
  return n * elem;
}
