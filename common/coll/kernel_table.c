#include "collective.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hier.h"         /* CB_HIER_RUN_LIMITS */
#include "nccl_kernels.h" /* CB_NCCL_RUN_LIMITS */
#include "peer_mapping.h" /* CB_PEER_MAPPING_ENV */
#include "sizes.h"

static cb_kernel_key kernel_key(const void *table, int i) {
  const cb_kernel *k = ((const cb_collective *)table)->kernels[i];
  return (cb_kernel_key){k->id, k->name, k->summary};
}

cb_kernel_menu cb_kernels_menu(const cb_collective *c, const char *program) {
  return (cb_kernel_menu){program, c, c->nkernels, kernel_key};
}

int cb_kernels_select(const cb_collective *c, const char *spec, int *selected, int *explicit_pick,
                      char *err, size_t err_len) {
  char program[64];
  snprintf(program, sizeof program, "%s_perf", c->shape->name);
  const cb_kernel_menu m = cb_kernels_menu(c, program);
  return cb_kernel_menu_select(&m, spec, selected, explicit_pick, err, err_len);
}

/* The row's own answer (unavailable, then why_not), when it has one. */
static const char *row_why_not(const cb_kernel *k, const cb_serve_question *q, char *buf,
                               size_t len) {
  if (k->unavailable) return k->unavailable;
  return k->why_not ? k->why_not(q, buf, len) : NULL;
}

static const char *world_why_not(const cb_kernel *k, const cb_serve_question *q, char *buf,
                                 size_t len) {
  if (q->share_gpus && k->limits.gpu_per_rank)
    return "needs a GPU per rank of a host, and CB_SHARE_GPUS=1 puts several ranks of a host on "
           "one";
  const char *why = row_why_not(k, q, buf, len);
  if (why) return why;
  if (k->limits.min_ranks && q->nranks < k->limits.min_ranks) {
    snprintf(buf, len, "needs at least %d ranks, this run has %d", k->limits.min_ranks, q->nranks);
    return buf;
  }
  if (k->limits.max_ranks && q->nranks > k->limits.max_ranks) {
    snprintf(buf, len, "serves at most %d ranks, this run has %d", k->limits.max_ranks, q->nranks);
    return buf;
  }
  if (k->limits.single_host && q->multi_host)
    return k->memory == CB_MEM_NCCL
               ? "NCCL's copy-engine collectives serve the ranks of one host, and the ranks span "
                 "several hosts"
               : "uses node-local peer memory, and the ranks span several hosts";
  if (k->limits.across_hosts && !q->multi_host)
    return "composes a kernel of ours within each host with NCCL between hosts: needs ranks on "
           "several hosts (CB_HOSTS simulates them)";
  return NULL;
}

static const char *call_why_not(const cb_kernel *k, const cb_serve_question *q, char *buf,
                                size_t len) {
  const cb_call *call = q->call;
  unsigned placement = call->in_place ? CB_IN_PLACE : CB_OUT_OF_PLACE;
  if (!(k->limits.placements & placement))
    return call->in_place ? "in-place not supported" : "out-of-place not supported";
  if (!(k->limits.dtypes & CB_DTYPE_BIT(call->dtype))) {
    snprintf(buf, len, "%s not supported", cb_dtype_name(call->dtype));
    return buf;
  }
  if (q->shape->reduces && !(k->limits.ops & CB_OP_BIT(call->op))) {
    snprintf(buf, len, "op %s not supported", cb_redop_name(call->op));
    return buf;
  }
  if (k->limits.align &&
      ((uintptr_t)call->send % k->limits.align || (uintptr_t)call->recv % k->limits.align)) {
    snprintf(buf, len, "needs %u-byte aligned buffers", k->limits.align);
    return buf;
  }
  if (k->limits.max_bytes && q->table_bytes > k->limits.max_bytes) {
    char lim[32];
    cb_format_bytes(k->limits.max_bytes, lim, sizeof lim);
    snprintf(buf, len, "above the kernel's %s limit", lim);
    return buf;
  }
  return q->ctx ? row_why_not(k, q, buf, len) : NULL;
}

