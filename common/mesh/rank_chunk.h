/* How the all-pairs all-reduce kernels (direct, ce), and the ring's
 * pieces below, cut a message into one chunk per rank: ceil(count / n)
 * elements rounded up to whole 16-byte vectors, so every chunk starts at
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

/* Two levels of the same cut (the all_reduce ring's large-message path):
 * a message of count elements cut into `pieces` pieces as above, each piece
 * cut into one chunk per rank of n. Piece k is elements [first, first +
 * total) of the message (empty past the last piece); its chunks are `chunk`
 * elements, and rank's starts `at` elements into the piece, len long. */
typedef struct {
  size_t first, total, chunk, at, len;
} cb_piece_chunk;

static inline cb_piece_chunk cb_piece_chunk_of(size_t count, int pieces, int n, int rank,
                                               size_t elem, int k) {
  cb_piece_chunk p;
  cb_rank_chunk(count, pieces, elem, k, &p.first, &p.total);
  p.chunk = cb_chunk_elems(p.total, n, elem);
  cb_rank_chunk(p.total, n, elem, rank, &p.at, &p.len);
  return p;
}

#endif
