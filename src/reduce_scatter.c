/* reduce_scatter_perf: rank r ends with block r of the reduction of all ranks' inputs. */
#include "ce_reduce.h"
#include "collective.h"
#include "direct_mesh.h"
#include "ll_mesh.h"
#include "kernels/reduce_scatter_kernels.h"
#include "nccl_kernels.h"
#include "peer_limits.h"
#include "ring_mesh.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclReduceScatter", cb_nccl_reduce_scatter),
    {CB_KERNEL(RING),
     .summary = "Simple ring: block k is reduced along a chain of n-1 hops ending at rank k, "
                "chunked and pipelined, one ring per block (channel), through FIFOs in the next "
                "rank's memory",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .align = 16}, .setup = cb_rs_ring_setup,
     .teardown = cb_ring_teardown, .launch = cb_rs_ring_launch},
    {CB_KERNEL(LL),
     .summary = "LL16: every rank pushes each peer's block to it as packets, each rank "
                "reduces what it receives with its own block, in rank order",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .max_bytes = CB_RS_LL_MAX_BYTES},
     .setup = cb_rs_ll_setup, .teardown = cb_ll_teardown, .launch = cb_rs_ll_launch},
    {CB_KERNEL(DIRECT),
     .summary = "every rank loads its block of every peer's input with 16-byte loads and "
                "reduces in rank order, start and end flag handshakes per block",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_rs_direct_setup,
     .teardown = cb_direct_teardown, .launch = cb_rs_direct_launch},
    {CB_KERNEL(CE),
     .summary = "copy engines push block q of every rank's input, piece by piece, into rank "
                "q's scratch with a landed flag per piece; SMs only reduce, in rank order",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_rs_ce_setup,
     .teardown = cb_ce_reduce_teardown, .launch = cb_rs_ce_launch},
    CB_NCCL_SYM_KERNEL("ncclReduceScatter", cb_nccl_reduce_scatter, CB_BOTH_PLACEMENTS),
    CB_NCCL_NO_CE_KERNEL("ncclReduceScatter", cb_nccl_reduce_scatter, CB_BOTH_PLACEMENTS),
};

static const cb_collective reduce_scatter = {
    .shape = &cb_shape_reduce_scatter,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&reduce_scatter, argc, argv);
}
