/* -k ring: Simple-protocol ring reduce-scatter for large messages.
 *
 * Around the ring (rank -> rank+1), the chain kernel (device/ring_chain.cuh:
 * channels, slices, FIFOs in the next rank's memory and their ordering)
 * runs the reduce-scatter plan (device/ring_rs_plan.cuh: its phases, chunk
 * order and in-place argument) over the blocks of the input: block k ends,
 * reduced over every rank, at rank k, in our output. It is the
 * reduce-scatter half of the all-reduce ring, with the same tunables. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "device/ring_chain.cuh"
#include "device/ring_rs_plan.cuh"
#include "ring_mesh.h"

/* The call's chains: block k of every input, along n - 1 hops to rank k. */
static cb_ring_chain_args rs_ring_args(const cb_kernel_ctx *ctx, const cb_call *call) {
  cb_ring_chain_args a;
  a.in = call->send;
  a.out = call->recv;
  a.total = call->count * (size_t)ctx->nranks;
  a.chunk = call->count;
  a.in_stride = call->count;
  a.out_stride = 0; /* only the last phase writes, our block's result */
  a.out_of_place = 1;
  return a;
}

static void cb_rs_ring_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ring_chain_setup<cb_ring_rs_plan, false>(ctx, reply);
}

static void cb_rs_ring_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  cb_ring_check_blocks(ctx, bytes);
  cb_ring_chain_launch_call<cb_ring_rs_plan>(ctx, call, rs_ring_args(ctx, call), stream);
}

CB_KERNEL_ROW(cb_reduce_scatter_ring) =
    CB_RING_ROW("Simple ring: block k is reduced along a chain of n-1 hops ending at rank k, "
                "chunked and pipelined, one ring per block (channel), through FIFOs in the next "
                "rank's memory",
                CB_BOTH_PLACEMENTS, cb_rs_ring_setup, cb_ring_teardown, cb_rs_ring_launch);
CB_REGISTER_KERNEL(
    reduce_scatter, cb_reduce_scatter_ring,
    "Simple protocol: block k is reduced along a chain of n-1 hops that ends at rank "
    "k, chunked and pipelined, through FIFOs in the next rank's memory (the "
    "reduce-scatter half of all_reduce's ring, same tunables); for large messages");
