#include "hier.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "buffers.h" /* cb_buffers_alloc_ours */
#include "cuda_check.h"
#include "error.h"
#include "nccl_kernels.h" /* cb_nccl_rail_setup, cb_nccl_unavailable, cb_nccl_call_unavailable */

/* ---- the arithmetic of the forms ------------------------------------------ */

size_t cb_hier_chunk(size_t count, int per_host, size_t elem) {
  const size_t per16 = elem >= 16 ? 1 : 16 / elem;
  const size_t c = (count + (size_t)per_host - 1) / (size_t)per_host;
  return (c + per16 - 1) / per16 * per16;
}

size_t cb_hier_host_order_block(int h, int l, int nhosts) {
  return (size_t)l * (size_t)nhosts + (size_t)h;
}

/* The op across the hosts: mulsum's scalars were applied within the host. */
static cb_redop rail_op(cb_redop op) {
  return op == CB_MULSUM ? CB_SUM : op;
}

cb_call cb_hier_part_call(cb_hier_form form, cb_hier_step step, const cb_call *call, int nhosts,
                          int per_host, const cb_hier_buffers *b) {
  cb_call p = {.dtype = call->dtype, .op = call->op};
  switch (form) {
  case CB_HIER_ALL_REDUCE:
    p.count = cb_hier_chunk(call->count, per_host, cb_dtype_size(call->dtype));
    p.send = step == CB_HIER_AG ? b->s2 : b->x;
    p.recv = step == CB_HIER_AG ? b->y : b->s;
    break;
  case CB_HIER_BROADCAST: /* in place on the output, from the root's index on its host */
    p.count = call->count;
    p.root = call->root % per_host;
    p.send = p.recv = call->recv;
    p.in_place = 1;
    break;
  case CB_HIER_ALL_GATHER:
    p.count = (size_t)nhosts * call->count;
    p.send = b->y;
    p.recv = b->z;
    break;
  case CB_HIER_REDUCE_SCATTER:
    p.count = (size_t)nhosts * call->count;
    p.send = b->x;
    p.recv = b->y;
    break;
  }
  return p;
}

cb_call cb_hier_rail_call(cb_hier_form form, const cb_call *call, int per_host,
                          const cb_hier_buffers *b) {
  if (per_host == 1) return *call; /* the rail is the group: NCCL's call is the kernel */
  cb_call r = {.dtype = call->dtype, .op = rail_op(call->op), .count = call->count};
  switch (form) {
  case CB_HIER_ALL_REDUCE:
    r.count = cb_hier_chunk(call->count, per_host, cb_dtype_size(call->dtype));
    r.send = b->s;
    r.recv = b->s2;
    break;
  case CB_HIER_ALL_GATHER:
    r.send = call->send;
    r.recv = b->y;
    break;
  case CB_HIER_REDUCE_SCATTER:
    r.send = b->y;
    r.recv = call->recv;
    break;
  case CB_HIER_BROADCAST: /* on the root's rail, whose root is the root's host */
    r = *call;
    r.root = call->root / per_host;
    break;
  }
  return r;
}

/* ---- a rank's state --------------------------------------------------------- */

typedef struct {
  const cb_hier_part *part;
  cb_kernel_ctx ctx; /* its own: the node view, this kernel's buffers */
  int set_up;        /* its setup ran, so its teardown runs */
} part_state;

typedef struct {
  const cb_hier_plan *plan;
  int nhosts, per_host;
  size_t big, small;                /* bytes of the buffers between the steps (alloc_buffers) */
  cb_rank_info node;                /* the parts' world (cb_world_node_view) */
  cb_kernel_ctx rail;               /* the rail's NCCL communicator (its state) */
  part_state steps[CB_HIER_NSTEPS]; /* by cb_hier_step: the form's are set up */
  cb_hier_buffers b;
} hier_state;

/* Where a rank is, as every rank of the group sees it. */
typedef struct {
  int host, index, per_host; /* its host, its index there, its host's ranks */
} rank_place;

/* Why the group is not laid out host by host with as many ranks on each
 * (rank = host * L + index), or NULL. The same answer on every rank. */
