/* Copy-engine pushes between two flag kernels (ce_push.h): all_gather and
 * alltoall -k ce.
 *
 * The data moves by cudaMemcpyAsync instead of SM stores: each rank copies
 * its run for rank q into block r of q's output (peer pointers to the
 * harness's receive buffers, mapped in setup), and out of place its own.
 * The copies to different peers run on side streams (forked from and joined
 * back into the call's stream with events), so several copy engines work
 * at once. SMs only run the two one-block flag kernels of ce_flags.h per
 * call, with every peer: the start one before the copies (every peer's
 * stream has reached this call, so nothing on it still reads the output we
 * are about to copy into: the harness validates it after timing, and
 * between sizes poisons it and refills inputs on the stream), the end one
 * after them, joined (every copy into our output has landed before the
 * call's stream moves on). ce_flags.h has the argument. Everything here
 * (kernels, event records and waits, peer memcpys) can be captured into a
 * CUDA graph; nothing on the host changes per call.
 *
 * Out of place, our own run goes into our own block on the call's stream,
 * beside the peers' copies: by a copy engine too, or, with
 * CB_CE_OWN_COPY=sm, by a kernel of plain 16-byte loads and stores
 * (device/direct_copy.cuh) that leaves the copy engines to the peers'
 * copies (out of place was 2-3 GB/s below in place at 1 GiB on 2 x H200,
 * all_gather ce; docs/kernels.md, "ce: the own block").
 *
 * A skip_end_wait mutant (device/mutation.cuh) skips the end handshake's
 * wait: a call may then end before the peers' copies into its output have
 * landed, and the check that follows on its stream must see it. */
#include "ce_push.h"

#include <stdlib.h>

#include "collbench/cuda_check.h"
#include "device/direct_copy.cuh"
#include "collbench/error.h"
#include "grid_fit.h"
#include "collbench/tunables.h"

static const char *const ce_or_sm[] = {"ce", "sm"};
CB_REGISTER_TUNABLES(ce_push, CB_TUNABLE_CHOICE("CB_CE_OWN_COPY", ce_or_sm, 0, CB_TUNE_AGREE,
                                                "all_gather and alltoall -k ce, out of place: the "
                                                "own block copied by a copy engine (ce) or by a "
                                                "kernel (sm)"));

/* Blocks of the own-run copy kernel: enough to copy at HBM speed in less
 * time than the peers' copies take over NVLink, few enough to leave SMs. */
#define OWN_COPY_BLOCKS 32

__global__ void __launch_bounds__(CB_DIRECT_THREADS)
    ce_own_copy_kernel(const char *src, char *dst, cb_vec_split split, size_t bytes) {
  cb_copy_dsts d;
  for (int k = 0; k < CB_MAX_PEERS; k++) d.to[k] = dst;
  d.count = 1;
  cb_direct_copy(src, d, split, bytes);
}

static void copy_own(const cb_ce_push_state *st, char *mine, const char *own, size_t bytes,
                     cudaStream_t stream) {
  if (!st->own_by_sm) {
    CB_CUDA(cudaMemcpyAsync(mine, own, bytes, cudaMemcpyDefault, stream));
    return;
  }
  cb_vec_split split = cb_vec_split_make(own, cb_same_mod16(own, mine), bytes, 1);
  ce_own_copy_kernel<<<OWN_COPY_BLOCKS, CB_DIRECT_THREADS, 0, stream>>>(own, mine, split, bytes);
  CB_CUDA(cudaGetLastError());
}

extern "C" void cb_ce_push_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply,
                                 const char *parallel_env) {
  /* On every rank alike: nothing set up, ctx->state stays NULL. */
  if (cb_refuse_shared_gpus(ctx, reply, "its copies wait on a spinning flag kernel")) return;
  cb_ce_push_state *st = (cb_ce_push_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  /* Checked at start, equal on every rank (their rows: above, and the kernel's file). */
  st->parallel = (int)cb_tunable(parallel_env);
  st->own_by_sm = cb_tunable_is("CB_CE_OWN_COPY", "sm");
  cb_ce_side_setup(ctx, &st->io);
  CB_CUDA(cudaDeviceSynchronize());
  ctx->state = st;
}

extern "C" void cb_ce_push_teardown(cb_kernel_ctx *ctx) {
  cb_ce_push_state *st = (cb_ce_push_state *)ctx->state;
  if (st) cb_ce_side_teardown(ctx, &st->io); /* NULL: the setup refused the run */
}

extern "C" void cb_ce_push_resources(const cb_kernel_ctx *ctx, size_t bytes, int own_copy,
                                     cb_kernel_resources *r) {
  const cb_ce_push_state *st = (const cb_ce_push_state *)ctx->state;
  const int n = ctx->nranks;
  if (bytes == 0) return;
  cb_ce_flags_resources(r, 2);
  const int side = st->parallel && n > 1;
  r->side_streams = side ? n - 1 : 0;
  r->copies = n - 1;
  r->copy_streams = side ? n - 1 : n > 1;
  if (!own_copy) return;
  if (st->own_by_sm) {
    cb_res_grid(r, "own copy", (const void *)ce_own_copy_kernel, OWN_COPY_BLOCKS, CB_DIRECT_THREADS,
                0);
    return;
  }
  r->copies++;
  if (side || n == 1) r->copy_streams++; /* the call's stream, beside the side streams */
}

extern "C" void cb_ce_push_launch(cb_kernel_ctx *ctx, const char *src, size_t src_stride,
                                  char *mine, size_t bytes, cudaStream_t stream) {
  const cb_ce_push_state *st = (const cb_ce_push_state *)ctx->state;
  const int n = ctx->nranks, rank = ctx->rank;
  if (bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  char *dst[CB_MAX_PEERS];
  for (int r = 0; r < n; r++) {
    dst[r] = (char *)cb_peer_ptr_in(&st->io.recv, 1, r, mine);
    if (!dst[r]) cb_fatal("kernel %s: the output is not in the harness's buffer", ctx->kernel_name);
  }
  const unsigned every_peer = cb_ce_every_peer(n);

  cb_ce_flags_launch(ctx, &st->io.flags, every_peer, 0, stream);
  if (st->parallel && n > 1) CB_CUDA(cudaEventRecord(st->io.fork, stream)); /* after the start */
  for (int p = 1; p < n; p++) {
    int peer = (rank + p) % n; /* from the next rank on: ranks spread over the links */
    cudaStream_t s = st->parallel ? st->io.side[p - 1] : stream;
    if (st->parallel) CB_CUDA(cudaStreamWaitEvent(s, st->io.fork, 0));
    CB_CUDA(
        cudaMemcpyAsync(dst[peer], src + (size_t)peer * src_stride, bytes, cudaMemcpyDefault, s));
    if (st->parallel) CB_CUDA(cudaEventRecord(st->io.join[p - 1], s));
  }
  const char *own = src + (size_t)rank * src_stride;
  if (own != mine) copy_own(st, mine, own, bytes, stream);
  if (st->parallel)
    for (int p = 1; p < n; p++) CB_CUDA(cudaStreamWaitEvent(stream, st->io.join[p - 1], 0));
  cb_ce_flags_launch(ctx, &st->io.flags, every_peer, 1, stream);
}
