/* NCCL's own collectives as kernels of every program, the references our
 * kernels are measured against, on the same buffers, with the same timer:
 *
 *   nccl (0)      NCCL as nccl-tests runs it: buffers from ncclMemAlloc,
 *                 registered as -R says, CTA policy as -x says (by default
 *                 plain buffers and NCCL's own policy)
 *   nccl-sym (6)  both buffers in symmetric windows (nccl-tests -R 2)
 *   nccl-ce (7)   symmetric windows and the zero-CTA policy (nccl-tests
 *                 -R 2 -x 2): NCCL 2.28 moves AllGather and AlltoAll (and
 *                 Gather, Scatter) with copy engines then; for the other
 *                 collectives the row is listed unavailable, with the reason
 *
 * A program gives its rows its own NCCL call (src/<program>.c, written with
 * nccl_call.h) as the launch of every variant. Built with or without NCCL,
 * and against headers older than what a variant needs; a variant the headers or the library
 * (ncclGetVersion) cannot serve lists itself unavailable, with the versions. */
#ifndef CB_NCCL_KERNELS_H
#define CB_NCCL_KERNELS_H

#include <stddef.h>

#include "catalogue.h"
#include "collective.h"
#include "nccl_comm.h" /* cb_nccl_header_version, cb_nccl_library_version */

#ifdef __cplusplus
extern "C" {
#endif

/* NULL when the variant can run with this build and library, else why not. */
const char *cb_nccl_unavailable(void);
const char *cb_nccl_sym_unavailable(void);
const char *cb_nccl_ce_unavailable(void);
/* Why nccl-ce never runs in collectives without a copy-engine path in NCCL. */
#define CB_NCCL_CE_MISSING                                                                         \
  "NCCL has no copy-engine path for this collective (NCCL 2.28 has one for AllGather, "            \
  "AlltoAll, Gather and Scatter)"

/* nccl-tests' -R and -x, for kernel 0 (nccl) alone: its setup opens its
 * communicator by them (nccl-sym and nccl-ce have their own). Called once,
 * before any setup. */
void cb_nccl_use_flags(int local_register, int cta_policy);

/* Why this build and library cannot run kernel 0 with nccl-tests' -R r and
 * -x x (x: CB_CTA_POLICY_UNSET when not given), or NULL; buf holds the text. */
const char *cb_nccl_flags_problem(int local_register, int cta_policy, char *buf, size_t len);

/* Why NCCL, as set up (ctx), cannot serve the call, or NULL: fp8 needs NCCL
 * 2.24 (headers and library) and, in a collective that reduces, GPUs of
 * compute capability 9.0 or later on every rank (NCCL refuses it below:
 * "FP8 reduction support begins with sm90 capable devices"); mulsum needs
 * ncclRedOpCreatePreMulSum (NCCL 2.11); fp8 avg and mulsum fail on one rank
 * (cb_nccl_one_rank_fp8_premul_fails). The same answer on every rank. */
const char *cb_nccl_call_unavailable(const cb_kernel_ctx *ctx, const cb_coll_shape *shape,
                                     const cb_call *call);
#define CB_NCCL_COPY_RUN_LIMITS "f8e4m3 f8e5m2 with NCCL >= 2.24"
#define CB_NCCL_RUN_LIMITS                                                                         \
  CB_NCCL_COPY_RUN_LIMITS " (reducing: sm_90 GPUs); mulsum with NCCL >= 2.11; fp8 avg and mulsum " \
                          "not on one rank (NCCL <= 2.29.7)"
/* (In a collective that does not reduce, -k list prints CB_NCCL_COPY_RUN_LIMITS
 * for CB_NCCL_RUN_LIMITS: what why_not checks there, kernel_table.c.) */

/* Whether NCCL (library_version) fails the call with invalid argument at
 * nranks ranks: a reduction of fp8 by avg or mulsum on one rank, up to NCCL
 * 2.29.7 (nccl_kernels.c says why). */
int cb_nccl_one_rank_fp8_premul_fails(int library_version, int nranks, const cb_coll_shape *shape,
                                      const cb_call *call);

/* cb_nccl_call_unavailable, and a known NCCL bug: NCCL 2.28.3's copy-engine
 * scatter (symmetric windows, CTA policy zero) leaves a non-root rank's block
 * wrong in place when the root is not rank 0 -- nccl-tests 2.19.6
 * `scatter_perf -R 2 -x 2 -r 1` shows the same wrong values
 * (docs/nccl-variants.md, "Known NCCL bugs"). Skipped for
 * libraries up to 2.28.3, with that reason, unless CB_NCCL_CE_SCATTER_IN_PLACE=1 asks to
 * see it. */
int cb_nccl_ce_scatter_is_wrong(int library_version, const cb_call *call);
const char *cb_nccl_ce_scatter_call_unavailable(const cb_kernel_ctx *ctx,
                                                const cb_coll_shape *shape, const cb_call *call);
#define CB_NCCL_CE_SCATTER_RUN_LIMITS                                                              \
  CB_NCCL_RUN_LIMITS "; in place with root != 0 only with NCCL > 2.28.3 (its copy-engine "         \
                     "scatter is wrong there)"

/* Each row's why_not (collective.h): the variant's availability (above)
 * for the build, and the per-call check of its row for a call. */
const char *cb_nccl_why_not(const cb_serve_question *q, char *buf, size_t len);
const char *cb_nccl_sym_why_not(const cb_serve_question *q, char *buf, size_t len);
const char *cb_nccl_ce_why_not(const cb_serve_question *q, char *buf, size_t len);
const char *cb_nccl_ce_scatter_why_not(const cb_serve_question *q, char *buf, size_t len);

/* The rows' resources (collective.h): NCCL does not report the CTAs it
 * launches, so what is known is a note: the communicator's CTA policy and
 * the bounds asked of NCCL through its environment (NCCL_MIN_CTAS,
 * NCCL_MAX_CTAS, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS), which NCCL may
 * not reach. */
void cb_nccl_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r);

/* Setups, called on every rank together: the communicator of each variant. */
void cb_nccl_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply);
void cb_nccl_sym_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply);
void cb_nccl_ce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply);
/* A hierarchical kernel's NCCL part (hier.h): this rank's rail
 * communicator, plain buffers (cb_nccl_config.ranks_per_host); torn down
 * by cb_nccl_teardown. */
void cb_nccl_rail_setup(cb_kernel_ctx *ctx, int ranks_per_host);
void cb_nccl_teardown(cb_kernel_ctx *ctx);
/* -m: the iteration's calls in one ncclGroupStart/ncclGroupEnd. */
void cb_nccl_aggregate(cb_kernel_ctx *ctx, int begin);

/* One NCCL row: its catalogue kind, one line for -k list, the launch of its
 * collective, the placements it is validated in, its answer (why_not_: the
 * variant's availability and per-call check; run_limits_ names the latter)
 * and setup, and why it never runs in its program (unavailable_, or NULL).
 * NCCL needs a GPU per rank; copy engines move data within a node only. */
#define CB_NCCL_ROW(name_, summary_, launch_, placements_, why_not_, run_limits_, setup_,          \
                    one_host_, unavailable_)                                                       \
  {                                                                                                \
    .name = name_, .summary = summary_,                                                            \
    .limits = {.placements = placements_,                                                          \
               .dtypes = CB_ALL_DTYPES,                                                            \
               .ops = CB_ALL_OPS,                                                                  \
               .single_host = one_host_,                                                           \
               .gpu_per_rank = 1},                                                                 \
    .memory = CB_MEM_NCCL, .why_not = why_not_, .run_limits = run_limits_, .setup = setup_,        \
    .teardown = cb_nccl_teardown, .launch = launch_, .aggregate = cb_nccl_aggregate,               \
    .resources = cb_nccl_resources, .unavailable = unavailable_                                    \
  }

/* Kernel 0: NCCL's call (summary_ says which) on -R/-x buffers. */
#define CB_NCCL_KERNEL_PLACED(summary_, launch_, placements_)                                      \
  CB_NCCL_ROW("nccl", summary_, launch_, placements_, cb_nccl_why_not, CB_NCCL_RUN_LIMITS,         \
              cb_nccl_setup, 0, NULL)
#define CB_NCCL_KERNEL(summary_, launch_)                                                          \
  CB_NCCL_KERNEL_PLACED(summary_, launch_, CB_BOTH_PLACEMENTS)

/* Kernel 6: call_ (the NCCL function's name) on symmetric windows. */
#define CB_NCCL_SYM_KERNEL(call_, launch_, placements_)                                            \
  CB_NCCL_ROW("nccl-sym",                                                                          \
              "NCCL " call_ ", both buffers registered as symmetric windows "                      \
              "(nccl-tests -R 2)",                                                                 \
              launch_, placements_, cb_nccl_sym_why_not, CB_NCCL_RUN_LIMITS, cb_nccl_sym_setup, 0, \
              NULL)