const char *cb_kernel_why_not(const cb_kernel *k, const cb_serve_question *q, char *buf,
                              size_t len) {
  return q->call ? call_why_not(k, q, buf, len) : world_why_not(k, q, buf, len);
}

void cb_kernel_refuse(cb_setup_reply *reply, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reply->refused, sizeof reply->refused, fmt, ap);
  va_end(ap);
  if (!reply->refused[0]) snprintf(reply->refused, sizeof reply->refused, "refused by its setup");
}

void cb_kernel_note(cb_setup_reply *reply, const char *fmt, ...) {
  size_t used = strlen(reply->note);
  if (used > 0 && used + 2 < sizeof reply->note) {
    memcpy(reply->note + used, "; ", 3);
    used += 2;
  }
  if (used + 1 >= sizeof reply->note) return; /* full */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reply->note + used, sizeof reply->note - used, fmt, ap);
  va_end(ap);
}

int cb_kernel_uses_peer_memory(const cb_kernel *k) {
  return k->memory == CB_MEM_CUDA && (k->limits.single_host || k->limits.across_hosts);
}

/* The run limits of rows of ours that say what their why_not checks in a
 * collective that reduces, and what they check in one that does not: the
 * first of each is the second and the reductions' limits after it. */
static const struct {
  const char *reducing, *copying;
} shape_limits[] = {
    {CB_NCCL_RUN_LIMITS, CB_NCCL_COPY_RUN_LIMITS},
    {CB_HIER_RUN_LIMITS, CB_HIER_COPY_RUN_LIMITS},
};

/* A row's run limits as they apply in a collective of shape: in one that does
 * not reduce, those of shape_limits without the reductions' part (in buf), and
 * what follows it; any other as they are. */
static const char *run_limits_in(const cb_coll_shape *shape, const char *run_limits, char *buf,
                                 size_t len) {
  if (!run_limits || shape->reduces) return run_limits;
  for (size_t i = 0; i < sizeof shape_limits / sizeof shape_limits[0]; i++) {
    const size_t n = strlen(shape_limits[i].reducing);
    if (strncmp(run_limits, shape_limits[i].reducing, n) == 0) {
      snprintf(buf, len, "%s%s", shape_limits[i].copying, run_limits + n);
      return buf;
    }
  }
  return run_limits;
}

static void print_limits(FILE *out, const cb_coll_shape *shape, const cb_kernel *k) {
  const cb_kernel_limits *l = &k->limits;
  char lim[32];
  fprintf(out, "      %s%s", l->placements & CB_OUT_OF_PLACE ? "out-of-place" : "",
          l->placements == (CB_OUT_OF_PLACE | CB_IN_PLACE) ? " and in-place"
          : l->placements == CB_IN_PLACE                   ? "in-place only"
                                                           : " only");
  if (l->max_bytes) {
    cb_format_bytes(l->max_bytes, lim, sizeof lim);
    fprintf(out, "; up to %s", lim);
  }
  if (l->min_ranks && l->max_ranks)
    fprintf(out, "; %d..%d ranks", l->min_ranks, l->max_ranks);
  else if (l->max_ranks)
    fprintf(out, "; at most %d ranks", l->max_ranks);
  else if (l->min_ranks)
    fprintf(out, "; at least %d ranks", l->min_ranks);
  if (l->single_host) fprintf(out, "; one host only");
  if (l->across_hosts) fprintf(out, "; across hosts only, the same number of ranks on each");
  if (cb_kernel_uses_peer_memory(k))
    fprintf(out,
            "; peer memory by %s=auto|ipc|cumem|fabric (default auto: cumem where it can "
            "serve the run, else ipc)",
            CB_PEER_MAPPING_ENV);
  if (l->align) fprintf(out, "; %u-byte aligned buffers", l->align);
  if (l->dtypes != CB_ALL_DTYPES) {
    fprintf(out, "; types:");
    for (int t = 0; t < CB_NUM_DTYPES; t++)
      if (l->dtypes & CB_DTYPE_BIT(t)) fprintf(out, " %s", cb_dtype_name((cb_dtype)t));
  }
  if (l->ops != CB_ALL_OPS) {
    fprintf(out, "; ops:");
    for (int o = 0; o < CB_NUM_OPS; o++)
      if (l->ops & CB_OP_BIT(o)) fprintf(out, " %s", cb_redop_name((cb_redop)o));
  }
  char buf[256];
  const char *run_limits = run_limits_in(shape, k->run_limits, buf, sizeof buf);
  if (run_limits) fprintf(out, "; %s", run_limits);
  fputc('\n', out);
}