static const char *layout_problem(cb_kernel_ctx *ctx, const cb_rank_info *node, char *why,
                                  size_t len) {
  const int n = ctx->nranks;
  rank_place mine = {cb_world_host(ctx->world->world), node->rank, node->nranks};
  rank_place *all = calloc((size_t)n, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(ctx->world, &mine, sizeof mine, all);
  const int per_host = all[0].per_host;
  const char *bad = NULL;
  for (int r = 0; r < n && !bad; r++) {
    const int first = r - r % per_host; /* the first rank of r's host, laid out host by host */
    if (all[r].per_host != per_host) {
      snprintf(why, len,
               "needs as many ranks on every host: rank 0's host has %d, rank %d's has %d",
               per_host, r, all[r].per_host);
      bad = why;
    } else if (all[r].index != r % per_host || all[r].host != all[first].host ||
               (first > 0 && all[first].host == all[first - per_host].host)) {
      snprintf(why, len,
               "needs the ranks laid out host by host (rank = host * %d + index on the host): "
               "rank %d is index %d on host %d",
               per_host, r, all[r].index, all[r].host);
      bad = why;
    }
  }
  free(all);
  return bad;
}

/* The buffers between the steps, sized for the largest message: "big" ones
 * hold it (padded: all_reduce's L chunks), "small" ones a host's share. */
static void alloc_buffers(hier_state *st, uint64_t max_bytes) {
  st->big = (size_t)max_bytes + 16u * (size_t)st->per_host + 16u;
  st->small = st->big / (size_t)st->per_host + 32u;
  cb_hier_buffers *b = &st->b;
  switch (st->plan->form) {
  case CB_HIER_ALL_REDUCE:
    b->x = cb_buffers_alloc_ours(st->big);
    b->s = cb_buffers_alloc_ours(st->small);
    b->s2 = cb_buffers_alloc_ours(st->small);
    b->y = cb_buffers_alloc_ours(st->big);
    break;
  case CB_HIER_ALL_GATHER:
    b->y = cb_buffers_alloc_ours(st->small);
    b->z = cb_buffers_alloc_ours(st->big);
    break;
  case CB_HIER_REDUCE_SCATTER:
    b->x = cb_buffers_alloc_ours(st->big);
    b->y = cb_buffers_alloc_ours(st->small);
    break;
  case CB_HIER_BROADCAST: /* the harness's own */
    break;
  }
}

static size_t bytes_of(const hier_state *st, const void *p) {
  const cb_hier_buffers *b = &st->b;
  const int small = p == b->s || p == b->s2 || (p == b->y && st->plan->form != CB_HIER_ALL_REDUCE);
  return small ? st->small : st->big;
}

static void free_buffers(cb_hier_buffers *b) {
  void *all[] = {b->x, b->s, b->s2, b->y, b->z};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) cb_buffers_free_ours(all[i]);
  memset(b, 0, sizeof *b);
}

/* The step's context's buffers (send_buf, recv_buf and their bytes): what
 * its call reads and writes, as allocations; broadcast's are the harness's
 * (ctx's). */
static void part_buffers(const hier_state *st, const cb_kernel_ctx *ctx, cb_hier_step step,
                         cb_kernel_ctx *part) {
  if (st->plan->form == CB_HIER_BROADCAST) {
    part->send_buf = ctx->send_buf;
    part->recv_buf = ctx->recv_buf;
    part->send_buf_bytes = ctx->send_buf_bytes;
    part->recv_buf_bytes = ctx->recv_buf_bytes;
    return;
  }
  const cb_call any = {.count = 1};
  const cb_call c = cb_hier_part_call(st->plan->form, step, &any, st->nhosts, st->per_host, &st->b);
  part->send_buf = (void *)c.send; /* one of this kernel's buffers */
  part->recv_buf = c.recv;
  part->send_buf_bytes = bytes_of(st, c.send);
  part->recv_buf_bytes = bytes_of(st, c.recv);
}

static void refuse_for(cb_setup_reply *reply, const cb_hier_part *part, const char *why) {
  cb_kernel_refuse(reply, "within each host, %s %s: %s", part->shape->name, part->row->name, why);
}

/* ---- setting the steps up, in turn ------------------------------------------ */

/* Collective within the host: whether a rank of it refused; a rank that did
 * not takes the first refusal's words, naming that rank. */
static int refused_on_host(cb_rank_info *node, cb_setup_reply *reply) {
  const size_t len = sizeof reply->refused;
  char *all = malloc((size_t)node->nranks * len);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(node, reply->refused, len, all);
  for (int r = 0; r < node->nranks && !reply->refused[0]; r++)
    if (all[(size_t)r * len])
      cb_kernel_refuse(reply, "%s (rank %d of the host)", all + (size_t)r * len, r);
  free(all);
  return reply->refused[0] != 0;
}

