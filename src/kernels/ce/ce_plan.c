#include "ce_plan.h"

static size_t round16(size_t bytes) {
  return (bytes + 15) / 16 * 16;
}

/* The next piece's bytes when `left` of the longest part's `bytes` remain:
 * at least min_piece, and all that is left once less would remain. */
static size_t next_piece(const cb_ce_cut *cut, size_t bytes, size_t left) {
  size_t want =
      round16(cut->taper ? left / 100 * cut->taper : (bytes + cut->pieces - 1) / cut->pieces);
  if (want < cut->min_piece) want = cut->min_piece;
  return want > left || left - want < cut->min_piece ? left : want;
}

void cb_ce_plan(const cb_ce_cut *cut, int nranks, size_t elem, cb_ce_parts *parts) {
  size_t longest = 0;
  for (int p = 0; p < nranks; p++)
    if (parts->len[p] > longest) longest = parts->len[p];
  const size_t bytes = longest * elem;
  size_t k = 0, done = 0;
  parts->at[0] = 0;
  while (done < bytes) {
    done += k + 1 == CB_CE_MAX_PIECES ? bytes - done : next_piece(cut, bytes, bytes - done);
    parts->at[++k] = done / elem; /* done is a multiple of 16, or the end */
  }
  parts->pieces = k;
}

size_t cb_ce_piece(const cb_ce_parts *parts, size_t len, size_t k, size_t *off) {
  *off = parts->at[k];
  if (*off >= len) return 0;
  return (parts->at[k + 1] < len ? parts->at[k + 1] : len) - *off;
}
