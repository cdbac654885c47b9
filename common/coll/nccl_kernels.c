#include "nccl_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "error.h"
#include "nccl_call.h"
#include "options.h" /* CB_CTA_POLICY_UNSET */
#include "tunables.h"

CB_REGISTER_TUNABLES(nccl_ce_scatter,
                     CB_TUNABLE_NUMBER("CB_NCCL_CE_SCATTER_IN_PLACE", 0, 1, 1, 0, CB_TUNE_AGREE,
                                       "1: scatter -k nccl-ce runs in place with a root other "
                                       "than 0 on NCCL <= 2.28.3, which gets it wrong"));

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

/* Kernel 0's -R and -x (cb_nccl_use_flags): its setup opens its communicator
 * by them. */
static cb_nccl_config kernel0_config = {0, CB_CTA_POLICY_UNSET, 0};

void cb_nccl_use_flags(int local_register, int cta_policy) {
  kernel0_config = (cb_nccl_config){local_register, cta_policy, 0};
}

const char *cb_nccl_flags_problem(int local_register, int cta_policy, char *buf, size_t len) {
  if (!cb_nccl_header_version()) return NULL; /* kernel 0 is unavailable anyway */
  if (local_register == 1 && needs(2, 19, "-R 1 (ncclCommRegister)", buf, len)) return buf;
  if (local_register == 2 && needs(2, 27, "-R 2 (symmetric windows)", buf, len)) return buf;
  if (cta_policy == 2 && needs(2, 28, "-x 2 (CTA policy zero)", buf, len)) return buf;
  if (cta_policy != CB_CTA_POLICY_UNSET && needs(2, 27, "-x (a CTA policy)", buf, len)) return buf;
  return NULL;
}

/* ---- datatypes and ops ---------------------------------------------------- */

#define FP8_REDUCE_ARCH 90 /* NCCL reduces fp8 from compute capability 9.0 on */

static int min_arch_of(const cb_kernel_ctx *ctx);

static int is_fp8(cb_dtype t) {
  return t == CB_F8E4M3 || t == CB_F8E5M2;
}

const char *cb_nccl_call_unavailable(const cb_kernel_ctx *ctx, const cb_coll_shape *shape,
                                     const cb_call *call) {
  static _Thread_local char why[192]; /* every rank's thread asks */
  if (is_fp8(call->dtype)) {
    char what[32];
    snprintf(what, sizeof what, "%s", cb_dtype_name(call->dtype));
    if (needs(2, 24, what, why, sizeof why)) return why;
    const int arch = min_arch_of(ctx);
    if (shape->reduces && arch < FP8_REDUCE_ARCH) {
      snprintf(why, sizeof why,
               "NCCL reduces %s on GPUs of compute capability 9.0 and later only; this run's "
               "oldest GPU is %d.%d",
               what, arch / 10, arch % 10);
      return why;
    }
  }
  if (shape->reduces && call->op == CB_MULSUM &&
      needs(2, 11, "mulsum (ncclRedOpCreatePreMulSum)", why, sizeof why))
    return why;
  if (cb_nccl_one_rank_fp8_premul_fails(cb_nccl_library_version(), ctx->nranks, shape, call))
    return "NCCL <= 2.29.7 cannot average or mulsum fp8 on one rank (ncclLaunchOneRank has no "
           "fp8 case in host code: invalid argument)";
  return NULL;
}

#define ONE_RANK_FP8_LAST_BAD 22907 /* NCCL 2.29.7, the newest source read */

/* With one rank NCCL reduces nothing: it copies, except for avg and PreMulSum
 * (our mulsum), which scale the input in oneRankReduce. Its host-side switch
 * on the datatype (src/device/onerank.cu) guards the fp8 cases with
 * __CUDA_ARCH__ >= 900, which host code never defines, so fp8 falls to the
 * default: ncclInvalidArgument. Seen with NCCL 2.28.3 on an H200 (all_reduce,
 * reduce and reduce_scatter -g 1 -d all -o all), and the guard is unchanged up
 * to 2.29.7. A later library is tried: it may have it fixed. */
int cb_nccl_one_rank_fp8_premul_fails(int library_version, int nranks, const cb_coll_shape *shape,
                                      const cb_call *call) {
  const int scales = call->op == CB_AVG || call->op == CB_MULSUM;
  return nranks == 1 && shape->reduces && is_fp8(call->dtype) && scales &&
         library_version <= ONE_RANK_FP8_LAST_BAD;
}

