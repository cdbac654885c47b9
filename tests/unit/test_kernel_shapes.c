/* Host-side shape arithmetic of our kernels, which every rank must compute
 * alike: the LL kernels' grid per size (cb_ll_grid_for), the direct
 * kernels' block count (cb_direct_blocks), the all-pairs kernels' chunk
 * per rank (cb_rank_chunk), the ring kernels' channel spans and slices
 * (ring_span.h), and the share of a GPU that ranks sharing it may fill with
 * grids that wait on each other (grid_fit.h). No GPU: the functions only
 * do arithmetic. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "direct_mesh.h"
#include "grid_fit.h"
#include "ll_mesh.h"
#include "rank_chunk.h"
#include "ring_span.h"

static void check_ll_grid(const cb_ll_state *st, size_t packets, unsigned blocks,
                          unsigned threads) {
  cb_ll_grid g = cb_ll_grid_for(st, packets);
  CHECKF(g.blocks == blocks && g.threads == threads, "%zu packets: %u x %u, expected %u x %u",
         packets, g.blocks, g.threads, blocks, threads);
}

static void test_ll_grid_overrides(void) {
  cb_ll_state st = {.block_warps = 8, .max_warps = 256};
  check_ll_grid(&st, 131072, 32, 256);
  check_ll_grid(&st, 5 * 32, 1, 160); /* fewer warps than a block: the block shrinks */
  /* Any size and setting (0: the defaults): whole warps, at least one warp
   * per tile up to the budget, never a whole block more than needed, and
   * never more warps than the residency cap (cb_ll_fit), which wins. */
  srand(7);
  for (int k = 0; k < 20000; k++) {
    cb_ll_state s = {.block_warps = rand() % 17,
                     .max_warps = rand() % 2049,
                     .warp_cap = rand() % 2 ? 1 + rand() % 3000 : 0};
    size_t packets = 1 + (size_t)rand() % 200000;
    cb_ll_grid g = cb_ll_grid_for(&s, packets);
    size_t tiles = (packets + CB_LL_TILE - 1) / CB_LL_TILE;
    size_t budget = s.max_warps ? (size_t)s.max_warps : 1024;
    size_t want = tiles < budget ? tiles : budget;
    size_t warps = (size_t)g.blocks * g.threads / 32;
    CHECKF(g.threads % 32 == 0 && g.threads >= 32 && g.threads <= 16 * 32,
           "threads %u for %zu packets", g.threads, packets);
    size_t block = g.threads / 32;
    if (s.warp_cap) { /* whole blocks within the cap: up to a block fewer */
      CHECKF(warps <= (size_t)s.warp_cap && g.blocks >= 1,
             "%zu warps (%u blocks) for a cap of %d (%zu packets, block %d, budget %d)", warps,
             g.blocks, s.warp_cap, packets, s.block_warps, s.max_warps);
      if (want + block > (size_t)s.warp_cap) {
        CHECKF(warps + block > (size_t)s.warp_cap || warps >= want,
               "%zu warps of blocks of %zu for a cap of %d", warps, block, s.warp_cap);
        continue;
      }
    }
    CHECKF(warps >= want && warps < want + block, "%zu warps for %zu wanted", warps, want);
  }
}

static void test_ll_grid_fit(void) {
  /* The residency cap of cb_ll_fit lowers the warp budget, never raises it. */
  cb_ll_state st = {.warp_cap = 100};
  check_ll_grid(&st, 131072, 25, 128); /* 4096 tiles: 100 warps in blocks of 4 */
  check_ll_grid(&st, 64 * 32, 32, 64); /* 64 tiles, under the cap: a warp per tile */
  cb_ll_state roomy = {.warp_cap = 5000};
  check_ll_grid(&roomy, 131072, 256, 128); /* above the 1024-warp default: no change */
}

static void test_shared_residency(void) {
  /* One rank on its GPU may fill it: its grid is the only one spinning. */
  CHECK(cb_shared_resident_blocks(8, 132, 1) == 1056);
  CHECK(cb_shared_resident_blocks(8, 132, 0) == 1056);
  /* Ranks sharing it leave half of it free whatever their count: hangs were
   * seen with their grids at 75% to 100% of the GPU (grid_fit.h). */
  for (int ranks = 2; ranks <= 8; ranks++)
    for (int per_sm = 1; per_sm <= 32; per_sm++) {
      int each = cb_shared_resident_blocks(per_sm, 132, ranks);
      CHECKF(each * ranks * 100 <= per_sm * 132 * CB_SHARED_GPU_PERCENT,
             "%d ranks, %d blocks per SM: %d each fill more than %d%% of %d", ranks, per_sm, each,
             CB_SHARED_GPU_PERCENT, per_sm * 132);
      CHECKF(each >= per_sm * 132 * CB_SHARED_GPU_PERCENT / 100 / ranks - 1,
             "%d ranks, %d blocks per SM: %d each, less than their share", ranks, per_sm, each);
    }
  CHECK(cb_shared_resident_blocks(8, 132, 8) == 66); /* the LL kernels at 8 ranks: 264 warps */
  CHECK(cb_shared_resident_blocks(0, 132, 2) == 0);
  CHECK(cb_shared_resident_blocks(8, 0, 2) == 0);
  CHECK(cb_shared_resident_blocks(8, -3, 1) == 0); /* more SMs reserved than there are */
}

