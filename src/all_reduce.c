/* all_reduce_perf: every rank ends with the reduction of all ranks' inputs. */
#include "ce_reduce.h"
#include "collective.h"
#include "direct_mesh.h"
#include "ll_mesh.h"
#include "kernels/all_reduce_kernels.h"
#include "nccl_kernels.h"
#include "peer_limits.h"
#include "ring_mesh.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclAllReduce (its own choice of algorithm and protocol)",
                   cb_nccl_all_reduce),
    {CB_KERNEL(RING),
     .summary = "Simple ring: chunked, pipelined reduce-scatter then all-gather, one ring "
                "per block (channel), through FIFOs in the next rank's memory",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .align = 16}, .setup = cb_ar_ring_setup,
     .teardown = cb_ring_teardown, .launch = cb_ar_ring_launch},
    {CB_KERNEL(LL),
     .summary = "one-shot LL16: every rank pushes its input to every peer as packets, "
                "each rank reduces",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .max_bytes = CB_AR_LL_MAX_BYTES},
     .setup = cb_ar_ll_setup, .teardown = cb_ll_teardown, .launch = cb_ar_ll_launch},
    {CB_KERNEL(LL2),
     .summary = "two-shot LL16: reduce-scatter in packets (each rank reduces its chunk in "
                "rank order), then all-gather of the results in packets; for 3-8 ranks (at 2 "
                "ranks it is the one-shot ll)",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .max_bytes = CB_AR_LL2_MAX_BYTES},
     .setup = cb_ar_ll2_setup, .teardown = cb_ll_teardown, .launch = cb_ar_ll2_launch},
    {CB_KERNEL(DIRECT),
     .summary = "all-pairs in one pass: each rank loads its chunk of every peer's input "
                "over NVLink, reduces, and stores the result into every peer's output; "
                "a flag handshake before and after",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_ar_direct_setup,
     .teardown = cb_direct_teardown, .launch = cb_ar_direct_launch},
    {CB_KERNEL(CE),
     .summary = "copy engines push every byte (reduce-scatter pieces into the peers' "
                "scratch, then the results into the peers' outputs); SMs only reduce",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS)}, .setup = cb_ar_ce_setup,
     .teardown = cb_ce_reduce_teardown, .launch = cb_ar_ce_launch},
    CB_NCCL_SYM_KERNEL("ncclAllReduce", cb_nccl_all_reduce, CB_BOTH_PLACEMENTS),
    CB_NCCL_NO_CE_KERNEL("ncclAllReduce", cb_nccl_all_reduce, CB_BOTH_PLACEMENTS),
};

static const cb_collective all_reduce = {
    .shape = &cb_shape_all_reduce,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&all_reduce, argc, argv);
}
