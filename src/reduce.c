/* reduce_perf: the root (-r) ends with the reduction of every rank's input;
 * the other ranks' outputs are left as they were. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

/* Our kernels: each row is exported by its file, src/kernels/reduce_<kernel>.cu. */
extern const cb_kernel cb_reduce_ring, cb_reduce_ll, cb_reduce_direct;

static const cb_kernel nccl = CB_NCCL_KERNEL("NCCL ncclReduce", cb_nccl_reduce);
static const cb_kernel nccl_sym =
    CB_NCCL_SYM_KERNEL("ncclReduce", cb_nccl_reduce, CB_BOTH_PLACEMENTS);
static const cb_kernel nccl_ce =
    CB_NCCL_NO_CE_KERNEL("ncclReduce", cb_nccl_reduce, CB_BOTH_PLACEMENTS);

static const cb_kernel *const kernels[] = {
    &nccl, &cb_reduce_ring, &cb_reduce_ll, &cb_reduce_direct, &nccl_sym, &nccl_ce,
};

static const cb_collective reduce = {
    .shape = &cb_shape_reduce,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&reduce, argc, argv);
}