void cb_hier_set_up_in_turn(cb_rank_info *node, int nsteps,
                            void (*setup)(int step, void *arg, cb_setup_reply *reply), void *arg,
                            cb_setup_reply *reply) {
  for (int step = 0; step < nsteps; step++) {
    setup(step, arg, reply);
    if (refused_on_host(node, reply)) return;
  }
}

cb_kernel_ctx cb_hier_part_ctx(const cb_kernel_ctx *ctx, cb_rank_info *node, uint64_t max_bytes) {
  return (cb_kernel_ctx){.rank = node->rank,
                         .nranks = node->nranks,
                         .device = ctx->device,
                         .timeout_s = ctx->timeout_s,
                         .max_bytes = max_bytes,
                         .kernel_id = ctx->kernel_id,
                         .kernel_name = ctx->kernel_name,
                         .world = node,
                         .ranks_on_device = ctx->ranks_on_device,
                         .beside_nccl = 1};
}

/* Sets up our kernel within the host, as its own program would at L ranks. */
static void set_up_part(hier_state *st, const cb_kernel_ctx *ctx, cb_hier_step step,
                        cb_setup_reply *reply) {
  const cb_hier_part *part = &st->plan->steps[step];
  part_state *p = &st->steps[step];
  if (!part->row) return;
  p->part = part;
  p->ctx = cb_hier_part_ctx(ctx, &st->node, st->big);
  part_buffers(st, ctx, step, &p->ctx);
  const cb_serve_question q = {
      .nranks = st->per_host, .multi_host = 0, .share_gpus = ctx->ranks_on_device > 1};
  char why[256];
  const char *no = cb_kernel_why_not(part->row, &q, why, sizeof why);
  if (no) {
    refuse_for(reply, part, no);
    return;
  }
  cb_setup_reply r = {{0}, {0}};
  if (part->row->setup) part->row->setup(&p->ctx, &r);
  p->set_up = 1;
  if (r.refused[0]) refuse_for(reply, part, r.refused);
  if (r.note[0])
    cb_kernel_note(reply, "within each host, %s %s: %s", part->shape->name, part->row->name,
                   r.note);
}

typedef struct {
  hier_state *st;
  const cb_kernel_ctx *ctx;
} part_setup;

static void set_up_step(int step, void *arg, cb_setup_reply *reply) {
  part_setup *p = arg;
  set_up_part(p->st, p->ctx, (cb_hier_step)step, reply);
}

void cb_hier_setup(const cb_hier_plan *plan, cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  hier_state *st = calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  ctx->state = st;
  st->plan = plan;
  st->node = cb_world_node_view(ctx->world);
  char why[256];
  if (layout_problem(ctx, &st->node, why, sizeof why)) {
    cb_kernel_refuse(reply, "%s", why);
    return;
  }
  st->per_host = st->node.nranks;
  st->nhosts = ctx->nranks / st->per_host;
  st->rail = *ctx;
  st->rail.state = NULL;
  cb_nccl_rail_setup(&st->rail, st->per_host);
  if (st->per_host == 1) return;
  alloc_buffers(st, ctx->max_bytes);
  part_setup arg = {st, ctx};
  cb_hier_set_up_in_turn(&st->node, CB_HIER_NSTEPS, set_up_step, &arg, reply);
}

static void tear_down_part(part_state *p) {
  if (p->set_up && p->part->row->teardown) p->part->row->teardown(&p->ctx);
  p->set_up = 0;
}

void cb_hier_teardown(cb_kernel_ctx *ctx) {
  hier_state *st = ctx->state;
  if (!st) return;
  for (int step = CB_HIER_NSTEPS - 1; step >= 0; step--) tear_down_part(&st->steps[step]);
  if (st->rail.state) cb_nccl_teardown(&st->rail);
  free_buffers(&st->b);
  free(st);
  ctx->state = NULL;
}

/* ---- what it serves ----------------------------------------------------------- */

static const char *op_problem(const hier_state *st, const cb_serve_question *q, char *buf,
                              size_t len) {
  if (!q->shape->reduces || st->per_host == 1) return NULL;
  if (q->call->op == CB_AVG && !cb_dtype_is_float(q->call->dtype))
    return "avg of integers: each host's average would truncate before the average across hosts";
  if (q->call->op == CB_MULSUM && st->per_host % 2) {
    snprintf(buf, len,
             "mulsum with %d ranks a host: a rank's index on its host does not have its rank's "
             "parity, which its scalar follows",
             st->per_host);
    return buf;
  }
  return NULL;
}

