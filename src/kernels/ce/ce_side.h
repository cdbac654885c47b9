/* What the ce kernels that copy into their peers' outputs hold (ce_push.h:
 * all_gather and alltoall; ce_rooted.h: broadcast, scatter and gather):
 * every rank's receive buffer mapped, the start and end handshakes of
 * ce_flags.h, and one side stream per peer with the events that fork it
 * from the call's stream and join it back, so that several copy engines
 * work at once. The order of the copies, streams and handshakes of a call
 * is the kernel's (ce_push.cu, ce_rooted.cu); ce_flags.h has the argument. */
#ifndef CB_CE_SIDE_H
#define CB_CE_SIDE_H

#include <cuda_runtime_api.h>

#include "ce_flags.h"
#include "collbench/kernel.h"
#include "collbench/peer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  cb_peer_buffer recv;                  /* the harness's receive buffer of every rank */
  cb_ce_flags flags;                    /* the start and end handshakes */
  cudaStream_t side[CB_MAX_PEERS];      /* nranks - 1 of them: [k], the k-th copy to another rank */
  cudaEvent_t fork, join[CB_MAX_PEERS]; /* fork: after the start kernel; join[k]: side[k] done */
} cb_ce_side;

/* Collective: maps every rank's receive buffer, sets up the flags, creates
 * the fork event and a side stream and join event per peer. */
void cb_ce_side_setup(cb_kernel_ctx *ctx, cb_ce_side *s);
/* Collective, a ce kernel's teardown: what cb_ce_side_setup made in s
 * undone (our own receive buffer is the harness's), then the kernel's
 * state, ctx->state (calloc'd, holding s), freed and cleared. */
void cb_ce_side_teardown(cb_kernel_ctx *ctx, cb_ce_side *s);

#ifdef __cplusplus
}
#endif

#endif
