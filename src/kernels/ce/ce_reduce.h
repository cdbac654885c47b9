/* Copy engines push, SMs reduce: the reduce-scatter shared by all_reduce
 * and reduce_scatter -k ce. Each rank's input is cut into one part per
 * rank; part p is reduced over every rank by rank p. Every rank pushes
 * (cudaMemcpyAsync) its part p, piece by piece, into its slot of rank p's
 * scratch and signals each piece as landed; rank p reduces each piece of
 * its part as soon as every peer's copy of it has landed. The protocol,
 * its ordering argument and its flags are in ce_reduce.cu; all_reduce then
 * pushes the results into every peer's output (all_reduce_ce.cu). */
#ifndef CB_CE_REDUCE_H
#define CB_CE_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ce_plan.h"
#include "collbench/kernel.h"
#include "collbench/peer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_CE_MAX_EVENTS CB_CE_MAX_PIECES /* one per piece of a call */

typedef struct {
  cb_peer_buffer bufs[2]; /* the harness's send and receive buffers, every rank's */
  cb_peer_buffer scratch; /* [source rank] x part_cap bytes, written by the sources */
  cb_peer_buffer flags;   /* [kind][source rank] words, written by the sources */
  uint64_t *counters;     /* ours, on the device: calls, pieces before this call, after it */
  size_t part_cap;        /* bytes per source in scratch: the largest part */
  cb_ce_cut cut;          /* how calls cut their parts into pieces */
  int reduce_blocks;      /* at most, fitted to what can be resident beside the signal kernels */
  cudaStream_t rs, sig, ag;
  cudaEvent_t fork, joined, pushed[CB_CE_MAX_EVENTS], reduced[CB_CE_MAX_EVENTS];
  cudaEvent_t signalled[CB_CE_MAX_EVENTS]; /* after piece k's landed signal, on sig */
} cb_ce_reduce_state;

/* The tunables of a collective's pieces, rows of tunables.c (equal on
 * every rank): so many equal pieces, or with a taper above 0 pieces that
 * each take taper percent of what is left of the part; none under
 * CB_CE_MIN_PIECE bytes. */
typedef struct {
  const char *pieces_env, *taper_env;
} cb_ce_schedule;

/* Collective: a cb_ce_reduce_state in ctx->state, pieces cut as sched
 * says. */
void cb_ce_reduce_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply, const cb_ce_schedule *sched);
/* Collective: frees ctx->state; the kernels' teardown in their tables. */
void cb_ce_reduce_teardown(cb_kernel_ctx *ctx);

/* The start of a call (count > 0, parts planned) on the call's stream s: the entry
 * handshake, then, on side streams, every piece of every peer's part pushed
 * into that peer's scratch and signalled. */
void cb_ce_reduce_begin(cb_kernel_ctx *ctx, const cb_call *call, const cb_ce_parts *parts,
                        cudaStream_t s);
/* On s: piece k of our part reduced over every rank into out (our part's
 * place in the output, as an element pointer of the call's type). Returns
 * an event recorded on s after it (valid until CB_CE_MAX_EVENTS more). */
cudaEvent_t cb_ce_reduce_piece(cb_kernel_ctx *ctx, const cb_call *call, const cb_ce_parts *parts,
                               size_t k, void *out, cudaStream_t s);
/* The end of a call: the side streams joined back into s; with
 * done_handshake, the exit handshake after them (needed when the call
 * pushed into the peers' outputs, see ce_reduce.cu). */
void cb_ce_reduce_end(cb_kernel_ctx *ctx, int done_handshake, cudaStream_t s);

/* Resources (collective.h) of a call cut as parts says: the entry
 * handshake (and, with done_handshake, the exit one), the reduce of each
 * piece of our part on the call's stream, the landed signal of each piece
 * beside it on the signal stream, the pushes of every piece to every peer on
 * the push stream and, with push_results, our reduced pieces into every
 * peer's output on a third (all_reduce). */
void cb_ce_reduce_resources(const cb_kernel_ctx *ctx, const cb_call *call, const cb_ce_parts *parts,
                            int push_results, int done_handshake, cb_kernel_resources *r);

#ifdef __cplusplus
}
#endif

#endif