#define CE_SCATTER_LAST_BAD 22803 /* NCCL 2.28.3, the newest library seen to be wrong */

int cb_nccl_ce_scatter_is_wrong(int library_version, const cb_call *call) {
  return call->in_place && call->root != 0 && library_version <= CE_SCATTER_LAST_BAD;
}

const char *cb_nccl_ce_scatter_call_unavailable(const cb_kernel_ctx *ctx,
                                                const cb_coll_shape *shape, const cb_call *call) {
  const char *why = cb_nccl_call_unavailable(ctx, shape, call);
  if (why || !cb_nccl_ce_scatter_is_wrong(cb_nccl_library_version(), call)) return why;
  if (cb_tunable("CB_NCCL_CE_SCATTER_IN_PLACE")) return NULL;
  return "NCCL <= 2.28.3's copy-engine scatter is wrong in place when the root is not rank 0 "
         "(nccl-tests -R 2 -x 2 too); CB_NCCL_CE_SCATTER_IN_PLACE=1 runs it";
}

/* ---- each row's answer (cb_kernel.why_not) ------------------------------ */

/* Of the build and library (q->call NULL), else of the call. */
#define NCCL_WHY_NOT(name, build_why_not, call_why_not)                                            \
  const char *name(const cb_serve_question *q, char *buf, size_t len) {                            \
    (void)buf, (void)len; /* the answers are NCCL's own texts */                                   \
    return q->call ? call_why_not(q->ctx, q->shape, q->call) : build_why_not();                    \
  }
NCCL_WHY_NOT(cb_nccl_why_not, cb_nccl_unavailable, cb_nccl_call_unavailable)
NCCL_WHY_NOT(cb_nccl_sym_why_not, cb_nccl_sym_unavailable, cb_nccl_call_unavailable)
NCCL_WHY_NOT(cb_nccl_ce_why_not, cb_nccl_ce_unavailable, cb_nccl_call_unavailable)
NCCL_WHY_NOT(cb_nccl_ce_scatter_why_not, cb_nccl_ce_unavailable,
             cb_nccl_ce_scatter_call_unavailable)

/* ---- setup -------------------------------------------------------------- */

#define CTA_POLICY_ZERO 2 /* NCCL_CTA_POLICY_ZERO, whatever the headers define */

/* The communicator (cb_nccl_open), and the run's oldest GPU, agreed by every
 * rank, for cb_nccl_call_unavailable. */
static void open_comm(cb_kernel_ctx *ctx, const cb_nccl_config *cfg);

void cb_nccl_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  (void)reply; /* NCCL's own errors end the run */
  open_comm(ctx, &kernel0_config);
}

void cb_nccl_sym_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  (void)reply;
  const cb_nccl_config cfg = {2, CB_CTA_POLICY_UNSET, 0};
  open_comm(ctx, &cfg);
}

/* NCCL takes its copy-engine path only with a CUDA driver of 12.5 or later
 * (ncclCeImplemented), and otherwise quietly runs SM kernels: the row would
 * then not be what its name says. The driver is the host's, so every rank
 * of a host refuses alike, before any collective call. */
void cb_nccl_ce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver < 12050) {
    cb_kernel_refuse(reply, "the CUDA driver is %d.%d; NCCL's copy-engine collectives need 12.5",
                     driver / 1000, driver % 1000 / 10);
    return;
  }
  const cb_nccl_config cfg = {2, CTA_POLICY_ZERO, 0};
  open_comm(ctx, &cfg);
}

void cb_nccl_rail_setup(cb_kernel_ctx *ctx, int ranks_per_host) {
  const cb_nccl_config cfg = {0, CB_CTA_POLICY_UNSET, ranks_per_host};
  open_comm(ctx, &cfg);
}

void cb_nccl_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r) {
  static const char *const bounds[] = {"NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_MIN_NCHANNELS",
                                       "NCCL_MAX_NCHANNELS"};
  static const char *const policies[3] = {"default", "efficiency", "zero"};
  (void)call;
  r->reported = 0;
  cb_res_note(r, "NCCL does not report the CTAs it launches");
#ifdef CB_HAVE_NCCL
  const cb_nccl_state *st = (const cb_nccl_state *)ctx->state;
  if (st && st->cta_policy >= 0 && st->cta_policy < 3)
    cb_res_note(r, "CTA policy %s%s", policies[st->cta_policy],
                st->cta_policy == CTA_POLICY_ZERO ? " (copy engines where NCCL has that path)"
                                                  : "");
#else
  (void)ctx, (void)policies;
#endif
  for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
    const char *v = getenv(bounds[i]);
    if (v && *v) cb_res_note(r, "%s=%s asked", bounds[i], v);
  }
}

