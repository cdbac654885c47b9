/* -k ll: scatter by LL16 packets, for small messages.
 *
 * The root writes block q of its input, as LL16 packets, into its slot of
 * rank q's scratch, and out of place block r into its own output; every
 * other rank polls its scratch until the root's packets carry the epoch and
 * copies them into its output. One kernel, no handshake: the flag travels
 * with the data. The root reads nothing back, so the kernel is
 * CB_LL_CREDITED; its warps are device/ll_rooted.cuh's one-to-many ones
 * (those of -k ll of broadcast, with a run per peer).
 *
 * In place: the root's output is its own block of its input, which it only
 * reads (it is not copied); the others write only their output, and never
 * read their input. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "device/ll_rooted.cuh"
#include "ll_mesh.h"

/* a.send: the root's input, block q for rank q (read on the root only). */
__global__ void scll_kernel(cb_ll_rooted_args a) {
  if (a.v.ll.rank == a.root)
    cb_ll_root_push<false>(a.v, a.send, a.bytes, a.copy_own ? a.recv : NULL, a.bytes, a.spin);
  else
    cb_ll_from_root(a.v, a.root, a.recv, a.bytes, a.spin);
}

static void cb_sc_ll_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  const void *func = (const void *)scll_kernel;
  cb_ll_rooted_setup(ctx, reply, cb_ll_run_block_bytes(ctx), &func, 1);
}

static void cb_sc_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  const char *own = (const char *)call->send + (size_t)ctx->rank * bytes;
  cb_ll_rooted_launch<scll_kernel>(ctx, call, bytes, ctx->rank == call->root && own != call->recv,
                                   stream);
}

CB_KERNEL_ROW(cb_scatter_ll) = CB_LL_ROW(
    "ll",
    "LL16: the root pushes block q of its input to rank q as packets, each rank "
    "copies them into its output; ranks return credits to the root",
    CB_BOTH_PLACEMENTS, cb_sc_ll_setup, cb_sc_ll_launch, CB_WAITS_LL | CB_WAITS_LL_CREDIT);
CB_REGISTER_KERNEL(
    scatter, cb_scatter_ll,
    "LL16: the root pushes block q of its input to rank q as packets (broadcast's ll "
    "with a block per rank); ranks return credits to the root; up to 1 MiB (the "
    "root's whole input)");
