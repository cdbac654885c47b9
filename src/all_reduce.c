/* all_reduce_perf: every rank ends with the reduction of all ranks' inputs. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

/* Our kernels: each row is exported by its file, src/kernels/all_reduce_<kernel>.cu. */
extern const cb_kernel cb_all_reduce_ring, cb_all_reduce_ll, cb_all_reduce_ll2,
    cb_all_reduce_direct, cb_all_reduce_ce;

static const cb_kernel nccl = CB_NCCL_KERNEL(
    "NCCL ncclAllReduce (its own choice of algorithm and protocol)", cb_nccl_all_reduce);
static const cb_kernel nccl_sym =
    CB_NCCL_SYM_KERNEL("ncclAllReduce", cb_nccl_all_reduce, CB_BOTH_PLACEMENTS);
static const cb_kernel nccl_ce =
    CB_NCCL_NO_CE_KERNEL("ncclAllReduce", cb_nccl_all_reduce, CB_BOTH_PLACEMENTS);

static const cb_kernel *const kernels[] = {
    &nccl,
    &cb_all_reduce_ring,
    &cb_all_reduce_ll,
    &cb_all_reduce_ll2,
    &cb_all_reduce_direct,
    &cb_all_reduce_ce,
    &nccl_sym,
    &nccl_ce,
};

static const cb_collective all_reduce = {
    .shape = &cb_shape_all_reduce,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&all_reduce, argc, argv);
}
