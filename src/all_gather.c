/* all_gather_perf: every rank ends with every rank's input, in rank order. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclAllGather", cb_nccl_all_gather),
};

static const cb_collective all_gather = {
    .shape = &cb_shape_all_gather,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&all_gather, argc, argv);
}
