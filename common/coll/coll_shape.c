#include "coll_shape.h"

#include "types.h"

/* Per-rank block of the gather/scatter-like collectives: whole 16-byte
 * multiples, as nccl-tests rounds them, so every rank's block is aligned. */
size_t cb_block_count(size_t bytes, size_t elem, int nranks) {
  size_t count = bytes / elem;
  size_t per16 = elem >= 16 ? 1 : 16 / elem;
  return (count / (size_t)nranks) & ~(per16 - 1);
}

void cb_counts_same(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  (void)nranks;
  (void)rank;
  c->send_count = c->recv_count = c->param_count = bytes / elem;
  c->send_inplace_offset = c->recv_inplace_offset = 0;
}

void cb_counts_gathered(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  size_t base = cb_block_count(bytes, elem, nranks);
  c->param_count = c->send_count = base;
  c->recv_count = base * (size_t)nranks;
  c->send_inplace_offset = base * (size_t)rank; /* my block of the output */
  c->recv_inplace_offset = 0;
}

void cb_counts_scattered(size_t bytes, size_t elem, int nranks, int rank, cb_counts *c) {
  size_t base = cb_block_count(bytes, elem, nranks);
  c->param_count = c->recv_count = base;
  c->send_count = base * (size_t)nranks;
  c->send_inplace_offset = 0;
  c->recv_inplace_offset = base * (size_t)rank; /* my block of the input */
}

double cb_bus_factor_n_minus_1_over_n(int n) {
  return (double)(n - 1) / n;
}
double cb_bus_factor_one(int n) {
  (void)n;
  return 1.0;
}

size_t cb_algbw_param(const cb_counts *c, size_t elem, int n) {
  (void)n;
  return c->param_count * elem;
}
size_t cb_algbw_param_times_n(const cb_counts *c, size_t elem, int n) {
  return c->param_count * elem * (size_t)n;
}

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
