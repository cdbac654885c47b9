/* scatter_perf: rank q ends with block q of the root's (-r) input. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

/* NCCL's scatter as nccl-tests 2.19 calls it. */
#define NCCL_SCATTER "ncclScatter (grouped ncclSend/ncclRecv before NCCL 2.28)"

/* Our kernels: each row is exported by its file, src/kernels/scatter_<kernel>.cu. */
extern const cb_kernel cb_scatter_ll, cb_scatter_direct, cb_scatter_ce;

static const cb_kernel nccl = CB_NCCL_KERNEL("NCCL " NCCL_SCATTER, cb_nccl_scatter);
static const cb_kernel nccl_sym =
    CB_NCCL_SYM_KERNEL(NCCL_SCATTER, cb_nccl_scatter, CB_BOTH_PLACEMENTS);
static const cb_kernel nccl_ce =
    CB_NCCL_CE_SCATTER_KERNEL(NCCL_SCATTER, cb_nccl_scatter, CB_BOTH_PLACEMENTS);

/* No ring: a chain from the root would carry every block over the root's
 * one outgoing link anyway, where -k direct and -k ce already put n - 1
 * links to work. */
static const cb_kernel *const kernels[] = {
    &nccl, &cb_scatter_ll, &cb_scatter_direct, &cb_scatter_ce, &nccl_sym, &nccl_ce,
};

static const cb_collective scatter = {
    .shape = &cb_shape_scatter,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&scatter, argc, argv);
}