void cb_nccl_teardown(cb_kernel_ctx *ctx) {
  cb_nccl_close(ctx);
}

/* ---- what every collective's NCCL call is written with (nccl_call.h) ------ */

#ifndef CB_HAVE_NCCL

/* Never called: the harness neither sets up nor launches an unavailable kernel. */
static void open_comm(cb_kernel_ctx *ctx, const cb_nccl_config *cfg) {
  cb_nccl_open(ctx, cfg);
}
static int min_arch_of(const cb_kernel_ctx *ctx) {
  (void)ctx;
  return 0;
}

void cb_nccl_absent(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  (void)ctx, (void)call, (void)stream;
  cb_fatal("NCCL kernel launched in a build without NCCL");
}
void cb_nccl_aggregate(cb_kernel_ctx *ctx, int begin) {
  (void)ctx, (void)begin;
  cb_fatal("NCCL kernel launched in a build without NCCL");
}

#else

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 11, 0)
#pragma weak ncclRedOpCreatePreMulSum
#pragma weak ncclRedOpDestroy
#endif

/* fp8 only with headers of NCCL 2.24 or later (cb_nccl_call_unavailable
 * skips fp8 calls otherwise, so the missing entries are never read). */
static const ncclDataType_t nccl_types[CB_NUM_DTYPES] = {
    [CB_INT8] = ncclInt8,         [CB_UINT8] = ncclUint8,       [CB_INT32] = ncclInt32,
    [CB_UINT32] = ncclUint32,     [CB_INT64] = ncclInt64,       [CB_UINT64] = ncclUint64,
    [CB_HALF] = ncclFloat16,      [CB_FLOAT] = ncclFloat32,     [CB_DOUBLE] = ncclFloat64,
    [CB_BFLOAT16] = ncclBfloat16,
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    [CB_F8E4M3] = ncclFloat8e4m3, [CB_F8E5M2] = ncclFloat8e5m2,
#endif
};

ncclDataType_t cb_nccl_type(cb_dtype t) {
  return nccl_types[t];
}

cb_nccl_state *cb_nccl_state_of(cb_kernel_ctx *ctx) {
  return (cb_nccl_state *)ctx->state;
}

static void open_comm(cb_kernel_ctx *ctx, const cb_nccl_config *cfg) {
  cb_nccl_open(ctx, cfg);
  int major = 0, minor = 0;
  CB_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ctx->device));
  CB_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ctx->device));
  int mine = 10 * major + minor, *all = malloc((size_t)ctx->nranks * sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(ctx->world, &mine, sizeof mine, all);
  int oldest = all[0];
  for (int r = 1; r < ctx->nranks; r++) oldest = all[r] < oldest ? all[r] : oldest;
  free(all);
  cb_nccl_state_of(ctx)->min_arch = oldest;
}

static int min_arch_of(const cb_kernel_ctx *ctx) {
  return ((const cb_nccl_state *)ctx->state)->min_arch;
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 11, 0)
/* Rank `rank`'s mulsum scalar as a value of the datatype, in the bytes
 * ncclRedOpCreatePreMulSum reads (ncclScalarHostImmediate): 1 or 2 as an
 * integer, or the IEEE encoding of 1.0 or 2.0 (half 0x3C00/0x4000,
 * bfloat16 0x3F80/0x4000, e4m3 0x38/0x40, e5m2 0x3C/0x40). */
static uint64_t mulsum_scalar_bits(cb_dtype t, int rank) {
  const int two = cb_mulsum_scalar(rank) == 2;
  uint64_t bits = 0;
  float f = (float)cb_mulsum_scalar(rank);
  double d = f;
  switch (t) {
  case CB_HALF:
    return two ? 0x4000 : 0x3C00;
  case CB_BFLOAT16:
    return two ? 0x4000 : 0x3F80;
  case CB_F8E4M3:
    return two ? 0x40 : 0x38;
  case CB_F8E5M2:
    return two ? 0x40 : 0x3C;
  case CB_FLOAT:
    memcpy(&bits, &f, sizeof f);
    return bits;
  case CB_DOUBLE:
    memcpy(&bits, &d, sizeof d);
    return bits;
  default: /* integers, little-endian: the value's low bytes */
    return (uint64_t)cb_mulsum_scalar(rank);
  }
}
#endif

