/* reduce_perf: the root (-r) ends with the reduction of every rank's input;
 * the other ranks' outputs are left as they were. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclReduce", cb_nccl_reduce),
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
