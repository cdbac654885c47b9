/* Copy-engine kernels with a root (ce_rooted.h). Ordering: ce_flags.h. */
#include "ce_rooted.h"

#include <stdlib.h>

#include "collbench/cuda_check.h"
#include "collbench/device/handshake.cuh"
#include "collbench/error.h"
#include "grid_fit.h"

extern "C" void cb_ce_rooted_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  /* As ce_push.cu: with ranks sharing a GPU a side stream's copy (a branch
   * of the graph in graph mode) can be queued behind another rank's flag
   * kernel, which spins until that copy's end kernel runs. Seen with the ce
   * kernels of all_reduce and all_gather, 3 ranks on 2 H200s, graph mode:
   * stopped by the timeout (docs/architecture.md, "Ranks sharing a GPU").
   * On every rank alike: nothing set up, ctx->state stays NULL. */
  if (cb_refuse_shared_gpus(ctx, reply, "its copies wait on a spinning flag kernel")) return;
  cb_ce_rooted_state *st = (cb_ce_rooted_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  cb_ce_side_setup(ctx, &st->io);
  ctx->state = st;
}

extern "C" void cb_ce_rooted_teardown(cb_kernel_ctx *ctx) {
  cb_ce_rooted_state *st = (cb_ce_rooted_state *)ctx->state;
  if (st) cb_ce_side_teardown(ctx, &st->io); /* NULL: the setup refused the run */
}

/* The copies, after the start kernel: those to other ranks on side streams
 * (forked right after it), ours on the call's stream; all joined back before
 * the end kernel is enqueued. */
static void copy_all(const cb_kernel_ctx *ctx, const cb_ce_rooted_state *st,
                     const cb_ce_copy *copies, int ncopies, size_t bytes, cudaStream_t stream) {
  int side = 0, remote = 0;
  for (int k = 0; k < ncopies; k++) remote += copies[k].to != ctx->rank;
  if (remote > ctx->nranks - 1) cb_fatal("kernel %s: more copies than peers", ctx->kernel_name);
  if (remote) CB_CUDA(cudaEventRecord(st->io.fork, stream)); /* after the start kernel */
  for (int k = 0; k < ncopies; k++) {
    const cb_ce_copy *c = &copies[k];
    void *dst = cb_peer_ptr_in(&st->io.recv, 1, c->to, c->dst);
    if (!dst) cb_fatal("kernel %s: the output is not in the harness's buffer", ctx->kernel_name);
    if (c->to == ctx->rank) {
      CB_CUDA(cudaMemcpyAsync(dst, c->src, bytes, cudaMemcpyDefault, stream));
      continue;
    }
    CB_CUDA(cudaStreamWaitEvent(st->io.side[side], st->io.fork, 0));
    CB_CUDA(cudaMemcpyAsync(dst, c->src, bytes, cudaMemcpyDefault, st->io.side[side]));
    CB_CUDA(cudaEventRecord(st->io.join[side], st->io.side[side]));
    side++;
  }
  for (int k = 0; k < side; k++) CB_CUDA(cudaStreamWaitEvent(stream, st->io.join[k], 0));
}

extern "C" void cb_ce_rooted_launch(cb_kernel_ctx *ctx, int root, const cb_ce_copy *copies,
                                    int ncopies, size_t bytes, cudaStream_t stream) {
  const cb_ce_rooted_state *st = (const cb_ce_rooted_state *)ctx->state;
  const int n = ctx->nranks, rank = ctx->rank;
  if (bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  unsigned partners = 0;  /* the root with every other rank */
  for (int p = 1; p < n; p++)
    if (rank == root || (rank + p) % n == root) partners |= CB_HS_OFFSET(p);
  cb_ce_flags_launch(ctx, &st->io.flags, partners, 0, stream);
  copy_all(ctx, st, copies, ncopies, bytes, stream);
  cb_ce_flags_launch(ctx, &st->io.flags, partners, 1, stream);
}
