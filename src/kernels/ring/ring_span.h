/* How the ring kernels cut their work, on the host and on the device alike:
 * a run of elements (a chunk or block of the message) is split into one
 * contiguous span per channel, each a whole number of 16-byte vectors, and
 * a channel's span into slices of the FIFO's slice size. The span is taken
 * from the longest run a phase can have, so every run of a call is cut at
 * the same offsets and every rank walks the same slices, empty ones
 * included: a FIFO's sender and receiver then count the same slices. */
#ifndef CB_RING_SPAN_H
#define CB_RING_SPAN_H

#include <stddef.h>

#ifdef __CUDACC__
#define CB_RING_HD static inline __host__ __device__
#else
#define CB_RING_HD static inline
#endif

CB_RING_HD size_t cb_ceil_div(size_t a, size_t b) {
  return (a + b - 1) / b;
}

CB_RING_HD size_t cb_round_up(size_t a, size_t b) {
  return cb_ceil_div(a, b) * b;
}

/* Elements of each channel's span of a run of up to `longest` elements
 * (vec: elements per 16-byte vector). */
CB_RING_HD size_t cb_ring_span(size_t longest, int channels, size_t vec) {
  return cb_round_up(cb_ceil_div(longest, (size_t)channels), vec);
}

/* The part of a run of len elements that starts at off and is at most max
 * long: a channel's part of a run, a slice's part of a channel's, ... */
CB_RING_HD size_t cb_ring_take(size_t len, size_t off, size_t max) {
  return off < len ? (len - off < max ? len - off : max) : 0;
}

#endif
