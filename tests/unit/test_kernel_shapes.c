/* Host-side shape arithmetic of our kernels, which every rank must compute
 * alike: the LL kernels' grid per size (cb_ll_grid_for), the direct
 * kernels' block count (cb_direct_blocks), the all-pairs kernels' chunk
 * per rank (cb_rank_chunk), the ring kernels' channel spans and slices
 * and how a slice at any alignment moves (ring_span.h), and the share of a
 * GPU that ranks sharing it may fill with grids that wait on each other
 * (grid_fit.h), hosts simulated on it included. No GPU: the functions only
 * do arithmetic. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "direct_mesh.h"
#include "gpu.h"
#include "grid_fit.h"
#include "host_layout.h"
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

/* A grid that waits while NCCL's kernels must start beside it (a part of a
 * hierarchical kernel, ranks sharing the GPU): the ranks' grids together
 * put a block on at most CB_SHARED_GPU_PERCENT of the SMs, however many
 * blocks an SM holds, so the other SMs are empty for NCCL's blocks, each of
 * which takes most of an SM (grid_fit.h). Without NCCL beside it, or with
 * one rank on its GPU, the budget is cb_shared_resident_blocks'. */
static void test_whole_sms_beside_nccl(void) {
  for (int ranks = 1; ranks <= 8; ranks++)
    for (int per_sm = 1; per_sm <= 32; per_sm++) {
      cb_kernel_ctx alone = {.ranks_on_device = ranks};
      cb_kernel_ctx part = {.ranks_on_device = ranks, .beside_nccl = 1};
      int plain = cb_shared_resident_blocks(per_sm, 132, ranks);
      CHECK(cb_ctx_resident_blocks(&alone, per_sm, 132) == plain);
      int each = cb_ctx_resident_blocks(&part, per_sm, 132);
      if (ranks == 1) {
        CHECKF(each == plain, "one rank on its GPU, %d blocks per SM: %d, not %d", per_sm, each,
               plain);
        continue;
      }
      CHECKF(each >= 1 && each * ranks * 100 <= 132 * CB_SHARED_GPU_PERCENT,
             "%d ranks beside NCCL, %d blocks per SM: %d each reach more than %d%% of 132 SMs",
             ranks, per_sm, each, CB_SHARED_GPU_PERCENT);
    }
  /* all_reduce -k hier-ll at 2 hosts of 2 ranks on one H100, where 10 blocks
   * of 4 warps an SM fit: 165 blocks a rank (660 warps) at the budget of
   * ranks that wait only on each other, 16 beside NCCL. */
  cb_kernel_ctx part = {.ranks_on_device = 4, .beside_nccl = 1};
  CHECK(cb_ctx_resident_blocks(&part, 10, 132) == 16);
  CHECK(strstr(cb_whole_sms_words(&part), "NCCL") != NULL);
  part.ranks_on_device = 1;
  CHECK(cb_whole_sms_words(&part)[0] == 0);
}

/* Hosts simulated on one GPU (CB_HOSTS=H, L ranks a host, one GPU): every
 * rank drives the same GPU whatever host it claims, so each counts H x L
 * ranks on it (cb_gpu_identity, as cb_ranks_on_gpu counts), and their
 * grids together stay within the shared budget. Counted by host (its L
 * ranks), the H hosts' grids would take H times the budget: the hang of
 * simulated hosts at their default grid sizes. */
static void test_shared_residency_across_hosts(void) {
  enum { MAXR = 64 };
  static char ids[MAXR][CB_HOST_ID_MAX];
  cb_host_place places[MAXR];
  for (int hosts = 1; hosts <= 4; hosts++)
    for (int per_host = 1; per_host <= 8 && hosts * per_host <= MAXR; per_host++)
      for (int visible = 1; visible <= 2; visible++) {
        const int n = hosts * per_host;
        for (int r = 0; r < n; r++) { /* rank r: index r % per_host on its host, round robin */
          char bus[32];
          snprintf(bus, sizeof bus, "0000:%02x:00.0",
                   cb_gpu_for_local_rank(r % per_host, visible, 1));
          cb_gpu_identity("node7", bus, ids[r], CB_HOST_ID_MAX);
        }
        cb_host_places(ids[0], CB_HOST_ID_MAX, n, places);
        for (int gpu = 0; gpu < visible; gpu++) {
          long blocks = 0;
          int on_it = 0;
          for (int r = 0; r < n; r++) {
            if (cb_gpu_for_local_rank(r % per_host, visible, 1) != gpu) continue;
            on_it++;
            blocks += cb_shared_resident_blocks(8, 132, places[r].local_nprocs);
          }
          for (int r = 0; r < n; r++)
            if (cb_gpu_for_local_rank(r % per_host, visible, 1) == gpu)
              CHECKF(places[r].local_nprocs == on_it, "%dx%d on %d GPUs: rank %d counts %d of %d",
                     hosts, per_host, visible, r, places[r].local_nprocs, on_it);
          CHECKF(on_it < 2 || blocks * 100 <= 8 * 132 * CB_SHARED_GPU_PERCENT,
                 "%dx%d on %d GPUs: GPU %d holds %ld blocks of spinning grids, over %d%%", hosts,
                 per_host, visible, gpu, blocks, CB_SHARED_GPU_PERCENT);
        }
      }
  /* Two machines' GPUs of one bus id are two GPUs. */
  cb_gpu_identity("node7", "0000:01:00.0", ids[0], CB_HOST_ID_MAX);
  cb_gpu_identity("node8", "0000:01:00.0", ids[1], CB_HOST_ID_MAX);
  CHECK(cb_host_places(ids[0], CB_HOST_ID_MAX, 2, places) == 2 && places[0].local_nprocs == 1);
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

/* A slice at any alignment (ring_span.h): whatever the address mod 16 of
 * the pointers a slice touches (a multiple of the element size), its head,
 * vectors and tail take each element once, the vectors start on a 16-byte
 * boundary, head and tail are shorter than a vector, and the slice fits its
 * slot at that offset; pointers that share no offset, or one that is no
 * multiple of the element, move every element singly. */
static void test_ring_split(void) {
  const size_t elems[] = {1, 2, 4, 8};
  const size_t slice = 1024; /* CB_RING_SLICE's least */
  for (int e = 0; e < 4; e++) {
    const size_t elem = elems[e], per_vec = 16 / elem;
    for (size_t mis = 0; mis < 16; mis++)
      for (size_t n = 0; n <= slice / elem; n += n < 70 ? 1 : 61) {
        cb_ring_split sp = cb_ring_split_of(mis, n, elem);
        if (mis % elem) {
          CHECKF(sp.head == n && sp.nvec == 0, "elem %zu at %zu: %zu singly of %zu", elem, mis,
                 sp.head, n);
          continue;
        }
        CHECKF(sp.head <= n && sp.tail == sp.head + sp.nvec * per_vec && sp.tail <= n,
               "elem %zu at %zu, %zu: head %zu, %zu vectors, tail from %zu", elem, mis, n, sp.head,
               sp.nvec, sp.tail);
        CHECKF(sp.nvec == 0 || (mis + sp.head * elem) % 16 == 0,
               "elem %zu at %zu: vectors start at offset %zu", elem, mis, mis + sp.head * elem);
        CHECKF(sp.head < per_vec && n - sp.tail < per_vec + (sp.nvec ? 0 : sp.head),
               "elem %zu at %zu, %zu: head %zu, tail %zu", elem, mis, n, sp.head, n - sp.tail);
        CHECKF(mis + n * elem <= slice + CB_RING_SLOT_PAD, "elem %zu at %zu: %zu B over the slot",
               elem, mis, n * elem);
      }
    cb_ring_split none = cb_ring_split_of(CB_RING_NO_VECTORS, 100, elem);
    CHECK(none.head == 100 && none.nvec == 0 && none.tail == 100);
  }
  CHECK(cb_ring_slot_offset((const char *)0x1000 + 5) == 5);
  CHECK(cb_ring_slot_offset((const char *)0x1000 + 32) == 0);
}

/* Every slice of a ring call starts at a whole number of 16-byte vectors
 * from the buffer (chunks of cb_chunk_elems, channel spans, slices of
 * CB_RING_SLICE, a multiple of 16), so it shares the buffer's address mod
 * 16, which is where cb_ring_slot_offset puts it in its slot: the harness's
 * -u moves the buffer, never the cut. */
static void test_ring_slices_share_the_offset(void) {
  const size_t elems[] = {1, 2, 4, 8};
  for (int e = 0; e < 4; e++)
    for (size_t count = 1; count < 5000; count += 37)
      for (int n = 1; n <= 8; n++)
        for (int channels = 1; channels <= 5; channels += 2) {
          const size_t elem = elems[e], chunk = cb_chunk_elems(count, n, elem);
          const size_t span = cb_ring_span(chunk, channels, 16 / elem), slice = 1024 / elem;
          for (int k = 0; k < n; k++)
            for (int c = 0; c < channels; c++)
              for (size_t s0 = 0; s0 < span; s0 += slice) {
                size_t off = ((size_t)k * chunk + (size_t)c * span + s0) * elem;
                CHECKF(off % 16 == 0, "count %zu n %d elem %zu: chunk %d channel %d slice at %zu",
                       count, n, elem, k, c, off);
              }
        }
}

int main(void) {
  test_ll_grid_overrides();
  test_ll_grid_fit();
  test_shared_residency();
  test_shared_residency_across_hosts();
  test_whole_sms_beside_nccl();
  test_direct_blocks();
  test_rank_chunks();
  test_ring_spans();
  test_ring_split();
  test_ring_slices_share_the_offset();
  return check_summary();
}
