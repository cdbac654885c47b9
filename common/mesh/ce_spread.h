/* The all-gather half of a kernel by copy engines: after an SM kernel has
 * left a block of the result in this rank's output (the all_reduce ring's
 * reduce-scatter, piece by piece), cudaMemcpyAsync copies that block into
 * the same place of every peer's output, on one side stream per peer, while
 * the SMs go on with the next piece; the call ends with one end handshake.
 *
 * Why no start handshake: a block is spread only after the SM kernel that
 * finished it, and finishing it took every peer's contribution in the same
 * call, so every peer's stream has reached the call (it no longer reads or
 * validates its output from an earlier one) and has read its own input
 * where the block lands (in place). The caller's kernel must give that
 * guarantee. The end handshake (ce_flags.h) then makes every copy into our
 * output land before our stream moves on. */
#ifndef CB_CE_SPREAD_H
#define CB_CE_SPREAD_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "ce_flags.h"
#include "collective.h"
#include "peer_memory.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_CE_SPREAD_MAX_PIECES 64 /* blocks spread per call */

typedef struct {
  cb_peer_buffer recv; /* the harness's receive buffer of every rank */
  cb_ce_flags flags;   /* the end handshake */
  cudaStream_t side[CB_MAX_PEERS];
  cudaEvent_t ready[CB_CE_SPREAD_MAX_PIECES], join[CB_MAX_PEERS];
} cb_ce_spread;

/* Collective: sets up s and returns 1; or, on every rank alike, returns 0
 * with nothing set up when ranks share a GPU (CB_SHARE_GPUS: a side
 * stream's copies may queue behind another rank's spinning kernel). */
int cb_ce_spread_setup(cb_kernel_ctx *ctx, cb_ce_spread *s);
/* Collective. */
void cb_ce_spread_free(cb_kernel_ctx *ctx, cb_ce_spread *s);

/* Piece `piece` (< CB_CE_SPREAD_MAX_PIECES) of a call: after the work on
 * stream so far, `bytes` at `mine` (in our output) into the same place of
 * every peer's output. Every rank makes the same pieces of a call; a piece
 * may be empty on some. */
void cb_ce_spread_piece(cb_kernel_ctx *ctx, cb_ce_spread *s, size_t piece, const char *mine,
                        size_t bytes, cudaStream_t stream);
/* The end of a call with at least one piece: the side streams joined into
 * stream, then the end handshake with every peer. */
void cb_ce_spread_end(cb_kernel_ctx *ctx, cb_ce_spread *s, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
