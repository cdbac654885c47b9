/* all_gather_perf: every rank ends with every rank's input, in rank order. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

/* Our kernels: each row is exported by its file, src/kernels/all_gather_<kernel>.cu. */
extern const cb_kernel cb_all_gather_ring, cb_all_gather_ll, cb_all_gather_direct, cb_all_gather_ce;

static const cb_kernel nccl = CB_NCCL_KERNEL("NCCL ncclAllGather", cb_nccl_all_gather);
static const cb_kernel nccl_sym =
    CB_NCCL_SYM_KERNEL("ncclAllGather", cb_nccl_all_gather, CB_BOTH_PLACEMENTS);
static const cb_kernel nccl_ce =
    CB_NCCL_CE_KERNEL("ncclAllGather", cb_nccl_all_gather, CB_BOTH_PLACEMENTS);

static const cb_kernel *const kernels[] = {
    &nccl,
    &cb_all_gather_ring,
    &cb_all_gather_ll,
    &cb_all_gather_direct,
    &cb_all_gather_ce,
    &nccl_sym,
    &nccl_ce,
};

static const cb_collective all_gather = {
    .shape = &cb_shape_all_gather,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&all_gather, argc, argv);
}