/* The NCCL op of a call: NCCL's own, or for mulsum a PreMulSum op with this
 * rank's scalar, created for the call and destroyed after it is enqueued
 * (op_end), as nccl-tests does around every call (NCCL copies the op's
 * state into the call when it is enqueued). */
ncclRedOp_t cb_nccl_op_begin(cb_nccl_state *st, const cb_kernel_ctx *ctx, const cb_call *c) {
  switch (c->op) {
  case CB_SUM:
    return ncclSum;
  case CB_PROD:
    return ncclProd;
  case CB_MIN:
    return ncclMin;
  case CB_MAX:
    return ncclMax;
  case CB_AVG:
    return ncclAvg;
  default:
    break;
  }
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 11, 0)
  ncclRedOp_t op;
  uint64_t scalar = mulsum_scalar_bits(c->dtype, ctx->rank);
  CB_NCCL(ncclRedOpCreatePreMulSum(&op, &scalar, nccl_types[c->dtype], ncclScalarHostImmediate,
                                   st->comm));
  return op;
#else
  (void)st, (void)ctx;
  cb_fatal("mulsum needs NCCL 2.11 headers"); /* cb_nccl_call_unavailable skips it */
#endif
}

void cb_nccl_op_end(cb_nccl_state *st, ncclRedOp_t op, const cb_call *c) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 11, 0)
  if (c->op == CB_MULSUM) CB_NCCL(ncclRedOpDestroy(op, st->comm));
#else
  (void)st, (void)op, (void)c;
#endif
}

/* Point-to-point calls, grouped; the group is watched as one call (its end
 * is where NCCL may wait for peers). */
void cb_nccl_group_start(cb_nccl_state *st) {
  cb_watchdog_arm(st->timeout_s, "ncclGroupStart..ncclGroupEnd", st->who);
  CB_NCCL(ncclGroupStart());
}

void cb_nccl_group_end(void) {
  CB_NCCL(ncclGroupEnd());
  cb_watchdog_disarm();
}

/* -m > 1: the iteration's calls in one group, as nccl-tests' -m. NCCL
 * waits, if anywhere, in ncclGroupEnd (where the group's calls launch):
 * that end is watched. The calls inside may open groups of their own
 * (send/receive), which nest. */
void cb_nccl_aggregate(cb_kernel_ctx *ctx, int begin) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
  if (begin)
    CB_NCCL(ncclGroupStart());
  else
    CB_NCCL_WATCHED(st, "ncclGroupEnd", ncclGroupEnd());
}

/* Gather (to_root) or scatter, as nccl-tests 2.19 calls them: NCCL's own
 * call (fn, named name) from 2.28 on, the only way to its copy-engine path;
 * before, grouped point-to-point calls between the root and every rank,
 * the root included (block r of the root's buffer is rank r's). Nothing at
 * all for 0 elements, as nccl-tests. */
void cb_nccl_rooted_call(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s, cb_nccl_rooted_fn fn,
                         const char *name, int to_root) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
  const ncclDataType_t t = cb_nccl_type(c->dtype);
  if (c->count == 0) return;
  if (fn) {
    CB_NCCL_WATCHED(st, name, fn(c->send, c->recv, c->count, t, c->root, st->comm, s));
    return;
  }
  const size_t block = c->count * cb_dtype_size(c->dtype);
  cb_nccl_group_start(st);
  if (to_root) CB_NCCL(ncclSend(c->send, c->count, t, c->root, st->comm, s));
  for (int r = 0; ctx->rank == c->root && r < ctx->nranks; r++) {
    if (to_root)
      CB_NCCL(ncclRecv((char *)c->recv + r * block, c->count, t, r, st->comm, s));
    else
      CB_NCCL(ncclSend((const char *)c->send + r * block, c->count, t, r, st->comm, s));
  }
  if (!to_root) CB_NCCL(ncclRecv(c->recv, c->count, t, c->root, st->comm, s));
  cb_nccl_group_end();
}

#endif
