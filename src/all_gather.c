/* all_gather_perf: every rank ends with every rank's input, in rank order. */
#include "ce_push.h"
#include "collective.h"
#include "direct_mesh.h"
#include "ll_mesh.h"
#include "kernels/all_gather_kernels.h"
#include "nccl_kernels.h"
#include "peer_limits.h"
#include "ring_mesh.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclAllGather", cb_nccl_all_gather),
    {CB_KERNEL(RING),
     .summary = "Simple ring: every block travels n-1 hops around the ring, chunked and "
                "pipelined, one ring per block (channel), through FIFOs in the next rank's memory",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .align = 16}, .setup = cb_ag_ring_setup,
     .teardown = cb_ring_teardown, .launch = cb_ag_ring_launch},
    {CB_KERNEL(LL),
     .summary = "LL16: every rank pushes its block to every peer as packets, each rank "
                "copies the packets it receives into its output",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .max_bytes = CB_AG_LL_MAX_BYTES},
     .setup = cb_ag_ll_setup, .teardown = cb_ll_teardown, .launch = cb_ag_ll_launch},
    {CB_KERNEL(DIRECT),
     .summary = "every rank stores its block with 16-byte stores straight into every "
                "peer's output, start and end flag handshakes per block",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_ag_direct_setup,
     .teardown = cb_direct_teardown, .launch = cb_ag_direct_launch},
    {CB_KERNEL(CE),
     .summary = "copy engines: cudaMemcpyAsync of every rank's block into every peer's "
                "output, between two one-block flag kernels",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_ag_ce_setup,
     .teardown = cb_ce_push_teardown, .launch = cb_ag_ce_launch},
    CB_NCCL_SYM_KERNEL("ncclAllGather", cb_nccl_all_gather, CB_BOTH_PLACEMENTS),
    CB_NCCL_CE_KERNEL("ncclAllGather", cb_nccl_all_gather, CB_BOTH_PLACEMENTS),
};

static const cb_collective all_gather = {
    .shape = &cb_shape_all_gather,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&all_gather, argc, argv);
}
