/* reduce_perf: the root (-r) ends with the reduction of every rank's input;
 * the other ranks' outputs are left as they were. */
#include "collective.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_reduce = {.name = "reduce",
                                       .reduces = 1,
                                       .rooted = 1,
                                       .expect = CB_EXPECT_REDUCE_ROOT,
                                       CB_TRAFFIC_MESSAGE};
CB_REGISTER_COLLECTIVE(cb_shape_reduce);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
static void nccl_reduce(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  CB_NCCL_REDUCING(
      ctx, c, "ncclReduce",
      ncclReduce(c->send, c->recv, c->count, cb_nccl_type(c->dtype), op, c->root, st->comm, s));
}
#endif

/* Our kernels register themselves, each in its own file (registry.h). */

CB_NCCL_ROWS(reduce, "NCCL ncclReduce", "`ncclReduce`", "ncclReduce", nccl_reduce,
             CB_BOTH_PLACEMENTS, CB_NCCL_NO_CE_KERNEL);