static void test_direct_blocks(void) {
  cb_direct_state st = {.max_blocks = 64, .block_bytes = 32 << 10};
  CHECK(cb_direct_blocks(&st, 0) == 1);
  CHECK(cb_direct_blocks(&st, 1) == 1);
  CHECK(cb_direct_blocks(&st, 32 << 10) == 1);
  CHECK(cb_direct_blocks(&st, (32 << 10) + 1) == 2);
  CHECK(cb_direct_blocks(&st, (size_t)1 << 30) == 64);
}

static void test_rank_chunks(void) {
  size_t first, len;
  /* 10 floats on 2 ranks: 5 each, rounded up to 8 (two 16-byte vectors). */
  CHECK(cb_chunk_elems(10, 2, 4) == 8);
  cb_rank_chunk(10, 2, 4, 0, &first, &len);
  CHECK(first == 0 && len == 8);
  cb_rank_chunk(10, 2, 4, 1, &first, &len);
  CHECK(first == 8 && len == 2);
  /* 3 doubles on 8 ranks: the rounding uses them up, later chunks are empty. */
  cb_rank_chunk(3, 8, 8, 0, &first, &len);
  CHECK(first == 0 && len == 2);
  cb_rank_chunk(3, 8, 8, 1, &first, &len);
  CHECK(first == 2 && len == 1);
  cb_rank_chunk(3, 8, 8, 5, &first, &len);
  CHECK(first == 3 && len == 0);
  /* Any count, rank count and element size: the chunks tile the message in
   * order, each starting on a 16-byte boundary of the buffer. */
  const size_t elems[] = {1, 2, 4, 8};
  for (size_t count = 0; count < 300; count++)
    for (int n = 1; n <= 8; n++)
      for (int e = 0; e < 4; e++) {
        size_t next = 0;
        for (int c = 0; c < n; c++) {
          cb_rank_chunk(count, n, elems[e], c, &first, &len);
          CHECKF(first == next && ((first * elems[e]) % 16 == 0 || len == 0),
                 "count %zu n %d elem %zu chunk %d: [%zu, +%zu)", count, n, elems[e], c, first,
                 len);
          next = first + len;
        }
        CHECKF(next == count, "count %zu n %d elem %zu: chunks end at %zu", count, n, elems[e],
               next);
      }
}

/* The ring kernels' cut of a run: channel spans of whole vectors that tile
 * the run in order, slices that tile each span, and the same number of
 * slice steps for every run no longer than the longest (so a FIFO's sender
 * and receiver count the same slices whatever run each one moves). */
static void test_ring_spans(void) {
  CHECK(cb_ring_span(10, 4, 4) == 4); /* ceil(10/4) = 3, rounded up to a vector of 4 */
  CHECK(cb_ring_take(10, 8, 4) == 2 && cb_ring_take(10, 12, 4) == 0);
  const size_t vecs[] = {1, 2, 4, 8, 16};
  for (size_t longest = 0; longest < 200; longest += 7)
    for (int channels = 1; channels <= 9; channels++)
      for (int v = 0; v < 5; v++) {
        size_t vec = vecs[v], span = cb_ring_span(longest, channels, vec), slice = 3 * vec;
        CHECKF(span % vec == 0, "span %zu not whole vectors of %zu", span, vec);
        for (size_t len = 0; len <= longest; len += 5) {
          size_t covered = 0;
          for (int c = 0; c < channels; c++) {
            size_t c0 = (size_t)c * span, clen = cb_ring_take(len, c0, span), in_slices = 0;
            CHECKF(clen == 0 || c0 == covered, "len %zu channel %d starts at %zu, not %zu", len, c,
                   c0, covered);
            for (size_t s0 = 0; c0 < longest && s0 < span; s0 += slice)
              in_slices += cb_ring_take(clen, s0, slice);
            CHECKF(in_slices == clen, "len %zu channel %d: slices hold %zu of %zu", len, c,
                   in_slices, clen);
            covered += clen;
          }
          CHECKF(covered == len, "len %zu over %d channels: %zu covered", len, channels, covered);
        }
      }
}

int main(void) {
  test_ll_grid_overrides();
  test_ll_grid_fit();
  test_shared_residency();
  test_direct_blocks();
  test_rank_chunks();
  test_ring_spans();
  return check_summary();
}
