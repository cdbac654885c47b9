/* -k ce: copy engines move the data, SMs only reduce (large messages).
 *
 * Rank r owns chunk r of the message (chunks of ceil(count/n) elements,
 * rounded up to 16 bytes, rank_chunk.h). The reduce-scatter is ce_reduce.cu's
 * (which has the protocol, the streams and their ordering argument): every
 * rank pushes, piece by piece, its input's share of every peer's chunk into
 * that peer's scratch with a "landed" flag per piece, and reduces each
 * piece of its own chunk, in rank order, into its output as soon as every
 * peer's share of it has landed. Then, on a third side stream (ag), after
 * the reduce of piece k (an event), our output's piece k goes into every
 * peer's output (cudaMemcpyAsync). Pushes of later pieces run while earlier
 * ones are reduced, and both directions of every link carry data all the
 * time. The call ends with the exit handshake, because we pushed into the
 * peers' outputs: every push into ours has landed when it returns.
 *
 * In place (send == recv): piece k of chunk p of our buffer is read by our
 * push to rank p (rs) before rank p can push its result for that piece
 * back into it (rank p reduces piece k only after our push landed). Our
 * own chunk is read and written by our reduce, element by element in the
 * same thread. So no byte is read after being overwritten. */
#include <stdint.h>

#include "ce_reduce.h"
#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "peer_limits.h"
#include "rank_chunk.h"
#include "collbench/tunables.h"

static const cb_ce_schedule ar_schedule = {"CB_AR_CE_PIECES", "CB_AR_CE_TAPER"};

static void cb_ar_ce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ce_reduce_setup(ctx, reply, &ar_schedule);
}

/* Part p of a call is chunk p of the message, cut as the setup's tunables say. */
static void ar_ce_parts(const cb_kernel_ctx *ctx, const cb_call *call, cb_ce_parts *parts) {
  const cb_ce_reduce_state *st = (const cb_ce_reduce_state *)ctx->state;
  const int n = ctx->nranks;
  const size_t esz = cb_dtype_size(call->dtype);
  for (int p = 0; p < n; p++)
    cb_rank_chunk(call->count, n, esz, p, &parts->first[p], &parts->len[p]);
  cb_ce_plan(&st->cut, n, esz, parts);
}

static void cb_ar_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t s) {
  const cb_ce_reduce_state *st = (const cb_ce_reduce_state *)ctx->state;
  if (call->count == 0) return;
  const int n = ctx->nranks, me = ctx->rank;
  const size_t esz = cb_dtype_size(call->dtype);
  cb_ce_parts parts;
  ar_ce_parts(ctx, call, &parts);
  char *out = (char *)call->recv + parts.first[me] * esz; /* our chunk of our output */
  cb_ce_reduce_begin(ctx, call, &parts, s);
  size_t at, len;
  for (size_t k = 0; k < parts.pieces && (len = cb_ce_piece(&parts, parts.len[me], k, &at)); k++) {
    cudaEvent_t reduced = cb_ce_reduce_piece(ctx, call, &parts, k, out, s);
    /* ag: the reduced piece into every peer's output. */
    char *src = out + at * esz;
    CB_CUDA(cudaStreamWaitEvent(st->ag, reduced, 0));
    for (int p = 0; p < n; p++) {
      if (p == me) continue;
      void *dst = cb_peer_ptr_in(&st->bufs[1], 1, p, src);
      CB_CUDA(cudaMemcpyAsync(dst, src, len * esz, cudaMemcpyDefault, st->ag));
    }
  }
  cb_ce_reduce_end(ctx, 1, s);
}

/* The reduce-scatter of ce_reduce.cu, our results pushed into the peers' outputs, the exit
 * handshake. */
static void cb_ar_ce_resources(const cb_kernel_ctx *ctx, const cb_call *call,
                               cb_kernel_resources *r) {
  if (call->count == 0) return;
  cb_ce_parts parts;
  ar_ce_parts(ctx, call, &parts);
  cb_ce_reduce_resources(ctx, call, &parts, 1, 1, r);
}

CB_KERNEL_ROW(cb_all_reduce_ce) = CB_PEER_ROW_RESOURCES(
    "ce",
    "copy engines push every byte (reduce-scatter pieces into the peers' "
    "scratch, then the results into the peers' outputs); SMs only reduce",
    CB_BOTH_PLACEMENTS, cb_ar_ce_setup, cb_ce_reduce_teardown, cb_ar_ce_launch, cb_ar_ce_resources,
    CB_WAITS_HANDSHAKE | CB_WAITS_CE_LANDED);
CB_REGISTER_KERNEL(all_reduce, cb_all_reduce_ce,
                   "copy engines move every byte, SMs only reduce: each rank pushes "
                   "(`cudaMemcpyAsync`) its input's share of every peer's chunk into that peer's "
                   "scratch, in pieces (`CB_AR_CE_PIECES`, two by default) with a \"landed\" flag "
                   "per piece; each rank reduces its chunk as pieces land and pushes the result "
                   "into every peer's output; start and end flag handshakes; for large messages");
/* Few equal pieces: the all-gather's copies hide the drain (ce_reduce.cu says why). */
CB_REGISTER_TUNABLES(all_reduce_ce,
                     CB_TUNABLE_NUMBER("CB_AR_CE_PIECES", 1, 64, 1, 2, CB_TUNE_AGREE,
                                       "all_reduce -k ce: equal pieces per part of its "
                                       "reduce-scatter"),
                     CB_TUNABLE_NUMBER("CB_AR_CE_TAPER", 0, 90, 1, 0, CB_TUNE_AGREE,
                                       "all_reduce -k ce: above 0, pieces that each take this "
                                       "percent of what is left of the part instead"));
