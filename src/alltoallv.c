/* alltoallv_perf: every rank sends every rank a piece of its input, the
 * pieces' sizes set by distance in rank space (nccl-tests' generated
 * pattern, common/coll/alltoallv_pattern.h; NCCL_TESTS_ALLTOALLV_SPREAD).
 *
 * NCCL only. Our alltoall kernels move equal blocks; a kernel of ours for
 * uneven pieces would be theirs with per-peer offsets, and nothing it
 * measures would differ from -k of alltoall_perf at the pieces' sizes. */
#include "collective.h"
#include "nccl_kernels.h"
#include "runner.h"

#define NCCL_ALLTOALLV "grouped ncclSend/ncclRecv of every rank's piece"

/* Out of place only, as alltoall_perf: in place a rank's pieces for its
 * peers would be overwritten by theirs before NCCL reads them (nccl-tests
 * times in-place alltoallv but does not check it). */
static const cb_kernel nccl =
    CB_NCCL_KERNEL_PLACED("NCCL " NCCL_ALLTOALLV ", out of place (NCCL gives no in-place "
                          "alltoallv)",
                          cb_nccl_alltoallv, CB_OUT_OF_PLACE);
static const cb_kernel nccl_sym =
    CB_NCCL_SYM_KERNEL(NCCL_ALLTOALLV, cb_nccl_alltoallv, CB_OUT_OF_PLACE);
static const cb_kernel nccl_ce =
    CB_NCCL_NO_CE_KERNEL(NCCL_ALLTOALLV, cb_nccl_alltoallv, CB_OUT_OF_PLACE);

static const cb_kernel *const kernels[] = {
    &nccl,
    &nccl_sym,
    &nccl_ce,
};

static const cb_collective alltoallv = {
    .shape = &cb_shape_alltoallv,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&alltoallv, argc, argv);
}
