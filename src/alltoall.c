/* alltoall_perf: block s of rank r's output is block r of rank s's input. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL_PLACED("NCCL grouped ncclSend/ncclRecv to every rank (out of place: NCCL gives "
                          "no in-place alltoall)",
                          cb_nccl_alltoall, CB_OUT_OF_PLACE),
};

static const cb_collective alltoall = {
    .shape = &cb_shape_alltoall,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&alltoall, argc, argv);
}
