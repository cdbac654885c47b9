#include "nccl_kernels.h"

#include <stdio.h>

#include <cuda_runtime_api.h>

#include "error.h"
#include "options.h" /* CB_CTA_POLICY_UNSET */

/* ---- availability ------------------------------------------------------- */

#define NO_NCCL "built without NCCL (not found, or COLLBENCH_WITH_NCCL=OFF)"

/* Why NCCL major.minor is needed and not here (headers or library), for
 * what (one phrase), or NULL. */
static const char *needs(int major, int minor, const char *what, char *buf, size_t len) {
  char have[32];
  int want = major * 10000 + minor * 100;
  if (cb_nccl_header_version() < want)
    snprintf(buf, len, "%s needs NCCL %d.%d; built against NCCL %s headers", what, major, minor,
             cb_nccl_version_text(cb_nccl_header_version(), have, sizeof have));
  else if (cb_nccl_library_version() < want)
    snprintf(buf, len, "%s needs NCCL %d.%d; the library loaded is NCCL %s", what, major, minor,
             cb_nccl_version_text(cb_nccl_library_version(), have, sizeof have));
  else
    return NULL;
  return buf;
}

const char *cb_nccl_unavailable(void) {
  return cb_nccl_header_version() ? NULL : NO_NCCL;
}

const char *cb_nccl_sym_unavailable(void) {
  static char why[160]; /* -k list and kernel choice run on one thread */
  if (!cb_nccl_header_version()) return NO_NCCL;
  return needs(2, 27, "symmetric window registration", why, sizeof why);
}

const char *cb_nccl_ce_unavailable(void) {
  static char why[160];
  if (!cb_nccl_header_version()) return NO_NCCL;
  return needs(2, 28, "the zero-CTA policy (copy-engine collectives)", why, sizeof why);
}

const char *cb_nccl_ce_missing(void) {
  return "NCCL has no copy-engine path for this collective (NCCL 2.28 has one for AllGather, "
         "AlltoAll, Gather and Scatter)";
}

const char *cb_nccl_flags_problem(int local_register, int cta_policy, char *buf, size_t len) {
  if (!cb_nccl_header_version()) return NULL; /* kernel 0 is unavailable anyway */
  if (local_register == 1 && needs(2, 19, "-R 1 (ncclCommRegister)", buf, len)) return buf;
  if (local_register == 2 && needs(2, 27, "-R 2 (symmetric windows)", buf, len)) return buf;
  if (cta_policy == 2 && needs(2, 28, "-x 2 (CTA policy zero)", buf, len)) return buf;
  if (cta_policy != CB_CTA_POLICY_UNSET && needs(2, 27, "-x (a CTA policy)", buf, len)) return buf;
  return NULL;
}

/* ---- setup -------------------------------------------------------------- */

#define CTA_POLICY_ZERO 2 /* NCCL_CTA_POLICY_ZERO, whatever the headers define */

void cb_nccl_setup(cb_kernel_ctx *ctx) {
  const cb_nccl_config cfg = {ctx->local_register, ctx->cta_policy};
  cb_nccl_open(ctx, &cfg);
}

void cb_nccl_sym_setup(cb_kernel_ctx *ctx) {
  const cb_nccl_config cfg = {2, CB_CTA_POLICY_UNSET};
  cb_nccl_open(ctx, &cfg);
}

/* NCCL takes its copy-engine path only with a CUDA driver of 12.5 or later
 * (ncclCeImplemented), and otherwise quietly runs SM kernels: the row would
 * then not be what its name says. The driver is the host's, so every rank
 * of a host refuses alike, before any collective call. */
void cb_nccl_ce_setup(cb_kernel_ctx *ctx) {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver < 12050) {
    cb_kernel_refuse(ctx, "the CUDA driver is %d.%d; NCCL's copy-engine collectives need 12.5",
                     driver / 1000, driver % 1000 / 10);
    return;
  }
  const cb_nccl_config cfg = {2, CTA_POLICY_ZERO};
  cb_nccl_open(ctx, &cfg);
}

void cb_nccl_teardown(cb_kernel_ctx *ctx) {
  cb_nccl_close(ctx);
}

/* ---- launches ----------------------------------------------------------- */

#ifndef CB_HAVE_NCCL

/* Never called: the harness does not launch an unavailable kernel. */
static void no_nccl(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  (void)ctx, (void)call, (void)stream;
  cb_fatal("NCCL kernel launched in a build without NCCL");
}
void cb_nccl_all_reduce(cb_kernel_ctx *c, const cb_call *k, cudaStream_t s) {
  no_nccl(c, k, s);
}
void cb_nccl_all_gather(cb_kernel_ctx *c, const cb_call *k, cudaStream_t s) {
  no_nccl(c, k, s);
}
void cb_nccl_reduce_scatter(cb_kernel_ctx *c, const cb_call *k, cudaStream_t s) {
  no_nccl(c, k, s);
}
void cb_nccl_alltoall(cb_kernel_ctx *c, const cb_call *k, cudaStream_t s) {
  no_nccl(c, k, s);
}
void cb_nccl_sendrecv(cb_kernel_ctx *c, const cb_call *k, cudaStream_t s) {
  no_nccl(c, k, s);
}
void cb_nccl_broadcast(cb_kernel_ctx *c, const cb_call *k, cudaStream_t s) {
  no_nccl(c, k, s);
}
void cb_nccl_aggregate(cb_kernel_ctx *ctx, int begin) {
  (void)ctx, (void)begin;
  cb_fatal("NCCL kernel launched in a build without NCCL");
}

