/* FIFO pipes between ranks for the Simple-protocol kernels (-k ring of
 * every collective): the host half. The device half, with the ordering
 * argument, is the device kit's collbench/device/ring_fifo.cuh.
 *
 * A link of distance d (1 <= d <= links) carries data from every rank r to
 * rank (r + d) % n: a ring uses link 1 only, an all-to-all links 1..n-1.
 * Each link has, per channel (one block of the kernel), a FIFO of `slots`
 * slots in the receiver's memory, each a slice and CB_RING_SLOT_PAD bytes
 * (a slice sits in its slot at the call's address mod 16, ring_span.h, so
 * buffers at any alignment move as 16-byte vectors), and two counters that
 * only grow:
 * `posted` (slices the sender put into it, in the receiver's flag area) and
 * `consumed` (slices the receiver took out, in the sender's flag area). A
 * sender runs up to `slots` slices ahead of its receiver; the data crosses
 * NVLink once, as the sender's stores (a push), and the receiver reads it
 * from its own memory.
 *
 * Every rank's area, [link][channel][slot] slices of FIFO and
 * [link][channel] flag words, is the same size and at the same offsets on
 * every rank, so link 1 of channel c is where the all_reduce ring always
 * had it. Each rank keeps, per (link, channel), how many slices it has sent
 * and received so far (cumulative over calls, on the device, so a graph
 * replay needs no host); sender and receiver agree because every rank
 * walks the same slices of every call (ring_span.h).
 *
 * Tunables, read once at setup and equal on every rank (a channel pairs
 * with the same channel of its peers): CB_RING_CHANNELS, CB_RING_SLOTS,
 * CB_RING_SLICE. Every channel's block waits on its peers' same channel,
 * so the setup checks with the occupancy API that the whole grid is
 * resident at once on every rank, shrinks the channel count to what fits
 * everywhere, or refuses the kernel (grid_fit.h). */
#ifndef CB_RING_MESH_H
#define CB_RING_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "collbench/device/ring_fifo.h" /* cb_ring_mesh: the kernel's view */
#include "collbench/kernel.h"
#include "peer_limits.h"
#include "collbench/peer.h"
#include "ring_span.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_RING_MAX_CHANNELS 128

/* What a ring kernel needs from the mesh. */
typedef struct {
  int links;   /* links 1..links (at least 1; a rank count of 1 uses none) */
  int threads; /* threads per block of the kernel */
  /* The kernel's instance for (dtype, op), for the residency check; every
   * pair is asked, a kernel without templates returns the same one. */
  const void *(*kernel_of)(cb_dtype dtype, cb_redop op);
} cb_ring_spec;

/* One rank's setup. */
typedef struct {
  cb_peer_buffer fifo;  /* [link][channel][slot] slots of slice_bytes + CB_RING_SLOT_PAD */
  cb_peer_buffer flags; /* [link][channel] {posted, consumed}, CB_RING_FLAG_STRIDE apart */
  uint64_t *counters;   /* ours: [link][channel] {sent, received} */
  int links, channels, slots;
  size_t slice_bytes;
  void *extra;       /* the kernel's own state beside the FIFOs (NULL: none), its to free */
  cb_ring_spec spec; /* the kernel's, for cb_ring_resources */
} cb_ring_state;

/* Collective: a cb_ring_state in ctx->state (or a refusal, cb_kernel_refuse,
 * when not one channel fits on some rank). */
void cb_ring_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply, const cb_ring_spec *spec);
/* Collective: frees ctx->state; a ring kernel's teardown in its table. */
void cb_ring_teardown(cb_kernel_ctx *ctx);

/* A ring kernel's resources (collective.h): one grid of the setup's
 * channels, one block each, of the kernel's instance for the call's
 * datatype and op; none for a count of 0, which launches nothing. */
void cb_ring_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r);

/* The row (CB_KERNEL_ROW, collective.h) of a ring kernel of ours: peer
 * memory in the given placements, buffers at any alignment (ring_span.h),
 * its resources as resources_ says (CB_RING_ROW: cb_ring_resources). */
#define CB_RING_ROW_RESOURCES(summary_, placements_, setup_, teardown_, launch_, resources_)       \
  {                                                                                                \
    .name = "ring", .summary = summary_, .limits = {CB_PEER_KERNEL_LIMITS(placements_)},           \
    .setup = setup_, .teardown = teardown_, .launch = launch_, .resources = resources_,            \
    .waits = CB_WAITS_FIFO                                                                         \
  }
#define CB_RING_ROW(summary_, placements_, setup_, teardown_, launch_)                             \
  CB_RING_ROW_RESOURCES(summary_, placements_, setup_, teardown_, launch_, cb_ring_resources)

/* The kernel's view of st. */
cb_ring_mesh cb_ring_mesh_for(const cb_kernel_ctx *ctx, const cb_ring_state *st);

/* Fails, naming the kernel, unless a block of the collective (the part
 * each rank sends or receives, cut into spans of whole vectors) is a whole
 * number of 16-byte vectors, so that every slice of the call starts at the
 * buffers' address mod 16 (ring_span.h): the harness's blocks are. */
void cb_ring_check_blocks(const cb_kernel_ctx *ctx, size_t block_bytes);

#ifdef __cplusplus
}
#endif

#endif