/* The kinds of wait (CB_WAITS_*) a mutant build removes or breaks
 * (CMakeLists.txt's COLLBENCH_MUTATE; device/mutation.cuh lists them); 0 in
 * any other build. */
#if defined(CB_MUTATE_SKIP_START_WAIT) || defined(CB_MUTATE_SKIP_END_WAIT)
#define MUTATED_WAITS CB_WAITS_HANDSHAKE
#elif defined(CB_MUTATE_SKIP_LL_POLL) || defined(CB_MUTATE_SINGLE_HALF) ||                         \
    defined(CB_MUTATE_EARLY_TILE_DONE)
#define MUTATED_WAITS CB_WAITS_LL
#elif defined(CB_MUTATE_SKIP_LL_CREDIT) || defined(CB_MUTATE_LATE_CREDIT)
#define MUTATED_WAITS CB_WAITS_LL_CREDIT
#elif defined(CB_MUTATE_SKIP_FIFO_WAIT) || defined(CB_MUTATE_SKIP_FIFO_CREDIT) ||                  \
    defined(CB_MUTATE_CONSUMED_BEFORE_BARRIER) || defined(CB_MUTATE_WRITE_PAST_END)
/* write_past_end: the ring kernels' slices past an output's end */
#define MUTATED_WAITS CB_WAITS_FIFO
#elif defined(CB_MUTATE_DROP_HEAD)
/* drop_head: the scalar loops of the direct kernels (and the ce kernels'
 * own copy by SMs) and of the ring's slices (device/vec.cuh) */
#define MUTATED_WAITS (CB_WAITS_HANDSHAKE | CB_WAITS_FIFO)
#elif defined(CB_MUTATE_SKIP_CE_LANDED)
#define MUTATED_WAITS CB_WAITS_CE_LANDED
#else
#define MUTATED_WAITS 0u
#endif

/* In a mutant build, below a kernel it touches: the line the mutation test
 * (tests/gpu/mutation.sh) finds the kernels to run by. */
static void print_mutant(FILE *out, const cb_kernel *k) {
#ifdef CB_MUTATION
  if (k->waits & MUTATED_WAITS)
    fprintf(out, "      mutant: %s breaks a wait, an ordering or a bound this kernel relies on\n",
            CB_MUTATION);
#else
  (void)out, (void)k;
#endif
}

void cb_kernels_print(FILE *out, const cb_collective *c) {
  char program[64];
  snprintf(program, sizeof program, "%s_perf", c->shape->name);
  cb_kernel_list_heading(out, program);
  const cb_kernel_menu menu = cb_kernels_menu(c, program);
  const int width = cb_kernel_menu_name_width(&menu);
  for (int i = 0; i < c->nkernels; i++) {
    const cb_kernel *k = c->kernels[i];
    const cb_serve_question build = {0}; /* no world yet: what the build and library allow */
    char why[256];
    cb_kernel_list_entry(out, width, k->id, k->name, k->summary,
                         row_why_not(k, &build, why, sizeof why));
    print_limits(out, c->shape, k);
    print_mutant(out, k);
  }
}

void cb_kernel_resources_of(const cb_kernel *k, const cb_kernel_ctx *ctx, const cb_call *call,
                            cb_kernel_resources *out) {
  memset(out, 0, sizeof *out);
  out->reported = 1;
  if (!k->resources) {
    out->reported = 0;
    cb_res_note(out, "the kernel's row does not say");
    return;
  }
  k->resources(ctx, call, out);
  if (out->reported) cb_resources_measure(out, ctx->device);
}
