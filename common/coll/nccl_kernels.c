#include "nccl_kernels.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

#ifndef CB_HAVE_NCCL

const char *cb_nccl_unavailable(void) {
  return "built without NCCL (not found, or COLLBENCH_WITH_NCCL=OFF)";
}
int cb_nccl_header_version(void) {
  return 0;
}
int cb_nccl_library_version(void) {
  return 0;
}
void cb_nccl_setup(cb_kernel_ctx *ctx) {
  (void)ctx;
}
void cb_nccl_teardown(cb_kernel_ctx *ctx) {
  (void)ctx;
}

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

#else

#include <nccl.h>

#define CB_NCCL(call)                                                                              \
  do {                                                                                             \
    ncclResult_t cb_nccl_rc_ = (call);                                                             \
    if (cb_nccl_rc_ != ncclSuccess)                                                                \
      cb_die(__FILE__, __LINE__, #call, ncclGetErrorString(cb_nccl_rc_));                          \
  } while (0)

const char *cb_nccl_unavailable(void) {
  return NULL;
}
int cb_nccl_header_version(void) {
  return NCCL_VERSION_CODE;
}
int cb_nccl_library_version(void) {
  int v = 0;
  CB_NCCL(ncclGetVersion(&v));
  return v;
}

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

void cb_nccl_setup(cb_kernel_ctx *ctx) {
  ncclUniqueId mine, *all = calloc((size_t)ctx->nranks, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  memset(&mine, 0, sizeof mine);
  if (ctx->rank == 0) CB_NCCL(ncclGetUniqueId(&mine));
  cb_world_allgather(ctx->world, &mine, sizeof mine, all); /* everyone takes rank 0's id */
  ncclComm_t comm;
  CB_NCCL(ncclCommInitRank(&comm, ctx->nranks, all[0], ctx->rank));
  free(all);
  ctx->state = comm;
}

void cb_nccl_teardown(cb_kernel_ctx *ctx) {
  if (ctx->state) CB_NCCL(ncclCommDestroy((ncclComm_t)ctx->state));
  ctx->state = NULL;
}

static ncclComm_t comm_of(cb_kernel_ctx *ctx) {
  return (ncclComm_t)ctx->state;
}

void cb_nccl_all_reduce(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  CB_NCCL(ncclAllReduce(c->send, c->recv, c->count, nccl_types[c->dtype], nccl_ops[c->op],
                        comm_of(ctx), s));
}

void cb_nccl_all_gather(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  CB_NCCL(ncclAllGather(c->send, c->recv, c->count, nccl_types[c->dtype], comm_of(ctx), s));
}

void cb_nccl_reduce_scatter(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  CB_NCCL(ncclReduceScatter(c->send, c->recv, c->count, nccl_types[c->dtype], nccl_ops[c->op],
                            comm_of(ctx), s));
}

/* alltoall and sendrecv as nccl-tests builds them: grouped point-to-point. */
void cb_nccl_alltoall(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  size_t block = c->count * cb_dtype_size(c->dtype);
  CB_NCCL(ncclGroupStart());
  for (int r = 0; r < ctx->nranks; r++) {
    CB_NCCL(ncclSend((const char *)c->send + r * block, c->count, nccl_types[c->dtype], r,
                     comm_of(ctx), s));
    CB_NCCL(
        ncclRecv((char *)c->recv + r * block, c->count, nccl_types[c->dtype], r, comm_of(ctx), s));
  }
  CB_NCCL(ncclGroupEnd());
}

void cb_nccl_sendrecv(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  int next = (ctx->rank + 1) % ctx->nranks, prev = (ctx->rank - 1 + ctx->nranks) % ctx->nranks;
  CB_NCCL(ncclGroupStart());
  CB_NCCL(ncclSend(c->send, c->count, nccl_types[c->dtype], next, comm_of(ctx), s));
  CB_NCCL(ncclRecv(c->recv, c->count, nccl_types[c->dtype], prev, comm_of(ctx), s));
  CB_NCCL(ncclGroupEnd());
}

void cb_nccl_broadcast(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  CB_NCCL(
      ncclBroadcast(c->send, c->recv, c->count, nccl_types[c->dtype], c->root, comm_of(ctx), s));
}

#endif