/* Kernel 7 where NCCL has a copy-engine path for the collective ... */
#define CB_NCCL_CE_SUMMARY(call_)                                                                  \
  "NCCL " call_ " on copy engines: symmetric windows and CTA policy zero (nccl-tests -R 2 -x 2)"
#define CB_NCCL_CE_KERNEL(call_, launch_, placements_)                                             \
  CB_NCCL_ROW("nccl-ce", CB_NCCL_CE_SUMMARY(call_), launch_, placements_, cb_nccl_ce_why_not,      \
              CB_NCCL_RUN_LIMITS, cb_nccl_ce_setup, 1, NULL)
/* ... scatter's, with NCCL 2.28.3's in-place bug skipped (see above) ... */
#define CB_NCCL_CE_SCATTER_KERNEL(call_, launch_, placements_)                                     \
  CB_NCCL_ROW("nccl-ce", CB_NCCL_CE_SUMMARY(call_), launch_, placements_,                          \
              cb_nccl_ce_scatter_why_not, CB_NCCL_CE_SCATTER_RUN_LIMITS, cb_nccl_ce_setup, 1,      \
              NULL)
/* ... and where it has none: listed, unavailable, with the reason. */
#define CB_NCCL_NO_CE_KERNEL(call_, launch_, placements_)                                          \
  CB_NCCL_ROW("nccl-ce",                                                                           \
              "NCCL " call_ " with symmetric windows and CTA policy zero "                         \
              "(nccl-tests -R 2 -x 2)",                                                            \
              launch_, placements_, cb_nccl_ce_why_not, CB_NCCL_RUN_LIMITS, cb_nccl_ce_setup, 1,   \
              CB_NCCL_CE_MISSING)

/* A program's three NCCL rows, static, registered as kernels of collective_
 * (a bare name: all_reduce): nccl (kernel 0, its -k list line summary_ and
 * about_ what docs/kernels.md says of it), nccl_sym (6) and nccl_ce (7),
 * which name call_ (the NCCL function); ce_row_ is the nccl-ce macro above
 * that fits the collective (CB_NCCL_CE_KERNEL, CB_NCCL_CE_SCATTER_KERNEL or
 * CB_NCCL_NO_CE_KERNEL). All three launch the program's call launch_ (written
 * with nccl_call.h) and are validated in placements_; in a build without
 * NCCL, where that call is not compiled, they launch cb_nccl_absent
 * (nccl_call.h). */
#define CB_NCCL_ROWS(collective_, summary_, about_, call_, launch_, placements_, ce_row_)          \
  static const cb_kernel nccl =                                                                    \
      CB_NCCL_KERNEL_PLACED(summary_, CB_NCCL_LAUNCH(launch_), placements_);                       \
  static const cb_kernel nccl_sym =                                                                \
      CB_NCCL_SYM_KERNEL(call_, CB_NCCL_LAUNCH(launch_), placements_);                             \
  static const cb_kernel nccl_ce = ce_row_(call_, CB_NCCL_LAUNCH(launch_), placements_);           \
  CB_REGISTER_KERNEL(collective_, nccl, about_);                                                   \
  CB_REGISTER_KERNEL(collective_, nccl_sym, CB_NCCL_SYM_ABOUT);                                    \
  CB_REGISTER_KERNEL(collective_, nccl_ce, CB_NCCL_CE_ABOUT)
/* What docs/kernels.md says of nccl-sym and nccl-ce, alike in every program. */
#define CB_NCCL_SYM_ABOUT                                                                          \
  "NCCL's call with both buffers registered as symmetric windows (nccl-tests `-R 2`; NCCL ≥ "    \
  "2.27)"
#define CB_NCCL_CE_ABOUT                                                                           \
  "NCCL's call with symmetric windows and the zero-CTA policy (nccl-tests `-R 2 -x 2`; NCCL ≥ "  \
  "2.28): copy engines move the data in all_gather, alltoall, gather and scatter; listed "         \
  "unavailable, with the reason, in the others, where NCCL has no copy-engine path"
#ifdef CB_HAVE_NCCL
#define CB_NCCL_LAUNCH(launch_) launch_
#else
#define CB_NCCL_LAUNCH(launch_) cb_nccl_absent
#endif

#ifdef __cplusplus
}
#endif

#endif
