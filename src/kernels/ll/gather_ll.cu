/* -k ll: gather by LL16 packets, for small messages.
 *
 * Every other rank writes its block, as LL16 packets, into its slot of the
 * root's scratch; the root polls its scratch until each rank's packets carry
 * the epoch and copies them into that rank's block of its output, and out
 * of place copies its own block. One kernel, no handshake: the flag travels
 * with the data.
 *
 * The senders read nothing back from the root, so only credits keep them
 * from lapping it under back-to-back launches: the kernel is
 * CB_LL_CREDITED, and its warps are device/ll_rooted.cuh's many-to-one
 * ones, as -k ll of reduce.
 *
 * In place: the root's block of its output is its input, which it only
 * reads (it is not copied); the packets it receives go to the other
 * blocks. The senders only read their input. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "device/ll_rooted.cuh"
#include "ll_mesh.h"

/* The root's work on packet i: every rank's packet i into its block of our
 * output (a.recv: block q is rank q's input). */
struct gall_take {
  const cb_ll_rooted_args &a;
  __device__ __forceinline__ void operator()(uint64_t epoch, size_t i) const {
    const cb_ll_mesh &m = a.v.ll;
    if (a.copy_own)
      cb_store_pack8(a.recv + (size_t)m.rank * a.bytes, i, a.bytes,
                     cb_load_pack8(a.send, i, a.bytes));
    for (int p = 1; p < m.nranks; p++) {
      const int src = (m.rank + p) % m.nranks;
      cb_store_pack8(a.recv + (size_t)src * a.bytes, i, a.bytes,
                     cb_ll_take(m, epoch, src, i, a.spin));
    }
  }
};

__global__ void gall_kernel(cb_ll_rooted_args a) {
  if (a.v.ll.rank != a.root) {
    cb_ll_push_to_root(a.v, a.root, a.send, a.bytes, a.spin);
    return;
  }
  cb_ll_credit_senders(a.v, a.bytes, CB_LL_BEFORE_POLLS);
  cb_ll_root_receive(a.v.ll, a.bytes, gall_take{a});
  /* Nothing in a normal build: where the late_credit mutant returns credit. */
  cb_ll_credit_senders(a.v, a.bytes, CB_LL_AFTER_POLLS);
}

static void cb_ga_ll_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  const void *func = (const void *)gall_kernel;
  cb_ll_rooted_setup(ctx, reply, cb_ll_run_block_bytes(ctx), &func, 1);
}

static void cb_ga_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const size_t bytes = call->count * cb_dtype_size(call->dtype);
  const char *mine = (const char *)call->recv + (size_t)ctx->rank * bytes; /* our block */
  cb_ll_rooted_launch<gall_kernel>(ctx, call, bytes, ctx->rank == call->root && call->send != mine,
                                   stream);
}

CB_KERNEL_ROW(cb_gather_ll) = CB_LL_ROW(
    "ll",
    "LL16: every rank pushes its block to the root as packets, the root copies them "
    "into its output; the root returns credits",
    CB_BOTH_PLACEMENTS, cb_ga_ll_setup, cb_ga_ll_launch, CB_WAITS_LL | CB_WAITS_LL_CREDIT);
CB_REGISTER_KERNEL(
    gather, cb_gather_ll,
    "LL16: every other rank pushes its block to the root as packets, the root copies "
    "them into its output; the root returns credits to every sender; up to 1 MiB "
    "(the root's whole output)");
