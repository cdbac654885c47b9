/* How the all-pairs all-reduce kernels (direct, ce) and the ring cut a
 * message into one chunk per rank: ceil(count / n) elements rounded up to
 * whole 16-byte vectors, so every chunk starts at
 * the buffer's address mod 16 and the kernels can use 16-byte accesses; the
 * last chunks are shorter, or empty when the rounding used the elements up.
 * The same on every rank. */
#ifndef CB_RANK_CHUNK_H
#define CB_RANK_CHUNK_H

#include <stddef.h>

/* Elements per chunk (elem: bytes per element, at most 16). */
static inline size_t cb_chunk_elems(size_t count, int n, size_t elem) {
  size_t per = (count + (size_t)n - 1) / (size_t)n;
  size_t vec = 16 / elem;
  return (per + vec - 1) / vec * vec;
}

/* Chunk c: elements [*first, *first + *len). */
static inline void cb_rank_chunk(size_t count, int n, size_t elem, int c, size_t *first,
                                 size_t *len) {
  size_t per = cb_chunk_elems(count, n, elem);
  *first = (size_t)c * per < count ? (size_t)c * per : count;
  *len = count - *first < per ? count - *first : per;
}

#endif