#else

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#pragma weak ncclAlltoAll
#endif

static const ncclDataType_t nccl_types[CB_NUM_DTYPES] = {
    [CB_INT8] = ncclInt8,         [CB_UINT8] = ncclUint8,   [CB_INT32] = ncclInt32,
    [CB_UINT32] = ncclUint32,     [CB_INT64] = ncclInt64,   [CB_UINT64] = ncclUint64,
    [CB_HALF] = ncclFloat16,      [CB_FLOAT] = ncclFloat32, [CB_DOUBLE] = ncclFloat64,
    [CB_BFLOAT16] = ncclBfloat16,
};

static const ncclRedOp_t nccl_ops[CB_NUM_OPS] = {
    [CB_SUM] = ncclSum, [CB_PROD] = ncclProd, [CB_MIN] = ncclMin,
    [CB_MAX] = ncclMax, [CB_AVG] = ncclAvg,
};

static cb_nccl_state *state_of(cb_kernel_ctx *ctx) {
  return (cb_nccl_state *)ctx->state;
}

/* Every launch is watched: a collective may connect to its peers on the
 * host the first time it runs with a protocol (NCCL's runtime connection). */
void cb_nccl_all_reduce(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = state_of(ctx);
  CB_NCCL_WATCHED(st, "ncclAllReduce",
                  ncclAllReduce(c->send, c->recv, c->count, nccl_types[c->dtype], nccl_ops[c->op],
                                st->comm, s));
}

void cb_nccl_all_gather(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = state_of(ctx);
  CB_NCCL_WATCHED(st, "ncclAllGather",
                  ncclAllGather(c->send, c->recv, c->count, nccl_types[c->dtype], st->comm, s));
}

void cb_nccl_reduce_scatter(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = state_of(ctx);
  CB_NCCL_WATCHED(st, "ncclReduceScatter",
                  ncclReduceScatter(c->send, c->recv, c->count, nccl_types[c->dtype],
                                    nccl_ops[c->op], st->comm, s));
}

void cb_nccl_broadcast(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = state_of(ctx);
  CB_NCCL_WATCHED(
      st, "ncclBroadcast",
      ncclBroadcast(c->send, c->recv, c->count, nccl_types[c->dtype], c->root, st->comm, s));
}

/* Point-to-point calls, grouped; the group is watched as one call (its end
 * is where NCCL may wait for peers). */
static void group_start(cb_nccl_state *st) {
  cb_watchdog_arm(st->timeout_s, "ncclGroupStart..ncclGroupEnd", st->who);
  CB_NCCL(ncclGroupStart());
}

static void group_end(void) {
  CB_NCCL(ncclGroupEnd());
  cb_watchdog_disarm();
}

/* -m > 1: the iteration's calls in one group, as nccl-tests' -m. NCCL
 * waits, if anywhere, in ncclGroupEnd (where the group's calls launch):
 * that end is watched. The calls inside may open groups of their own
 * (send/receive), which nest. */
void cb_nccl_aggregate(cb_kernel_ctx *ctx, int begin) {
  cb_nccl_state *st = state_of(ctx);
  if (begin)
    CB_NCCL(ncclGroupStart());
  else
    CB_NCCL_WATCHED(st, "ncclGroupEnd", ncclGroupEnd());
}

/* As nccl-tests 2.19: ncclAlltoAll where the library has it (NCCL 2.28,
 * and the only way to its copy-engine path), else grouped send/receive. */
void cb_nccl_alltoall(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = state_of(ctx);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  if (ncclAlltoAll && cb_nccl_library_version() >= NCCL_VERSION(2, 28, 0)) {
    CB_NCCL_WATCHED(st, "ncclAlltoAll",
                    ncclAlltoAll(c->send, c->recv, c->count, nccl_types[c->dtype], st->comm, s));
    return;
  }
#endif
  size_t block = c->count * cb_dtype_size(c->dtype);
  group_start(st);
  for (int r = 0; r < ctx->nranks; r++) {
    CB_NCCL(ncclSend((const char *)c->send + r * block, c->count, nccl_types[c->dtype], r, st->comm,
                     s));
    CB_NCCL(ncclRecv((char *)c->recv + r * block, c->count, nccl_types[c->dtype], r, st->comm, s));
  }
  group_end();
}

void cb_nccl_sendrecv(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = state_of(ctx);
  int next = (ctx->rank + 1) % ctx->nranks, prev = (ctx->rank - 1 + ctx->nranks) % ctx->nranks;
  group_start(st);
  CB_NCCL(ncclSend(c->send, c->count, nccl_types[c->dtype], next, st->comm, s));
  CB_NCCL(ncclRecv(c->recv, c->count, nccl_types[c->dtype], prev, st->comm, s));
  group_end();
}

#endif
