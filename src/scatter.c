/* scatter_perf: rank q ends with block q of the root's (-r) input. */
#include "collective.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

/* NCCL's scatter as nccl-tests 2.19 calls it. */
#define NCCL_SCATTER "ncclScatter (grouped ncclSend/ncclRecv before NCCL 2.28)"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_scatter = {.name = "scatter",
                                        .rooted = 1,
                                        .expect = CB_EXPECT_SCATTER,
                                        CB_TRAFFIC_BLOCKS(cb_counts_scattered)};
CB_REGISTER_COLLECTIVE(cb_shape_scatter);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#pragma weak ncclScatter /* NCCL 2.28 */
#endif

static void nccl_scatter(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_rooted_call(ctx, c, s, CB_NCCL_ROOTED_FN(ncclScatter), "ncclScatter", 0);
}
#endif

/* Our kernels register themselves, each in its own file (registry.h). */

CB_NCCL_ROWS(scatter, "NCCL " NCCL_SCATTER,
             "`ncclScatter` (NCCL ≥ 2.28, as nccl-tests 2.19 calls it; grouped "
             "`ncclSend`/`ncclRecv` before)",
             NCCL_SCATTER, nccl_scatter, CB_BOTH_PLACEMENTS, CB_NCCL_CE_SCATTER_KERNEL);

/* No ring: a chain from the root would carry every block over the root's
 * one outgoing link anyway, where -k direct and -k ce already put n - 1
 * links to work. */
