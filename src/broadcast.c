/* broadcast_perf: every rank ends with the root's (-r) input. */
#include "ce_rooted.h"
#include "collective.h"
#include "direct_mesh.h"
#include "kernels/broadcast_kernels.h"
#include "ll_mesh.h"
#include "nccl_kernels.h"
#include "peer_limits.h"
#include "ring_mesh.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclBroadcast", cb_nccl_broadcast),
    {CB_KERNEL(RING),
     .summary = "Simple protocol: a pipelined chain root -> root+1 -> ..., slices through FIFOs "
                "in the next rank's memory (one per channel), each rank keeping and forwarding",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .align = 16}, .setup = cb_bc_ring_setup,
     .teardown = cb_ring_teardown, .launch = cb_bc_ring_launch},
    {CB_KERNEL(LL),
     .summary = "LL16: the root pushes its input to every peer as packets, each peer copies "
                "them into its output; peers return credits to the root",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .max_bytes = CB_BC_LL_MAX_BYTES},
     .setup = cb_bc_ll_setup, .teardown = cb_ll_teardown, .launch = cb_bc_ll_launch},
    {CB_KERNEL(DIRECT),
     .summary = "the root stores its input with 16-byte stores straight into every peer's "
                "output, start and end flag handshakes per block between the root and each peer",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_bc_direct_setup,
     .teardown = cb_direct_teardown, .launch = cb_bc_direct_launch},
    {CB_KERNEL(CE),
     .summary = "copy engines: cudaMemcpyAsync of the root's input into every peer's output "
                "(one side stream per peer), between two one-block flag kernels",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_bc_ce_setup,
     .teardown = cb_ce_rooted_teardown, .launch = cb_bc_ce_launch},
    CB_NCCL_SYM_KERNEL("ncclBroadcast", cb_nccl_broadcast, CB_BOTH_PLACEMENTS),
    CB_NCCL_NO_CE_KERNEL("ncclBroadcast", cb_nccl_broadcast, CB_BOTH_PLACEMENTS),
};

static const cb_collective broadcast = {
    .shape = &cb_shape_broadcast,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&broadcast, argc, argv);
}
