/* broadcast_perf: every rank ends with the root's (-r) input. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclBroadcast", cb_nccl_broadcast),
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
