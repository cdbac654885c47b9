/* -k ring: Simple-protocol reduce for large messages, a pipelined chain
 * towards the root.
 *
 * Along the chain root+1 -> root+2 -> ... -> root (link 1 of the FIFO
 * pipes, ring_mesh.h), the chain kernel (device/ring_chain.cuh: channels,
 * slices, FIFOs in the next rank's memory and their ordering) runs one
 * phase per slice:
 *   root+1         send our input                           -> next's FIFO
 *   root+2 .. -1   receive, add our input, send on           -> next's FIFO
 *   root           receive, add our input: the result        -> our output
 * Every link of the chain carries the message once, whatever the rank
 * count (the root of -k direct loads n - 1 inputs over its own links); a
 * slice reaches the root n - 1 steps after it left root+1, which large
 * messages (many slices per channel) hide. The pipe from the root to
 * root+1 is idle in the call; both its ends leave their counts alone, so
 * they still agree when the root changes.
 *
 * Order: element i is reduced along the chain, in+1 op in+2 ... op in_root
 * (avg divides at the root); the result's bits depend on the root, where
 * those of -k ll and -k direct (rank order) do not. Only the root has an
 * output, so no two ranks have to agree.
 *
 * In place: the root reads element i of its input in its one phase and the
 * same thread writes the result over it, loads before stores; the other
 * ranks only read their input. Peers never read our buffers: data is
 * pushed into their FIFOs. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "device/ring_chain.cuh"
#include "ring_mesh.h"

struct rd_ring_plan : cb_ring_reducing_moves {
  static __device__ __forceinline__ int phases(int) { return 1; }
  /* Our place in the chain decides the step: 0 is root + 1, n - 1 the root. */
  static __device__ __forceinline__ int kind(int, int n, int rank, const cb_ring_chain_args &a,
                                             int *chunk) {
    *chunk = 0;
    if (n == 1) return CB_SLICE_LOCAL;
    const int k = (rank - a.root - 1 + 2 * n) % n;
    if (k == 0) return CB_SLICE_SEND;
    return k < n - 1 ? CB_SLICE_REDUCE_SEND : CB_SLICE_FINAL;
  }
};

/* The call's chain: the whole message, towards the root. */
static cb_ring_chain_args rd_ring_args(const cb_call *call) {
  cb_ring_chain_args a;
  a.in = call->send;
  a.out = call->recv;
  a.total = call->count; /* one chunk, the whole message */
  a.chunk = call->count;
  a.in_stride = a.out_stride = 0;
  a.out_of_place = 1;
  a.root = call->root;
  return a;
}

static void cb_rd_ring_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ring_chain_setup<rd_ring_plan, false>(ctx, reply);
}

static void cb_rd_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  cb_ring_chain_launch_call<rd_ring_plan>(ctx, call, rd_ring_args(call), stream);
}

CB_KERNEL_ROW(cb_reduce_ring) =
    CB_RING_ROW("Simple protocol: a pipelined chain root+1 -> ... -> root, slices through FIFOs "
                "in the next rank's memory (one per channel), each rank adding its input",
                CB_BOTH_PLACEMENTS, cb_rd_ring_setup, cb_ring_teardown, cb_rd_ring_launch);
CB_REGISTER_KERNEL(
    reduce, cb_reduce_ring,
    "Simple protocol, a pipelined chain root+1 → … → root (the chain kernel of the "
    "other rings, one phase per slice): each rank adds its input to the slice it "
    "receives and passes it on, the root keeps the result; every link carries the "
    "message once; reduces along the chain, so its bits depend on the root (only the "
    "root has an output)");
