/* What every kernel of ours that maps its peers' memory (peer/peer_memory.h)
 * can serve, as a kernel row states it: the limits belong to the plug-in
 * contract (collective.h), which the peer layer below it does not know. */
#ifndef CB_PEER_LIMITS_H
#define CB_PEER_LIMITS_H

#include "collbench/kernel.h"
#include "collbench/peer.h" /* CB_MAX_PEERS */

/* The limits (cb_kernel_limits' fields, inside its braces) of a kernel of
 * ours over peer memory that serves every datatype and op: up to
 * CB_MAX_PEERS ranks, all on one host, in the given placements. A row adds
 * what is its own after it: `.limits = {CB_PEER_KERNEL_LIMITS(CB_OUT_OF_PLACE),
 * .max_bytes = ...}`. */
#define CB_PEER_KERNEL_LIMITS(placements_)                                                         \
  .placements = (placements_), .dtypes = CB_ALL_DTYPES, .ops = CB_ALL_OPS,                         \
  .max_ranks = CB_MAX_PEERS, .single_host = 1

/* The row (CB_KERNEL_ROW, collective.h) of a kernel of ours over peer
 * memory with those limits, relying on the waits waits_ (CB_WAITS_*); the LL
 * and ring kernels have row makers of their own (ll_mesh.h, ring_mesh.h). */
#define CB_PEER_ROW(name_, summary_, placements_, setup_, teardown_, launch_, waits_)              \
  {                                                                                                \
    .name = name_, .summary = summary_, .limits = {CB_PEER_KERNEL_LIMITS(placements_)},            \
    .setup = setup_, .teardown = teardown_, .launch = launch_, .waits = waits_                     \
  }
/* The same with its resources (collective.h: what a call holds of the GPU). */
#define CB_PEER_ROW_RESOURCES(name_, summary_, placements_, setup_, teardown_, launch_,            \
                              resources_, waits_)                                                  \
  {                                                                                                \
    .name = name_, .summary = summary_, .limits = {CB_PEER_KERNEL_LIMITS(placements_)},            \
    .setup = setup_, .teardown = teardown_, .launch = launch_, .resources = resources_,            \
    .waits = waits_                                                                                \
  }

#endif
