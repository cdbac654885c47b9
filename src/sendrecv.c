/* sendrecv_perf: every rank sends to the next and receives from the previous. */
#include "collective.h"
#include "direct_mesh.h"
#include "kernels/sendrecv_kernels.h"
#include "ll_mesh.h"
#include "nccl_kernels.h"
#include "peer_limits.h"
#include "ring_mesh.h"
#include "runner.h"

static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL_PLACED("NCCL grouped ncclSend/ncclRecv around the ring (out of place: send and "
                          "receive would share one buffer)",
                          cb_nccl_sendrecv, CB_OUT_OF_PLACE),
    {CB_KERNEL(RING),
     .summary = "Simple protocol: every rank pushes its input in slices through FIFOs in the "
                "next rank's memory (one per channel), the receiver copies them into its output",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .align = 16}, .setup = cb_sr_ring_setup,
     .teardown = cb_ring_teardown, .launch = cb_sr_ring_launch},
    {CB_KERNEL(LL),
     .summary =
         "LL16: every rank pushes its input to the next rank as packets and copies the "
         "packets it receives into its output; receivers return credits (at 2 ranks, where the "
         "next rank is the previous one, none are needed: all_gather's LL exchange)",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_BOTH_PLACEMENTS), .max_bytes = CB_SR_LL_MAX_BYTES},
     .setup = cb_sr_ll_setup, .teardown = cb_ll_teardown, .launch = cb_sr_ll_launch},
    {CB_KERNEL(DIRECT),
     .summary = "every rank stores its input with 16-byte stores straight into the next rank's "
                "output, start and end flag handshakes per block with its two neighbours (out "
                "of place: in place it would overwrite what the next rank still sends)",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_OUT_OF_PLACE)}, .setup = cb_sr_direct_setup,
     .teardown = cb_direct_teardown, .launch = cb_sr_direct_launch},
    {CB_KERNEL(CE),
     .summary = "copy engine: cudaMemcpyAsync of every rank's input into the next rank's "
                "output, between two one-block flag kernels (out of place, as direct)",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_OUT_OF_PLACE)}, .setup = cb_sr_ce_setup,
     .teardown = cb_sr_ce_teardown, .launch = cb_sr_ce_launch},
    CB_NCCL_SYM_KERNEL("ncclSend/ncclRecv", cb_nccl_sendrecv, CB_OUT_OF_PLACE),
    CB_NCCL_NO_CE_KERNEL("ncclSend/ncclRecv", cb_nccl_sendrecv, CB_OUT_OF_PLACE),
};

static const cb_collective sendrecv = {
    .shape = &cb_shape_sendrecv,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&sendrecv, argc, argv);
}
