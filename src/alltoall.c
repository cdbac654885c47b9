/* alltoall_perf: block s of rank r's output is block r of rank s's input. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

/* NCCL's alltoall as nccl-tests 2.19 calls it: ncclAlltoAll from NCCL 2.28
 * on (the only way to its copy-engine path), grouped send/receive before. */
#define NCCL_ALLTOALL "ncclAlltoAll (grouped ncclSend/ncclRecv before NCCL 2.28)"

/* Our kernels: each row is exported by its file, src/kernels/alltoall_<kernel>.cu. */
extern const cb_kernel cb_alltoall_ring, cb_alltoall_ll, cb_alltoall_direct, cb_alltoall_ce;

static const cb_kernel nccl =
    CB_NCCL_KERNEL_PLACED("NCCL " NCCL_ALLTOALL ", out of place (NCCL gives no in-place "
                          "alltoall)",
                          cb_nccl_alltoall, CB_OUT_OF_PLACE);
static const cb_kernel nccl_sym =
    CB_NCCL_SYM_KERNEL(NCCL_ALLTOALL, cb_nccl_alltoall, CB_OUT_OF_PLACE);
static const cb_kernel nccl_ce =
    CB_NCCL_CE_KERNEL(NCCL_ALLTOALL, cb_nccl_alltoall, CB_OUT_OF_PLACE);

/* In place, only -k ll is safe: the others write into a peer's buffer
 * straight away (or through a FIFO, ring) while the block they overwrite
 * still holds data the peer has yet to send (see their files). */
static const cb_kernel *const kernels[] = {
    &nccl,           &cb_alltoall_ring, &cb_alltoall_ll, &cb_alltoall_direct,
    &cb_alltoall_ce, &nccl_sym,         &nccl_ce,
};

static const cb_collective alltoall = {
    .shape = &cb_shape_alltoall,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&alltoall, argc, argv);
}
