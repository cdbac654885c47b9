/* scatter_perf: rank q ends with block q of the root's (-r) input. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

/* NCCL's scatter as nccl-tests 2.19 calls it. */
#define NCCL_SCATTER "ncclScatter (grouped ncclSend/ncclRecv before NCCL 2.28)"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL("NCCL " NCCL_SCATTER, cb_nccl_scatter),
    CB_NCCL_SYM_KERNEL(NCCL_SCATTER, cb_nccl_scatter, CB_BOTH_PLACEMENTS),
    CB_NCCL_CE_KERNEL(NCCL_SCATTER, cb_nccl_scatter, CB_BOTH_PLACEMENTS),
};

static const cb_collective scatter = {
    .shape = &cb_shape_scatter,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&scatter, argc, argv);
}
