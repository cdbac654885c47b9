/* -k ll: reduce by LL16 packets, for small messages.
 *
 * Every other rank writes its whole input, as LL16 packets, into its slot
 * of the root's scratch; the root polls its scratch until every rank's
 * packets carry the epoch, reduces them with its own input in rank order
 * (0, 1, ..., n-1, as -k ll of all_reduce) and writes the result. One
 * kernel, no handshake: the flag travels with the data.
 *
 * The senders read nothing back from the root, so only credits keep them
 * from lapping it under back-to-back launches: the kernel is
 * CB_LL_CREDITED, and its warps are device/ll_rooted.cuh's many-to-one
 * ones (the root returns credit to every sender for all of its tiles
 * before it polls; a sender waits for the root's credit of a tile before
 * pushing it).
 *
 * In place: the root's lane reads element i of its input before it writes
 * the result over it; the senders only read theirs. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/device/dispatch.cuh"
#include "device/ll_reduce.cuh"
#include "device/ll_rooted.cuh"
#include "collbench/device/type_op_funcs.cuh"
#include "ll_mesh.h"

/* The root's work on packet i: every rank's packet reduced in rank order,
 * ours from our input (loaded before the polls, so its latency hides behind
 * them). */
template <typename T, int OP> struct rdll_take {
  const cb_ll_rooted_args &a;
  __device__ __forceinline__ void operator()(uint64_t epoch, size_t i) const {
    const uint2 mine = cb_load_pack8(a.send, i, a.bytes);
    cb_store_pack8(a.recv, i, a.bytes,
                   cb_ll_reduce_ranks<T, OP>(a.v.ll, epoch, cb_ll_flag(epoch), i, mine, a.spin));
  }
};

template <typename T, int OP> __global__ void rdll_kernel(cb_ll_rooted_args a) {
  if (a.v.ll.rank != a.root) {
    cb_ll_push_to_root(a.v, a.root, a.send, a.bytes, a.spin);
    return;
  }
  cb_ll_credit_senders(a.v, a.bytes, CB_LL_BEFORE_POLLS);
  cb_ll_root_receive(a.v.ll, a.bytes, rdll_take<T, OP>{a});
  /* Nothing in a normal build: where the late_credit mutant returns credit. */
  cb_ll_credit_senders(a.v, a.bytes, CB_LL_AFTER_POLLS);
}

/* The root keeps no copy of its own input: it reduces it with the others. */
template <typename T, int OP>
static void launch_typed(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  cb_ll_rooted_launch<rdll_kernel<T, OP>>(ctx, call, call->count * cb_dtype_size(call->dtype), 0,
                                          stream);
}

CB_DEFINE_TYPE_OP_FUNCS(rdll_funcs, rdll_kernel)

static void cb_rd_ll_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  uint64_t max = cb_ll_run_bytes(ctx);
  const void *funcs[CB_TYPE_OP_FUNCS];
  cb_ll_rooted_setup(ctx, reply, max, funcs, rdll_funcs(funcs));
}

static void cb_rd_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, launch_typed, ctx, call, stream);
}

CB_KERNEL_ROW(cb_reduce_ll) = CB_LL_ROW(
    "ll",
    "LL16: every rank pushes its input to the root as packets, the root reduces them "
    "in rank order; the root returns credits",
    CB_BOTH_PLACEMENTS, cb_rd_ll_setup, cb_rd_ll_launch, CB_WAITS_LL | CB_WAITS_LL_CREDIT);
CB_REGISTER_KERNEL(reduce, cb_reduce_ll,
                   "LL16: every other rank pushes its input to the root as packets, the root "
                   "reduces them with its own in rank order; the root returns credits to every "
                   "sender (`src/kernels/ll/device/ll_rooted.cuh`); up to 1 MiB");
