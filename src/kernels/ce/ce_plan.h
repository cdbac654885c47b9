/* How the ce reduce-scatter (ce_reduce.h) cuts a call's parts into the
 * pieces it pushes, signals and reduces one at a time. Host arithmetic, the
 * same on every rank; kept apart from the CUDA code so a CPU test can check
 * it (tests/unit/test_ce_plan.c). */
#ifndef CB_CE_PLAN_H
#define CB_CE_PLAN_H

#include <stddef.h>

#include "collbench/peer.h" /* CB_MAX_PEERS */

#ifdef __cplusplus
extern "C" {
#endif

#define CB_CE_MAX_PIECES 64 /* per call: the last one takes what is left */

/* How to cut: `pieces` equal pieces of the longest part, or with taper > 0
 * pieces that each take taper percent of what is left of it; none under
 * min_piece bytes (a multiple of 16), except a part's whole when smaller. */
typedef struct {
  size_t pieces, taper, min_piece;
} cb_ce_cut;

/* A call's parts: part p is elements [first[p], first[p] + len[p]) of
 * every rank's input, reduced by rank p; the same on every rank. Every part
 * is cut at the same offsets: piece k is elements [at[k], at[k + 1]) of a
 * part (clipped to its length), for k < pieces; every rank signals
 * `pieces` pieces per call, those of the longest part. cb_ce_plan fills
 * at and pieces from first and len. */
typedef struct {
  size_t first[CB_MAX_PEERS], len[CB_MAX_PEERS];
  size_t at[CB_CE_MAX_PIECES + 1], pieces;
} cb_ce_parts;

/* Sets parts->at and parts->pieces for elements of elem bytes (at most 16):
 * every piece but a part's last is whole 16-byte vectors. */
void cb_ce_plan(const cb_ce_cut *cut, int nranks, size_t elem, cb_ce_parts *parts);
/* Piece k of a part of len elements: its length, and its first element in
 * *off (0 when the part ends before it). */
size_t cb_ce_piece(const cb_ce_parts *parts, size_t len, size_t k, size_t *off);

#ifdef __cplusplus
}
#endif

#endif
