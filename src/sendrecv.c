/* sendrecv_perf: every rank sends to the next and receives from the previous. */
#include "collective.h"
#include "kernels/sendrecv_kernels.h"
#include "ll_mesh.h"
#include "nccl_kernels.h"
#include "peer_memory.h"
#include "runner.h"

#define BOTH_PLACEMENTS (CB_OUT_OF_PLACE | CB_IN_PLACE)

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL_PLACED("NCCL grouped ncclSend/ncclRecv around the ring (out of place: send and "
                          "receive would share one buffer)",
                          cb_nccl_sendrecv, CB_OUT_OF_PLACE),
    {CB_KERNEL(LL),
     .summary = "LL16: every rank pushes its input to the next rank as packets and copies the "
                "packets it receives into its output; receivers return credits",
     .limits = {.placements = BOTH_PLACEMENTS,
                .dtypes = CB_ALL_DTYPES,
                .ops = CB_ALL_OPS,
                .max_ranks = CB_MAX_PEERS,
                .max_bytes = CB_SR_LL_MAX_BYTES,
                .single_host = 1},
     .setup = cb_sr_ll_setup, .teardown = cb_ll_teardown, .launch = cb_sr_ll_launch},
};

static const cb_collective sendrecv = {
    .shape = &cb_shape_sendrecv,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&sendrecv, argc, argv);
}
