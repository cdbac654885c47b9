/* reduce_perf: the root (-r) ends with the reduction of every rank's input;
 * the other ranks' outputs are left as they were. */
#include "collective.h"
#include "direct_mesh.h"
#include "kernels/reduce_kernels.h"
#include "ll_mesh.h"
#include "nccl_kernels.h"
#include "peer_limits.h"
#include "ring_mesh.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclReduce", cb_nccl_reduce),
    {CB_KERNEL(RING),
     .summary = "Simple protocol: a pipelined chain root+1 -> ... -> root, slices through FIFOs "
                "in the next rank's memory (one per channel), each rank adding its input",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .align = 16}, .setup = cb_rd_ring_setup,
     .teardown = cb_ring_teardown, .launch = cb_rd_ring_launch},
    {CB_KERNEL(LL),
     .summary = "LL16: every rank pushes its input to the root as packets, the root reduces them "
                "in rank order; the root returns credits",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .max_bytes = CB_RD_LL_MAX_BYTES},
     .setup = cb_rd_ll_setup, .teardown = cb_ll_teardown, .launch = cb_rd_ll_launch},
    {CB_KERNEL(DIRECT),
     .summary = "the root loads every rank's input with 16-byte loads over NVLink and reduces in "
                "rank order; start and end flag handshakes per block",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_rd_direct_setup,
     .teardown = cb_direct_teardown, .launch = cb_rd_direct_launch},
    CB_NCCL_SYM_KERNEL("ncclReduce", cb_nccl_reduce, CB_BOTH_PLACEMENTS),
    CB_NCCL_NO_CE_KERNEL("ncclReduce", cb_nccl_reduce, CB_BOTH_PLACEMENTS),
};

static const cb_collective reduce = {
    .shape = &cb_shape_reduce,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&reduce, argc, argv);
}
