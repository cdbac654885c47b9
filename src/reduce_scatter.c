/* reduce_scatter_perf: rank r ends with block r of the reduction of all ranks' inputs. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

/* Our kernels: each row is exported by its file, src/kernels/reduce_scatter_<kernel>.cu. */
extern const cb_kernel cb_reduce_scatter_ring, cb_reduce_scatter_ll, cb_reduce_scatter_direct,
    cb_reduce_scatter_ce;

static const cb_kernel nccl = CB_NCCL_KERNEL("NCCL ncclReduceScatter", cb_nccl_reduce_scatter);
static const cb_kernel nccl_sym =
    CB_NCCL_SYM_KERNEL("ncclReduceScatter", cb_nccl_reduce_scatter, CB_BOTH_PLACEMENTS);
static const cb_kernel nccl_ce =
    CB_NCCL_NO_CE_KERNEL("ncclReduceScatter", cb_nccl_reduce_scatter, CB_BOTH_PLACEMENTS);

static const cb_kernel *const kernels[] = {
    &nccl,
    &cb_reduce_scatter_ring,
    &cb_reduce_scatter_ll,
    &cb_reduce_scatter_direct,
    &cb_reduce_scatter_ce,
    &nccl_sym,
    &nccl_ce,
};

static const cb_collective reduce_scatter = {
    .shape = &cb_shape_reduce_scatter,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&reduce_scatter, argc, argv);
}
