/* broadcast_perf: every rank ends with the root's (-r) input. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

/* Our kernels: each row is exported by its file, src/kernels/broadcast_<kernel>.cu. */
extern const cb_kernel cb_broadcast_ring, cb_broadcast_ll, cb_broadcast_direct, cb_broadcast_ce;

static const cb_kernel nccl = CB_NCCL_KERNEL("NCCL ncclBroadcast", cb_nccl_broadcast);
static const cb_kernel nccl_sym =
    CB_NCCL_SYM_KERNEL("ncclBroadcast", cb_nccl_broadcast, CB_BOTH_PLACEMENTS);
static const cb_kernel nccl_ce =
    CB_NCCL_NO_CE_KERNEL("ncclBroadcast", cb_nccl_broadcast, CB_BOTH_PLACEMENTS);

static const cb_kernel *const kernels[] = {
    &nccl,     &cb_broadcast_ring, &cb_broadcast_ll, &cb_broadcast_direct, &cb_broadcast_ce,
    &nccl_sym, &nccl_ce,
};

static const cb_collective broadcast = {
    .shape = &cb_shape_broadcast,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&broadcast, argc, argv);
}
