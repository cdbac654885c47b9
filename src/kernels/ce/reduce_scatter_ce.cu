/* -k ce: reduce-scatter by copy engines, SMs only reduce (large messages).
 *
 * Part p of every rank's input is block p: ce_reduce.cu's reduce-scatter
 * (which has the protocol, the streams and their ordering argument) with
 * the blocks as parts. Every rank pushes, piece by piece, block q of its
 * input into its slot of rank q's scratch (cudaMemcpyAsync, one copy engine
 * stream) with a "landed" flag per piece, and reduces each piece of its own
 * block, in rank order, into its output as soon as every peer's copy of it
 * has landed; pushes of later pieces run while earlier ones are reduced.
 * Only the scratch is written by peers, so the call needs no exit
 * handshake (ce_reduce.cu says why).
 *
 * In place: our output is block r of our input. Our reduce reads (as our
 * contribution) and writes each element of it in one thread, loads first;
 * our pushes read only the other blocks, which nothing writes. */
#include <stdint.h>

#include "ce_reduce.h"
#include "collbench/kernel.h"
#include "peer_limits.h"
#include "collbench/tunables.h"

static const cb_ce_schedule rs_schedule = {"CB_RS_CE_PIECES", "CB_RS_CE_TAPER"};

static void cb_rs_ce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_ce_reduce_setup(ctx, reply, &rs_schedule);
}

/* Part p of a call is block p of the input, cut as the setup's tunables say. */
static void rs_ce_parts(const cb_kernel_ctx *ctx, const cb_call *call, cb_ce_parts *parts) {
  const cb_ce_reduce_state *st = (const cb_ce_reduce_state *)ctx->state;
  for (int p = 0; p < ctx->nranks; p++) {
    parts->first[p] = (size_t)p * call->count;
    parts->len[p] = call->count;
  }
  cb_ce_plan(&st->cut, ctx->nranks, cb_dtype_size(call->dtype), parts);
}

static void cb_rs_ce_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t s) {
  if (call->count == 0) return;
  cb_ce_parts parts;
  rs_ce_parts(ctx, call, &parts);
  cb_ce_reduce_begin(ctx, call, &parts, s);
  size_t at;
  for (size_t k = 0; k < parts.pieces && cb_ce_piece(&parts, call->count, k, &at); k++)
    cb_ce_reduce_piece(ctx, call, &parts, k, call->recv, s);
  cb_ce_reduce_end(ctx, 0, s);
}

/* The reduce-scatter of ce_reduce.cu alone: no results pushed, no exit handshake. */
static void cb_rs_ce_resources(const cb_kernel_ctx *ctx, const cb_call *call,
                               cb_kernel_resources *r) {
  if (call->count == 0) return;
  cb_ce_parts parts;
  rs_ce_parts(ctx, call, &parts);
  cb_ce_reduce_resources(ctx, call, &parts, 0, 0, r);
}

CB_KERNEL_ROW(cb_reduce_scatter_ce) = CB_PEER_ROW_RESOURCES(
    "ce",
    "copy engines push block q of every rank's input, piece by piece, into rank "
    "q's scratch with a landed flag per piece; SMs only reduce, in rank order",
    CB_BOTH_PLACEMENTS, cb_rs_ce_setup, cb_ce_reduce_teardown, cb_rs_ce_launch, cb_rs_ce_resources,
    CB_WAITS_HANDSHAKE | CB_WAITS_CE_LANDED);
CB_REGISTER_KERNEL(reduce_scatter, cb_reduce_scatter_ce,
                   "copy engines move every byte, SMs only reduce: each rank pushes "
                   "(`cudaMemcpyAsync`) block q of its input into rank q's scratch, piece by piece "
                   "with a \"landed\" flag per piece, and reduces its own block in rank order as "
                   "pieces land (the reduce-scatter half of all_reduce's ce); the pieces shrink as "
                   "the block ends (each takes 30% of what is left, `CB_RS_CE_TAPER`), so that the "
                   "last reduce is short; for large messages");
/* A taper: nothing hides the drain here (ce_reduce.cu says why). */
CB_REGISTER_TUNABLES(reduce_scatter_ce,
                     CB_TUNABLE_NUMBER("CB_RS_CE_PIECES", 1, 64, 1, 4, CB_TUNE_AGREE,
                                       "reduce_scatter -k ce: equal pieces per part"),
                     CB_TUNABLE_NUMBER("CB_RS_CE_TAPER", 0, 90, 1, 30, CB_TUNE_AGREE,
                                       "reduce_scatter -k ce: above 0, pieces that each take this "
                                       "percent of what is left of the part instead"));
