/* -k direct: reduce-scatter by direct loads from every peer's input.
 *
 * Rank r's output is the reduction over all ranks q of block r of q's
 * input: rank r runs the shared direct reduce kernel
 * (device/direct_reduce.cuh: handshakes, rank-order sum, 16-byte loads over
 * NVLink) over block r of every rank's input, with its own output as the
 * only destination. In place the input is in the receive buffer; the
 * output is block r of it.
 *
 * In place: a peer writes its own block q of its input region in its
 * previous call, and loads only block q of ours; we load block r of every
 * rank's region and write block r of ours. Element i of our block r is
 * loaded (as our contribution) and then written by the same thread, so no
 * byte is read after being overwritten. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "device/direct_reduce.cuh"
#include "collbench/device/dispatch.cuh"
#include "direct_mesh.h"
#include "peer_limits.h"

static void cb_rs_direct_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_direct_reduce_setup(ctx, reply, "CB_RS_DIRECT");
}

static void cb_rs_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  const int n = ctx->nranks, rank = ctx->rank;
  const size_t elem = cb_dtype_size(call->dtype);
  cb_direct_reduce_args a;
  a.bytes = call->count * elem;
  if (a.bytes == 0) return; /* on every rank alike: nothing to reduce, no epoch */
  const char *ours = (const char *)call->send + (size_t)rank * a.bytes; /* block r of our input */
  a.out[0] = (char *)call->recv;
  a.nout = 1;
  int same = cb_same_mod16(ours, a.out[0]);
  for (int q = 0; q < CB_MAX_PEERS; q++) {
    a.in[q] = q < n ? (const char *)cb_direct_peer_ptr(ctx, st, q, ours) : NULL;
    if (q < n) same &= cb_same_mod16(ours, a.in[q]);
  }
  a.split = cb_vec_split_make(ours, same, a.bytes, elem);
  /* Blocks by the bytes a rank loads from its peers. */
  cb_direct_reduce_enqueue(ctx, &a, call, cb_direct_blocks(st, cb_direct_run_traffic(n, a.bytes)),
                           stream);
}

CB_KERNEL_ROW(cb_reduce_scatter_direct) =
    CB_PEER_ROW_RESOURCES("direct",
                          "every rank loads its block of every peer's input with 16-byte loads and "
                          "reduces in rank order, start and end flag handshakes per block",
                          CB_BOTH_PLACEMENTS, cb_rs_direct_setup, cb_direct_teardown,
                          cb_rs_direct_launch, cb_direct_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(
    reduce_scatter, cb_reduce_scatter_direct,
    "every rank loads its block of every peer's input with 16-byte loads over NVLink "
    "and reduces in rank order; per-block start and end flag handshakes; for mid and "
    "large messages (the same kernel as all_reduce's direct, one destination)");
CB_DIRECT_TUNABLES(reduce_scatter_direct, "CB_RS_DIRECT", "reduce_scatter");