/* Our kernel's answer within the host, for its part of the call. */
static const char *part_problem(const hier_state *st, cb_hier_step step, const cb_call *call,
                                char *buf, size_t len) {
  const part_state *p = &st->steps[step];
  if (!p->part) return NULL;
  const cb_call pc =
      cb_hier_part_call(st->plan->form, step, call, st->nhosts, st->per_host, &st->b);
  /* The table's bytes of the step's call: a whole host's blocks, but one message for broadcast. */
  const uint64_t blocks = step == CB_HIER_BC ? 1 : (uint64_t)st->per_host;
  const cb_serve_question q = {.shape = p->part->shape,
                               .call = &pc,
                               .table_bytes = blocks * pc.count * cb_dtype_size(pc.dtype),
                               .ctx = &p->ctx};
  char inner[256];
  const char *why = cb_kernel_why_not(p->part->row, &q, inner, sizeof inner);
  if (!why) return NULL;
  snprintf(buf, len, "within each host, %s %s: %s", p->part->shape->name, p->part->row->name, why);
  return buf;
}

const char *cb_hier_why_not(const cb_serve_question *q, char *buf, size_t len) {
  if (!q->call) return cb_nccl_unavailable(); /* the build: NCCL goes between the hosts */
  const hier_state *st = q->ctx ? q->ctx->state : NULL;
  if (!st) return NULL;
  const cb_call rail = cb_hier_rail_call(st->plan->form, q->call, st->per_host, &st->b);
  const char *why = cb_nccl_call_unavailable(&st->rail, q->shape, &rail);
  if (why) return why;
  why = op_problem(st, q, buf, len);
  for (int step = 0; step < CB_HIER_NSTEPS && !why; step++)
    why = part_problem(st, step, q->call, buf, len);
  return why;
}

/* ---- a call ------------------------------------------------------------------ */

void cb_hier_prepare(cb_kernel_ctx *ctx, const cb_call *call) {
  hier_state *st = ctx->state;
  if (st->per_host == 1) return;
  for (int step = 0; step < CB_HIER_NSTEPS; step++) {
    part_state *p = &st->steps[step];
    if (!p->part || !p->part->row->prepare) continue;
    const cb_call pc =
        cb_hier_part_call(st->plan->form, step, call, st->nhosts, st->per_host, &st->b);
    p->part->row->prepare(&p->ctx, &pc);
  }
}

static void launch_part(hier_state *st, cb_hier_step step, const cb_call *call,
                        cudaStream_t stream) {
  part_state *p = &st->steps[step];
  const cb_call pc =
      cb_hier_part_call(st->plan->form, step, call, st->nhosts, st->per_host, &st->b);
  p->part->row->launch(&p->ctx, &pc, stream);
}

/* Copies blocks of `block` bytes between the rank order (h * L + l) and
 * the host order (l * H + h): to_host_order takes ranked into hosted. */
static void reorder(char *hosted, char *ranked, size_t block, int nhosts, int per_host,
                    int to_host_order, cudaStream_t stream) {
  const size_t ranked_pitch = block * (size_t)per_host;
  for (int l = 0; l < per_host; l++) {
    char *h0 = hosted + cb_hier_host_order_block(0, l, nhosts) * block; /* (0, l), then (1, l) */
    char *r0 = ranked + (size_t)l * block;
    if (ranked_pitch <= INT_MAX) { /* cudaMemcpy2D's pitches are bounded (cudaDevAttrMaxPitch) */
      if (to_host_order)
        CB_CUDA(cudaMemcpy2DAsync(h0, block, r0, ranked_pitch, block, (size_t)nhosts,
                                  cudaMemcpyDeviceToDevice, stream));
      else
        CB_CUDA(cudaMemcpy2DAsync(r0, ranked_pitch, h0, block, block, (size_t)nhosts,
                                  cudaMemcpyDeviceToDevice, stream));
      continue;
    }
    for (int h = 0; h < nhosts; h++) {
      char *hb = h0 + (size_t)h * block, *rb = r0 + (size_t)h * ranked_pitch;
      CB_CUDA(cudaMemcpyAsync(to_host_order ? hb : rb, to_host_order ? rb : hb, block,
                              cudaMemcpyDeviceToDevice, stream));
    }
  }
}

