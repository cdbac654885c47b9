/* How the ring kernels cut their work, on the host and on the device alike:
 * a run of elements (a chunk or block of the message) is split into one
 * contiguous span per channel, each a whole number of 16-byte vectors, and
 * a channel's span into slices of the FIFO's slice size. The span is taken
 * from the longest run a phase can have, so every run of a call is cut at
 * the same offsets and every rank walks the same slices, empty ones
 * included: a FIFO's sender and receiver then count the same slices.
 *
 * Every cut falls on a whole number of 16-byte vectors from the call's
 * buffers, so every slice of a call starts at the same address mod 16 as
 * the buffers (the call's "misalignment": 0 unless -u or the caller's
 * pointers say otherwise), and a slice sits in its FIFO slot at that same
 * offset (cb_ring_slot_offset): its input, its output and both slots then
 * share their address mod 16, and the slice moves as an unaligned head,
 * 16-byte vectors and a tail (cb_ring_split). */
#ifndef CB_RING_SPAN_H
#define CB_RING_SPAN_H

#include <stddef.h>
#include <stdint.h>

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

/* Bytes a FIFO slot holds beyond a slice: room for the slice at any
 * offset cb_ring_slot_offset gives. */
#define CB_RING_SLOT_PAD 16

/* Where a slice sits in its FIFO slot: at the call's address mod 16, taken
 * from its output buffer. Sender and receiver must agree: every rank's
 * buffers of a call are at the same offsets of allocations aligned to 16
 * bytes or more (the harness's, collective.h), so every rank finds the
 * same offset. */
CB_RING_HD size_t cb_ring_slot_offset(const void *buf) {
  return (size_t)((uintptr_t)buf % 16);
}

/* How a slice of n elements of elem bytes (1, 2, 4 or 8) moves when every
 * pointer it touches sits at address mod 16 `mis` (a multiple of elem, as
 * a pointer to such an element is): `head` elements up to the first
 * 16-byte boundary, `nvec` whole 16-byte vectors, then the elements from
 * `tail` to n. mis = CB_RING_NO_VECTORS (pointers that do not share their
 * address mod 16) moves every element singly. */
#define CB_RING_NO_VECTORS 16
typedef struct {
  size_t head, nvec, tail;
} cb_ring_split;

CB_RING_HD cb_ring_split cb_ring_split_of(size_t mis, size_t n, size_t elem) {
  cb_ring_split s;
  const size_t per_vec = 16 / elem;
  s.head = mis >= CB_RING_NO_VECTORS || mis % elem ? n : (16 - mis) % 16 / elem;
  if (s.head > n) s.head = n;
  s.nvec = (n - s.head) / per_vec;
  s.tail = s.head + s.nvec * per_vec;
  return s;
}

#endif
