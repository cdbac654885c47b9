/* -k ce: broadcast by copy engines.
 *
 * The data moves as in -k direct, but by cudaMemcpyAsync instead of SM
 * stores: the root copies its input into every peer's output (peer
 * pointers to the harness's receive buffers, mapped in setup), and out of
 * place into its own. The copies to different peers run on side streams
 * (forked from and joined back into the call's stream with events), so
 * several copy engines work at once. SMs only run the two one-block flag
 * kernels of ce_flags.h around the copies, between the root and each other
 * rank: start (the peers' outputs are free) and end (the root's copies have
 * landed). Peers only run the flag kernels. Everything can be captured into
 * a CUDA graph; nothing on the host changes per call.
 *
 * In place (send == recv): the root's buffer is only read. */
#include <stdint.h>
#include <stdlib.h>

#include "broadcast_kernels.h"
#include "ce_flags.h"
#include "cuda_check.h"
#include "device/handshake.cuh"
#include "peer_memory.h"

typedef struct {
  cb_peer_buffer recv; /* the harness's receive buffer of every rank */
  cb_ce_flags flags;
  cudaStream_t side[CB_MAX_PEERS]; /* [p - 1]: the copy to the rank at ring offset p */
  cudaEvent_t fork, join[CB_MAX_PEERS];
} bcce_state;

extern "C" void cb_bc_ce_setup(cb_kernel_ctx *ctx) {
  bcce_state *st = (bcce_state *)calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  cb_peer_share(ctx->world, ctx->recv_buf, ctx->recv_buf_bytes, &st->recv);
  cb_ce_flags_setup(ctx, &st->flags);
  CB_CUDA(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
  for (int p = 0; p < ctx->nranks - 1; p++) {
    CB_CUDA(cudaStreamCreateWithFlags(&st->side[p], cudaStreamNonBlocking));
    CB_CUDA(cudaEventCreateWithFlags(&st->join[p], cudaEventDisableTiming));
  }
  ctx->state = st;
}

extern "C" void cb_bc_ce_teardown(cb_kernel_ctx *ctx) {
  bcce_state *st = (bcce_state *)ctx->state;
  for (int p = 0; p < ctx->nranks - 1; p++) {
    CB_CUDA(cudaStreamDestroy(st->side[p]));
    CB_CUDA(cudaEventDestroy(st->join[p]));
  }
  CB_CUDA(cudaEventDestroy(st->fork));
  cb_peer_free(ctx->world, &st->recv); /* unmaps the peers' buffers; ours is the harness's */
  cb_ce_flags_free(ctx, &st->flags);
  free(st);
  ctx->state = NULL;
}

/* The root's copies: one per peer on its side stream, from the next rank
 * on, and its own out of place on the call's stream; joined back. */
static void root_copies(const cb_kernel_ctx *ctx, const bcce_state *st, const cb_call *call,
                        size_t bytes, cudaStream_t stream) {
  const int n = ctx->nranks;
  if (n > 1) CB_CUDA(cudaEventRecord(st->fork, stream)); /* after the start kernel */
  for (int p = 1; p < n; p++) {
    void *dst = cb_peer_ptr_in(&st->recv, 1, (ctx->rank + p) % n, call->recv);
    if (!dst) cb_fatal("kernel %s: the output is not in the harness's buffer", ctx->kernel_name);
    CB_CUDA(cudaStreamWaitEvent(st->side[p - 1], st->fork, 0));
    CB_CUDA(cudaMemcpyAsync(dst, call->send, bytes, cudaMemcpyDefault, st->side[p - 1]));
    CB_CUDA(cudaEventRecord(st->join[p - 1], st->side[p - 1]));
  }
  if (call->send != call->recv)
    CB_CUDA(cudaMemcpyAsync(call->recv, call->send, bytes, cudaMemcpyDefault, stream));
  for (int p = 1; p < n; p++) CB_CUDA(cudaStreamWaitEvent(stream, st->join[p - 1], 0));
}

extern "C" void cb_bc_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const bcce_state *st = (const bcce_state *)ctx->state;
  const int n = ctx->nranks, rank = ctx->rank, root = call->root;
  size_t bytes = call->count * cb_dtype_size(call->dtype);
  if (bytes == 0) return; /* on every rank alike: nothing to move, no epoch */
  unsigned partners = 0;
  for (int p = 1; p < n; p++)
    if (rank == root || (rank + p) % n == root) partners |= CB_HS_OFFSET(p);
  cb_ce_flags_launch(ctx, &st->flags, partners, 0, stream);
  if (rank == root) root_copies(ctx, st, call, bytes, stream);
  cb_ce_flags_launch(ctx, &st->flags, partners, 1, stream);
}
