/* hypercube_perf: nccl-tests' hypercube all-gather: every rank ends with
 * every rank's input in rank order, moved in log2(n) exchanges of doubling
 * runs between the ranks across each dimension (a power-of-two rank count).
 *
 * NCCL only: it measures NCCL's point-to-point calls in that pattern, and
 * all_gather_perf has our all-gather kernels. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

#define NCCL_HYPERCUBE "hypercube all-gather: log2(n) grouped ncclSend/ncclRecv exchanges"

static const cb_kernel nccl = CB_NCCL_KERNEL("NCCL " NCCL_HYPERCUBE, cb_nccl_hypercube);
static const cb_kernel nccl_sym =
    CB_NCCL_SYM_KERNEL(NCCL_HYPERCUBE, cb_nccl_hypercube, CB_BOTH_PLACEMENTS);
static const cb_kernel nccl_ce =
    CB_NCCL_NO_CE_KERNEL(NCCL_HYPERCUBE, cb_nccl_hypercube, CB_BOTH_PLACEMENTS);

static const cb_kernel *const kernels[] = {
    &nccl,
    &nccl_sym,
    &nccl_ce,
};

static const cb_collective hypercube = {
    .shape = &cb_shape_hypercube,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&hypercube, argc, argv);
}
