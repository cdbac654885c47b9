/* -k direct: reduce by the root's direct loads from every rank's input.
 *
 * The root runs the shared direct reduce kernel (device/direct_reduce.cuh:
 * handshakes, rank-order sum, 16-byte loads over NVLink) over every rank's
 * input, with its own output as the only destination; the other ranks
 * launch the same blocks with nothing to reduce and only shake hands
 * (START: our input for this call is written; END: the root's loads from it
 * are done, so our stream may overwrite it). Nothing is copied twice and no
 * scratch is used; the root's links carry n - 1 inputs, so at 3 or more
 * ranks the chain of -k ring, where every link carries one, is the one for
 * large messages.
 *
 * In place: the root loads element i of every input, its own included, and
 * the same thread then writes the result over its own; the other ranks'
 * buffers are only read, by the root. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "device/direct_reduce.cuh"
#include "collbench/device/dispatch.cuh"
#include "direct_mesh.h"
#include "peer_limits.h"

static void cb_rd_direct_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_direct_reduce_setup(ctx, reply, "CB_RD_DIRECT");
}

static void cb_rd_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  const int n = ctx->nranks, rank = ctx->rank, root = rank == call->root;
  const size_t elem = cb_dtype_size(call->dtype), bytes = call->count * elem;
  if (bytes == 0) return; /* on every rank alike: nothing to reduce, no epoch */
  const char *ours = (const char *)call->send;
  cb_direct_reduce_args a;
  a.bytes = root ? bytes : 0; /* the others only shake hands */
  a.out[0] = (char *)call->recv;
  a.nout = root;
  int same = cb_same_mod16(ours, a.out[0]);
  for (int q = 0; q < CB_MAX_PEERS; q++) {
    a.in[q] = root && q < n ? (const char *)cb_direct_peer_ptr(ctx, st, q, ours) : NULL;
    if (a.in[q]) same &= cb_same_mod16(ours, a.in[q]);
  }
  a.split = cb_vec_split_make(ours, same, a.bytes, elem);
  /* Blocks by the bytes the root loads from its peers: the same on every rank. */
  cb_direct_reduce_enqueue(ctx, &a, call, cb_direct_blocks(st, cb_direct_run_traffic(n, bytes)),
                           stream);
}

CB_KERNEL_ROW(cb_reduce_direct) = CB_PEER_ROW_RESOURCES(
    "direct",
    "the root loads every rank's input with 16-byte loads over NVLink and reduces in "
    "rank order; start and end flag handshakes per block",
    CB_BOTH_PLACEMENTS, cb_rd_direct_setup, cb_direct_teardown, cb_rd_direct_launch,
    cb_direct_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(
    reduce, cb_reduce_direct,
    "the root loads every rank's input with 16-byte loads over NVLink and reduces in "
    "rank order (all_reduce's direct kernel, one destination); the other ranks only "
    "shake hands");
CB_DIRECT_TUNABLES(reduce_direct, "CB_RD_DIRECT", "reduce");
