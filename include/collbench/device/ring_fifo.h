/* The view a ring kernel passes by value to its blocks: every rank's FIFO
 * and flag areas of one set of FIFO pipes (device/ring_fifo.cuh moves data
 * through them; a mesh's setup makes them, as src/kernels/ring/ring_mesh.h
 * does). Plain C, for the host that fills it. */
#ifndef COLLBENCH_DEVICE_RING_FIFO_H
#define COLLBENCH_DEVICE_RING_FIFO_H

#include <stddef.h>
#include <stdint.h>

#include "collbench/peer.h" /* CB_MAX_PEERS */

#define CB_RING_FLAG_STRIDE 32 /* uint64_t words between flags: 256 bytes, no false sharing */

/* Picked per link with selects (device/ring_fifo.cuh). */
typedef struct {
  char *fifo[CB_MAX_PEERS];      /* [p]: rank (rank + p) % nranks's FIFO area; [0]: ours */
  uint64_t *flags[CB_MAX_PEERS]; /* [p]: rank (rank + p) % nranks's flag area */
  uint64_t *counters;            /* ours: [link][channel] {sent, received} */
  size_t slice_bytes;            /* what a slot carries at most */
  size_t slot_bytes;             /* a slot: slice_bytes and the mesh's padding (ring_span.h) */
  int slots, channels, rank, nranks;
} cb_ring_mesh;

#endif
