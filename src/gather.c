/* gather_perf: the root (-r) ends with every rank's input, in rank order;
 * the other ranks' outputs are left as they were. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

/* NCCL's gather as nccl-tests 2.19 calls it. */
#define NCCL_GATHER "ncclGather (grouped ncclSend/ncclRecv before NCCL 2.28)"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL " NCCL_GATHER, cb_nccl_gather),
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
