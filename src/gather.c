/* gather_perf: the root (-r) ends with every rank's input, in rank order;
 * the other ranks' outputs are left as they were. */
#include "collective.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

/* NCCL's gather as nccl-tests 2.19 calls it. */
#define NCCL_GATHER "ncclGather (grouped ncclSend/ncclRecv before NCCL 2.28)"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_gather = {.name = "gather",
                                       .rooted = 1,
                                       .expect = CB_EXPECT_GATHER_ROOT,
                                       CB_TRAFFIC_BLOCKS(cb_counts_gathered)};
CB_REGISTER_COLLECTIVE(cb_shape_gather);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#pragma weak ncclGather /* NCCL 2.28 */
#endif

static void nccl_gather(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_rooted_call(ctx, c, s, CB_NCCL_ROOTED_FN(ncclGather), "ncclGather", 1);
}
#endif

/* Our kernels register themselves, each in its own file (registry.h). */

CB_NCCL_ROWS(
    gather, "NCCL " NCCL_GATHER,
    "`ncclGather` (NCCL ≥ 2.28, as nccl-tests 2.19 calls it; grouped `ncclSend`/`ncclRecv` "
    "before)",
    NCCL_GATHER, nccl_gather, CB_BOTH_PLACEMENTS, CB_NCCL_CE_KERNEL);

/* No ring: a chain towards the root would carry every block over the
 * root's one incoming link anyway, where -k direct and -k ce already put
 * n - 1 links to work. */
