/* all_reduce_perf: every rank ends with the reduction of all ranks' inputs. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL ncclAllReduce (its own choice of algorithm and protocol)",
                   cb_nccl_all_reduce),
};

static const cb_collective all_reduce = {
    .shape = &cb_shape_all_reduce,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) { return cb_main(&all_reduce, argc, argv); }
