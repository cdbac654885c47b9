/* The start and end handshakes of a call whose bytes the copy engines move
 * (the ce kernels): one-block flag kernels on the call's stream, around
 * the copies, between this rank and the peers it exchanges data with.
 *   start  START(e) to each partner, then wait for each partner's START(e):
 *          every partner's stream has reached this call, so nothing on it
 *          still reads the buffer we are about to copy into.
 *   end    (enqueued after our copies, side streams joined) END(e) to each
 *          partner, then wait for each partner's END(e). The end kernel
 *          starts only once our copies are complete (stream order), CUDA
 *          orders a completed copy's writes before later work on the stream,
 *          and the release store is cumulative: a partner that acquires
 *          END(e) sees our copied bytes. Waiting for every partner's END(e)
 *          means every copy into our buffers has landed before the call's
 *          stream moves on.
 * The words and their proof are device/handshake.cuh's (block 0). The
 * epoch is one device counter, read by both kernels and advanced by the
 * end kernel, so a graph replay advances it without the host. */
#ifndef CB_CE_FLAGS_H
#define CB_CE_FLAGS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "collbench/kernel.h"
#include "collbench/peer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  cb_peer_buffer words; /* handshake words of one block, every rank's */
  uint64_t *epoch;      /* ours: calls so far */
} cb_ce_flags;

/* Collective: zeroed words and epoch. */
void cb_ce_flags_setup(cb_kernel_ctx *ctx, cb_ce_flags *f);
/* Collective. */
void cb_ce_flags_free(cb_kernel_ctx *ctx, cb_ce_flags *f);

/* Enqueues the start (end = 0) or end (end = 1) handshake of a call with
 * the peers at the ring offsets set in `partners` (CB_HS_OFFSET bits of
 * device/handshake.cuh; both ranks of a pair name each other). */
void cb_ce_flags_launch(const cb_kernel_ctx *ctx, const cb_ce_flags *f, unsigned partners, int end,
                        cudaStream_t stream);
/* Resources (collective.h): the flag kernel's grid, launched `launches`
 * times per call on the call's stream. */
void cb_ce_flags_resources(cb_kernel_resources *r, int launches);

/* `partners` naming every other rank. */
unsigned cb_ce_every_peer(int nranks);

#ifdef __cplusplus
}
#endif

#endif
