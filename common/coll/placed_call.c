/* One kernel call placed in a rank's buffers (placed_call.h). */
#include "placed_call.h"

#include <stdio.h>

#include "alltoallv_env.h"
#include "sizes.h"

void cb_enqueue_kernel(void *p, cudaStream_t s) {
  cb_launch *l = p;
  if (!l->skip) l->kernel->launch(l->ctx, &l->call, s);
}

void cb_bracket_kernel(void *p, int begin) {
  cb_launch *l = p;
  if (!l->skip && l->kernel->aggregate) l->kernel->aggregate(l->ctx, begin);
}

void cb_place_call(cb_rank_state *st, const cb_counts *c, size_t elem, int in_place,
                   cb_call *call) {
  call->in_place = in_place;
  call->count = c->param_count;
  char *send = cb_buffers_start(&st->bufs, st->bufs.send, elem);
  char *recv = cb_buffers_start(&st->bufs, st->bufs.recv, elem);
  if (in_place) {
    call->send = recv + c->send_inplace_offset * elem;
    call->recv = recv + c->recv_inplace_offset * elem;
  } else {
    call->send = send;
    call->recv = recv;
  }
}

cb_data_spec cb_spec_for(const cb_rank_state *st, const cb_call *call, const cb_counts *c,
                         uint64_t seed) {
  const cb_coll_shape *shape = st->run->coll->shape;
  cb_data_spec spec = {.dtype = call->dtype,
                       .op = shape->reduces ? call->op : CB_SUM,
                       .expect = shape->expect,
                       .reduces = shape->reduces,
                       .rank = st->me->rank,
                       .nranks = st->me->nranks,
                       .root = call->root,
                       .param_count = c->param_count,
                       .in_place = call->in_place,
                       .input_offset = c->send_inplace_offset > c->recv_inplace_offset
                                           ? c->send_inplace_offset - c->recv_inplace_offset
                                           : 0,
                       .input_count = c->send_count,
                       .spread = cb_alltoallv_spread(),
                       .kind = st->run->opts.data,
                       .seed = seed,
                       .round = NULL};
  return spec;
}

void cb_enqueue_inputs(cb_rank_state *st, const cb_data_spec *spec, const cb_call *call,
                       const cb_counts *c, cudaStream_t s) {
  size_t elem = cb_dtype_size(call->dtype);
  /* In place the whole region, so no byte of an earlier call survives; and
   * the guard after it (cb_buffers_output_end). */
  char *out = call->in_place ? cb_buffers_start(&st->bufs, st->bufs.recv, elem) : call->recv;
  char *end = cb_buffers_output_end(&st->bufs, call, c, elem);
  cb_data_poison(out, (size_t)(end - out) + CB_GUARD_BYTES, s);
  cb_data_fill_input(spec, (void *)call->send, c->send_count, s);
}

void cb_call_what(const cb_rank_state *st, const cb_launch *l, const cb_counts *c, const char *tail,
                  char *buf, size_t len) {
  const cb_coll_shape *shape = st->run->coll->shape;
  const cb_call *call = &l->call;
  char root[24] = "";
  if (shape->rooted) snprintf(root, sizeof root, " root %d", call->root);
  snprintf(buf, len, "kernel %d (%s) %s %s %s %zu B %s%s%s", l->kernel->id, l->kernel->name,
           shape->name, cb_dtype_name(call->dtype), cb_shape_op_name(shape, call->op),
           cb_counts_table_bytes(c, cb_dtype_size(call->dtype)),
           call->in_place ? "in-place" : "out-of-place", root, tail);
}