void cb_hier_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  hier_state *st = ctx->state;
  const cb_hier_plan *plan = st->plan;
  const cb_call rail = cb_hier_rail_call(plan->form, call, st->per_host, &st->b);
  if (st->per_host == 1) { /* the rail is the group */
    plan->rail_call(&st->rail, &rail, stream);
    return;
  }
  if (call->count == 0) return;
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  switch (plan->form) {
  case CB_HIER_ALL_REDUCE:
    CB_CUDA(cudaMemcpyAsync(st->b.x, call->send, bytes, cudaMemcpyDeviceToDevice, stream));
    launch_part(st, CB_HIER_RS, call, stream);
    plan->rail_call(&st->rail, &rail, stream);
    launch_part(st, CB_HIER_AG, call, stream);
    CB_CUDA(cudaMemcpyAsync(call->recv, st->b.y, bytes, cudaMemcpyDeviceToDevice, stream));
    break;
  case CB_HIER_ALL_GATHER:
    plan->rail_call(&st->rail, &rail, stream);
    launch_part(st, CB_HIER_AG, call, stream);
    reorder(st->b.z, call->recv, bytes, st->nhosts, st->per_host, 0, stream);
    break;
  case CB_HIER_REDUCE_SCATTER:
    reorder(st->b.x, (char *)call->send, bytes, st->nhosts, st->per_host, 1, stream);
    launch_part(st, CB_HIER_RS, call, stream);
    plan->rail_call(&st->rail, &rail, stream);
    break;
  case CB_HIER_BROADCAST: /* only the root's rail broadcasts between the hosts */
    if (st->node.rank == call->root % st->per_host) plan->rail_call(&st->rail, &rail, stream);
    launch_part(st, CB_HIER_BC, call, stream);
    break;
  }
}

/* A part's resources into r: its grids after r's, the most side streams and copy streams of
 * any part, every copy. */
static void add_part_resources(const part_state *p, const cb_call *pc, cb_kernel_resources *r) {
  cb_kernel_resources pr;
  memset(&pr, 0, sizeof pr);
  pr.reported = 1;
  if (p->part->row->resources) p->part->row->resources(&p->ctx, pc, &pr);
  if (!p->part->row->resources || !pr.reported) {
    cb_res_note(r, "within the host, %s does not say", p->part->row->name);
    return;
  }
  for (int i = 0; i < pr.ngrids; i++) {
    cb_grid_use *g = cb_res_grid(r, pr.grids[i].role, pr.grids[i].func, pr.grids[i].blocks,
                                 pr.grids[i].threads, pr.grids[i].dynamic_smem);
    if (g) *g = pr.grids[i];
  }
  r->side_streams = pr.side_streams > r->side_streams ? pr.side_streams : r->side_streams;
  r->copy_streams = pr.copy_streams > r->copy_streams ? pr.copy_streams : r->copy_streams;
  r->copies += pr.copies;
  if (pr.note[0]) cb_res_note(r, "%s", pr.note);
}

/* The copies reorder makes. */
static int reorder_copies(int nhosts, int per_host, size_t block) {
  return block * (size_t)per_host <= INT_MAX ? per_host : per_host * nhosts;
}

void cb_hier_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r) {
  const hier_state *st = ctx->state;
  if (st->per_host == 1) { /* the rail is the group */
    cb_nccl_resources(&st->rail, call, r);
    return;
  }
  if (call->count == 0) return;
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  for (int step = 0; step < CB_HIER_NSTEPS; step++) {
    const part_state *p = &st->steps[step];
    if (!p->part) continue;
    const cb_call pc =
        cb_hier_part_call(st->plan->form, step, call, st->nhosts, st->per_host, &st->b);
    add_part_resources(p, &pc, r);
  }
  int own = 0; /* copies of the form's own, on the call's stream */
  if (st->plan->form == CB_HIER_ALL_REDUCE) own = 2;
  if (st->plan->form == CB_HIER_ALL_GATHER || st->plan->form == CB_HIER_REDUCE_SCATTER)
    own = reorder_copies(st->nhosts, st->per_host, bytes);
  r->copies += own;
  if (own && !r->copy_streams) r->copy_streams = 1;
  cb_res_note(r, "between the hosts, NCCL's call: CTAs not reported");
}
