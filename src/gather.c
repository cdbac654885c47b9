/* gather_perf: the root (-r) ends with every rank's input, in rank order;
 * the other ranks' outputs are left as they were. */
#include "ce_rooted.h"
#include "collective.h"
#include "direct_mesh.h"
#include "kernels/gather_kernels.h"
#include "ll_mesh.h"
#include "nccl_kernels.h"
#include "peer_limits.h"
#include "runner.h"

/* NCCL's gather as nccl-tests 2.19 calls it. */
#define NCCL_GATHER "ncclGather (grouped ncclSend/ncclRecv before NCCL 2.28)"

/* No ring: a chain towards the root would carry every block over the
 * root's one incoming link anyway, where -k direct and -k ce already put
 * n - 1 links to work. */
static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL " NCCL_GATHER, cb_nccl_gather),
    {CB_KERNEL(LL),
     .summary = "LL16: every rank pushes its block to the root as packets, the root copies them "
                "into its output; the root returns credits",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .max_bytes = CB_GA_LL_MAX_BYTES},
     .setup = cb_ga_ll_setup, .teardown = cb_ll_teardown, .launch = cb_ga_ll_launch},
    {CB_KERNEL(DIRECT),
     .summary = "every rank stores its block with 16-byte stores straight into the root's "
                "output; start and end flag handshakes per block",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_ga_direct_setup,
     .teardown = cb_direct_teardown, .launch = cb_ga_direct_launch},
    {CB_KERNEL(CE),
     .summary = "copy engines: every rank's cudaMemcpyAsync of its block into the root's output, "
                "between two one-block flag kernels",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_ce_rooted_setup,
     .teardown = cb_ce_rooted_teardown, .launch = cb_ga_ce_launch},
    CB_NCCL_SYM_KERNEL(NCCL_GATHER, cb_nccl_gather, CB_BOTH_PLACEMENTS),
    CB_NCCL_CE_KERNEL(NCCL_GATHER, cb_nccl_gather, CB_BOTH_PLACEMENTS),
};

static const cb_collective gather = {
    .shape = &cb_shape_gather,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&gather, argc, argv);
}
