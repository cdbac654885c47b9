/* alltoall_perf: block s of rank r's output is block r of rank s's input. */
#include "ce_push.h"
#include "collective.h"
#include "direct_mesh.h"
#include "kernels/alltoall_kernels.h"
#include "ll_mesh.h"
#include "nccl_kernels.h"
#include "peer_limits.h"
#include "ring_mesh.h"
#include "runner.h"

/* NCCL's alltoall as nccl-tests 2.19 calls it: ncclAlltoAll from NCCL 2.28
 * on (the only way to its copy-engine path), grouped send/receive before. */
#define NCCL_ALLTOALL "ncclAlltoAll (grouped ncclSend/ncclRecv before NCCL 2.28)"

/* In place, only -k ll is safe: the others write into a peer's buffer
 * straight away (or through a FIFO, ring) while the block they overwrite
 * still holds data the peer has yet to send (see their files). */
static const cb_kernel kernels[] = {
    CB_NCCL_KERNEL_PLACED("NCCL " NCCL_ALLTOALL ", out of place (NCCL gives no in-place "
                          "alltoall)",
                          cb_nccl_alltoall, CB_OUT_OF_PLACE),
    {CB_KERNEL(RING),
     .summary = "n-1 ring-ordered steps (step d sends block r+d to rank r+d, receives rank "
                "r-d's), pipelined slice by slice through FIFOs in the receivers' memory, our own "
                "block copied by the channels (CB_A2A_RING_OWN_COPY=sm, the default) or by a "
                "copy engine beside them (=ce); out of place only (in place would overwrite "
                "blocks not yet sent)",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_OUT_OF_PLACE), .align = 16}, .setup = cb_a2a_ring_setup,
     .teardown = cb_a2a_ring_teardown, .launch = cb_a2a_ring_launch},
    {CB_KERNEL(LL),
     .summary = "LL16: every rank pushes block q of its input to rank q as packets, each rank "
                "copies the packets it receives into its output; in place too (through scratch)",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_OUT_OF_PLACE | CB_IN_PLACE),
                .max_bytes = CB_A2A_LL_MAX_BYTES},
     .setup = cb_a2a_ll_setup, .teardown = cb_ll_teardown, .launch = cb_a2a_ll_launch},
    {CB_KERNEL(DIRECT),
     .summary = "every rank stores block q of its input with 16-byte stores straight into "
                "block r of rank q's output, start and end flag handshakes per block; out of "
                "place only (in place would overwrite blocks not yet sent)",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_OUT_OF_PLACE)}, .setup = cb_a2a_direct_setup,
     .teardown = cb_direct_teardown, .launch = cb_a2a_direct_launch},
    {CB_KERNEL(CE),
     .summary = "copy engines: cudaMemcpyAsync of block q of every rank's input into block r "
                "of rank q's output, between two one-block flag kernels; out of place only",
     .limits = {CB_PEER_KERNEL_LIMITS(CB_OUT_OF_PLACE)}, .setup = cb_a2a_ce_setup,
     .teardown = cb_ce_push_teardown, .launch = cb_a2a_ce_launch},
    CB_NCCL_SYM_KERNEL(NCCL_ALLTOALL, cb_nccl_alltoall, CB_OUT_OF_PLACE),
    CB_NCCL_CE_KERNEL(NCCL_ALLTOALL, cb_nccl_alltoall, CB_OUT_OF_PLACE),
};

static const cb_collective alltoall = {
    .shape = &cb_shape_alltoall,
    .kernels = kernels,
    .nkernels = sizeof kernels / sizeof kernels[0],
};

int main(int argc, char **argv) {
  return cb_main(&alltoall, argc, argv);
}
