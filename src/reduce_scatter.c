/* reduce_scatter_perf: rank r ends with block r of the reduction of all ranks' inputs. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclReduceScatter", cb_nccl_reduce_scatter),
};

static const cb_collective reduce_scatter = {
    .shape = &cb_shape_reduce_scatter,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&reduce_scatter, argc, argv);
}
