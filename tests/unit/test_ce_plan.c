/* cb_ce_plan and cb_ce_piece: how the ce reduce-scatter cuts a call's parts
 * into pieces (equal pieces for all_reduce, a taper for reduce_scatter).
 * Every piece must be covered exactly once, the cuts must be 16-byte
 * aligned, and the numbers of pieces are those measured on GPUs. */
#include <stddef.h>

#include "ce_plan.h"
#include "check.h"
#include "rank_chunk.h"

#define MiB ((size_t)1 << 20)

static cb_ce_parts chunks(size_t count, int n, size_t elem) {
  cb_ce_parts parts;
  for (int p = 0; p < n; p++) cb_rank_chunk(count, n, elem, p, &parts.first[p], &parts.len[p]);
  return parts;
}

/* The pieces of every part tile it: contiguous, in order, none empty
 * before the part ends, cuts on 16-byte multiples. */
static void check_tiling(const cb_ce_parts *parts, int n, size_t elem) {
  for (int p = 0; p < n; p++) {
    size_t next = 0, off;
    for (size_t k = 0; k < parts->pieces; k++) {
      size_t len = cb_ce_piece(parts, parts->len[p], k, &off);
      if (len == 0) {
        CHECKF(next == parts->len[p], "part %d: piece %zu empty at %zu of %zu", p, k, next,
               parts->len[p]);
        break;
      }
      CHECKF(off == next, "part %d piece %zu starts at %zu, not %zu", p, k, off, next);
      CHECKF(off * elem % 16 == 0, "part %d piece %zu starts at byte %zu", p, k, off * elem);
      next = off + len;
    }
    CHECKF(next == parts->len[p], "part %d covered up to %zu of %zu", p, next, parts->len[p]);
  }
}

static void test_equal(void) {
  const cb_ce_cut two = {2, 0, 2 * MiB};
  /* all_reduce at 1 GiB of float on 2 ranks: two pieces of 256 MiB. */
  cb_ce_parts parts = chunks((1u << 30) / 4, 2, 4);
  cb_ce_plan(&two, 2, 4, &parts);
  CHECK_EQ_INT((int)parts.pieces, 2);
  CHECK(parts.at[1] * 4 == 256 * MiB);
  check_tiling(&parts, 2, 4);
  /* Smaller than two minimum pieces: one piece. */
  parts = chunks(3 * MiB / 4, 2, 4);
  cb_ce_plan(&two, 2, 4, &parts);
  CHECK_EQ_INT((int)parts.pieces, 1);
  check_tiling(&parts, 2, 4);
}

static void test_taper(void) {
  const cb_ce_cut taper = {4, 30, 2 * MiB};
  /* A reduce-scatter's 512 MiB block: 30% of what is left each time, no
   * piece under 2 MiB; the pieces shrink. */
  cb_ce_parts parts;
  parts.first[0] = 0;
  parts.len[0] = parts.len[1] = 512 * MiB / 2; /* half precision */
  parts.first[1] = parts.len[0];
  cb_ce_plan(&taper, 2, 2, &parts);
  CHECK(parts.pieces > 4 && parts.pieces < 20);
  CHECK(parts.at[1] * 2 == (512 * MiB / 100 * 30 + 15) / 16 * 16);
  for (size_t k = 1; k + 1 < parts.pieces; k++)
    CHECKF(parts.at[k + 1] - parts.at[k] <= parts.at[k] - parts.at[k - 1], "piece %zu grew", k);
  check_tiling(&parts, 2, 2);
}

static void test_odd_parts(void) {
  /* Odd counts on 3 to 8 ranks, every element size: the last parts are
   * shorter or empty, and the same cuts serve every part. */
  const cb_ce_cut cuts[] = {{2, 0, 16}, {3, 0, 64}, {4, 40, 16}, {1, 0, 16}, {64, 0, 16}};
  const size_t elems[] = {1, 2, 4, 8};
  for (int c = 0; c < 5; c++)
    for (int n = 2; n <= 8; n++)
      for (int e = 0; e < 4; e++)
        for (size_t count = 1; count < 2000; count += 37) {
          cb_ce_parts parts = chunks(count, n, elems[e]);
          cb_ce_plan(&cuts[c], n, elems[e], &parts);
          CHECK(parts.pieces >= 1 && parts.pieces <= CB_CE_MAX_PIECES);
          check_tiling(&parts, n, elems[e]);
        }
}

static void test_piece_cap(void) {
  /* More pieces than events: the last one takes what is left. */
  const cb_ce_cut many = {1000 > CB_CE_MAX_PIECES ? CB_CE_MAX_PIECES : 1000, 0, 16};
  cb_ce_parts parts = chunks(100000, 2, 1);
  const cb_ce_cut tiny = {1, 1, 16}; /* 1% a piece: would need hundreds */
  cb_ce_plan(&tiny, 2, 1, &parts);
  CHECK_EQ_INT((int)parts.pieces, CB_CE_MAX_PIECES);
  check_tiling(&parts, 2, 1);
  cb_ce_plan(&many, 2, 1, &parts);
  CHECK((int)parts.pieces <= CB_CE_MAX_PIECES);
  check_tiling(&parts, 2, 1);
}

int main(void) {
  test_equal();
  test_taper();
  test_odd_parts();
  test_piece_cap();
  return check_summary();
}
