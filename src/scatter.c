/* scatter_perf: rank q ends with block q of the root's (-r) input. */
#include "ce_rooted.h"
#include "collective.h"
#include "direct_mesh.h"
#include "kernels/scatter_kernels.h"
#include "ll_mesh.h"
#include "nccl_kernels.h"
#include "peer_limits.h"
#include "runner.h"

/* NCCL's scatter as nccl-tests 2.19 calls it. */
#define NCCL_SCATTER "ncclScatter (grouped ncclSend/ncclRecv before NCCL 2.28)"

/* No ring: a chain from the root would carry every block over the root's
 * one outgoing link anyway, where -k direct and -k ce already put n - 1
 * links to work. */
static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL " NCCL_SCATTER, cb_nccl_scatter),
    {CB_KERNEL(LL),
     .summary = "LL16: the root pushes block q of its input to rank q as packets, each rank "
                "copies them into its output; ranks return credits to the root",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .max_bytes = CB_SC_LL_MAX_BYTES},
     .setup = cb_sc_ll_setup, .teardown = cb_ll_teardown, .launch = cb_sc_ll_launch},
    {CB_KERNEL(DIRECT),
     .summary = "the root stores block q of its input with 16-byte stores straight into rank "
                "q's output; start and end flag handshakes per block",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_sc_direct_setup,
     .teardown = cb_direct_teardown, .launch = cb_sc_direct_launch},
    {CB_KERNEL(CE),
     .summary = "copy engines: the root's cudaMemcpyAsync of block q into rank q's output (one "
                "side stream per rank), between two one-block flag kernels",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_ce_rooted_setup,
     .teardown = cb_ce_rooted_teardown, .launch = cb_sc_ce_launch},
    CB_NCCL_SYM_KERNEL(NCCL_SCATTER, cb_nccl_scatter, CB_BOTH_PLACEMENTS),
    CB_NCCL_CE_SCATTER_KERNEL(NCCL_SCATTER, cb_nccl_scatter, CB_BOTH_PLACEMENTS),
};

static const cb_collective scatter = {
    .shape = &cb_shape_scatter,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&scatter, argc, argv);
}
