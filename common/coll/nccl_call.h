/* What a collective's NCCL call (its launch in the NCCL rows, nccl_kernels.h)
 * is written with. Each program writes its own call in src/<program>.c, as
 * nccl-tests 2.19 makes it, from these pieces of nccl_kernels.c and
 * CB_NCCL_WATCHED (nccl_comm.h), which every collective call is made in: a
 * collective may connect to its peers on the host the first time it runs
 * with a protocol (NCCL's runtime connection). The pieces: this rank's
 * communicator, NCCL's datatype and op for a call (mulsum: a PreMulSum op made
 * for the call), point-to-point groups watched as one call, and the rooted
 * call gather and scatter share. In a build without NCCL the call is
 * cb_nccl_absent, which the harness never launches (the rows are
 * unavailable). */
#ifndef CB_NCCL_CALL_H
#define CB_NCCL_CALL_H

#include <cuda_runtime_api.h>

#include "collective.h"
#include "nccl_comm.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef CB_HAVE_NCCL
/* This rank's communicator and what its setup recorded (ctx->state). */
cb_nccl_state *cb_nccl_state_of(cb_kernel_ctx *ctx);
/* NCCL's datatype for ours (fp8 only with NCCL 2.24 headers: the rows skip
 * fp8 calls otherwise, cb_nccl_call_unavailable). */
ncclDataType_t cb_nccl_type(cb_dtype t);
/* The NCCL op of a call: NCCL's own, or for mulsum a PreMulSum op with this
 * rank's scalar, created for the call and destroyed after it is enqueued
 * (cb_nccl_op_end), as nccl-tests does around every call (NCCL copies the
 * op's state into the call when it is enqueued). */
ncclRedOp_t cb_nccl_op_begin(cb_nccl_state *st, const cb_kernel_ctx *ctx, const cb_call *c);
void cb_nccl_op_end(cb_nccl_state *st, ncclRedOp_t op, const cb_call *c);
/* A reducing collective's NCCL call (an expression), watched as name and
 * written with `st`, this rank's state, and `op`, the call's NCCL op, made
 * before the call and released once it is enqueued (the two above). */
#define CB_NCCL_REDUCING(ctx, c, name, call)                                                       \
  do {                                                                                             \
    cb_nccl_state *st = cb_nccl_state_of(ctx);                                                     \
    ncclRedOp_t op = cb_nccl_op_begin(st, ctx, c);                                                 \
    CB_NCCL_WATCHED(st, name, call);                                                               \
    cb_nccl_op_end(st, op, c);                                                                     \
  } while (0)
/* Point-to-point calls, grouped; the group is watched as one call (its end
 * is where NCCL may wait for peers). */
void cb_nccl_group_start(cb_nccl_state *st);
void cb_nccl_group_end(void);

/* ncclGather or ncclScatter where the headers and the library have them
 * (NCCL 2.28; the program declares the function weak), NULL otherwise. */
typedef ncclResult_t (*cb_nccl_rooted_fn)(const void *, void *, size_t, ncclDataType_t, int,
                                          ncclComm_t, cudaStream_t);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#define CB_NCCL_ROOTED_FN(fn)                                                                      \
  (cb_nccl_library_version() >= NCCL_VERSION(2, 28, 0) ? (cb_nccl_rooted_fn)(fn)                   \
                                                       : (cb_nccl_rooted_fn)NULL)
#else
#define CB_NCCL_ROOTED_FN(fn) ((cb_nccl_rooted_fn)NULL)
#endif
/* Gather (to_root) or scatter, as nccl-tests 2.19 calls them: NCCL's own
 * call (fn, named name) from 2.28 on, the only way to its copy-engine path;
 * before, grouped point-to-point calls between the root and every rank,
 * the root included (block r of the root's buffer is rank r's). Nothing at
 * all for 0 elements, as nccl-tests. */
void cb_nccl_rooted_call(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s, cb_nccl_rooted_fn fn,
                         const char *name, int to_root);
#else
/* A build without NCCL: every program's NCCL call, a stub that stops the
 * program if it is ever launched. */
void cb_nccl_absent(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif
