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

#include "collective.h"
#include "peer_memory.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_CE_MAX_EVENTS 64 /* pieces reuse them round robin */

typedef struct {
  cb_peer_buffer bufs[2]; /* the harness's send and receive buffers, every rank's */
  cb_peer_buffer scratch; /* [source rank] x part_cap bytes, written by the sources */
  cb_peer_buffer flags;   /* [kind][source rank] words, written by the sources */
  uint64_t *counters;     /* ours, on the device: calls, pieces before this call, after it */
  size_t part_cap;        /* bytes per source in scratch: the largest part */
  size_t pieces;          /* equal pieces of the longest part (taper 0) */
  size_t taper;           /* percent of what is left of the part each piece takes (or 0) */
  size_t min_piece;       /* CB_CE_MIN_PIECE: bytes a piece has at least */
  int reduce_blocks;      /* at most, fitted to what can be resident beside the signal kernels */
  cudaStream_t rs, sig, ag;
  cudaEvent_t fork, joined, pushed[CB_CE_MAX_EVENTS], reduced[CB_CE_MAX_EVENTS];
} cb_ce_reduce_state;

/* A call's parts: part p is elements [first[p], first[p] + len[p]) of
 * every rank's input, reduced by rank p; the same on every rank. Every part
 * is cut at the same offsets: piece k is elements [at[k], at[k + 1]) of a
 * part (clipped to its length), for k < pieces; every rank signals
 * `pieces` pieces per call, those of the longest part. cb_ce_plan fills
 * at and pieces from first and len. */
typedef struct {
  size_t first[CB_MAX_PEERS], len[CB_MAX_PEERS];
  size_t at[CB_CE_MAX_EVENTS + 1], pieces;
} cb_ce_parts;

/* The tunables of a collective's pieces, read at setup (equal on every
 * rank): `pieces` equal pieces, or with taper > 0 pieces that each take
 * taper percent of what is left of the part; none under min_piece bytes. */
typedef struct {
  const char *pieces_env, *taper_env;
  long pieces, taper; /* defaults */
} cb_ce_schedule;

/* Collective: a cb_ce_reduce_state in ctx->state, pieces cut as sched
 * says. */
void cb_ce_reduce_setup(cb_kernel_ctx *ctx, const cb_ce_schedule *sched);
/* Collective: frees ctx->state; the kernels' teardown in their tables. */
void cb_ce_reduce_teardown(cb_kernel_ctx *ctx);

/* Sets parts->at and parts->pieces for elements of elem bytes. */
void cb_ce_plan(const cb_ce_reduce_state *st, int nranks, size_t elem, cb_ce_parts *parts);
/* Piece k of a part of len elements: its first element and its length
 * (0 when the part ends before it). */
size_t cb_ce_piece(const cb_ce_parts *parts, size_t len, size_t k, size_t *off);

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

#ifdef __cplusplus
}
#endif

#endif
