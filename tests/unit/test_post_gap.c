/* copy_perf's --post_gap (copy/post_gap.h): the draws stay within
 * 0..max_ns, cover it evenly, repeat from the same seed, and differ from
 * draw to draw; 0 draws nothing and waits for nothing; a wait lasts at
 * least its draw. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>

#include "check.h"
#include "clock.h"
#include "post_gap.h"

static void test_bounds_and_spread(void) {
  const uint32_t max[] = {1, 7, 1000, 2000, CB_POST_GAP_MAX_NS};
  for (size_t m = 0; m < sizeof max / sizeof max[0]; m++) {
    cb_post_gap g;
    cb_post_gap_init(&g, max[m], CB_POST_GAP_SEED);
    enum { DRAWS = 40000, BINS = 8 };
    int bins[BINS] = {0}, over = 0;
    double sum = 0;
    for (int i = 0; i < DRAWS; i++) {
      uint32_t v = cb_post_gap_draw(&g);
      over += v > max[m];
      sum += v;
      bins[(uint64_t)v * BINS / ((uint64_t)max[m] + 1)]++;
    }
    CHECKF(over == 0, "max %u: %d draws above it", max[m], over);
    /* Uniform: the mean near max/2, every eighth of the range near 1/8. */
    double mean = sum / DRAWS;
    CHECKF(mean > 0.48 * max[m] && mean < 0.52 * max[m], "max %u: mean %.1f", max[m], mean);
    if (max[m] >= BINS)
      for (int b = 0; b < BINS; b++)
        CHECKF(bins[b] > DRAWS / BINS * 9 / 10 && bins[b] < DRAWS / BINS * 11 / 10,
               "max %u: bin %d holds %d of %d", max[m], b, bins[b], DRAWS);
  }
}

static void test_seed_repeats(void) {
  cb_post_gap a, b, c;
  cb_post_gap_init(&a, 2000, CB_POST_GAP_SEED);
  cb_post_gap_init(&b, 2000, CB_POST_GAP_SEED);
  cb_post_gap_init(&c, 2000, CB_POST_GAP_SEED + 1);
  int same = 1, differs_from_c = 0, changes = 0;
  uint32_t last = cb_post_gap_draw(&a);
  same &= last == cb_post_gap_draw(&b);
  differs_from_c |= last != cb_post_gap_draw(&c);
  for (int i = 0; i < 100; i++) {
    uint32_t v = cb_post_gap_draw(&a);
    same &= v == cb_post_gap_draw(&b);
    differs_from_c |= v != cb_post_gap_draw(&c);
    changes += v != last;
    last = v;
  }
  CHECK(same);
  CHECK(differs_from_c);
  CHECKF(changes > 90, "%d of 100 draws differ from the one before", changes);
}

static void test_zero_and_wait(void) {
  cb_post_gap g;
  cb_post_gap_init(&g, 0, CB_POST_GAP_SEED);
  uint64_t before = g.state;
  CHECK_EQ_INT((int)cb_post_gap_draw(&g), 0);
  double t0 = cb_monotonic_s();
  for (int i = 0; i < 1000; i++) cb_post_gap_wait(&g);
  CHECKF(cb_monotonic_s() - t0 < 0.05, "1000 waits of max 0 took %.3f s", cb_monotonic_s() - t0);
  CHECK(g.state == before); /* no draw taken */

  /* A wait lasts at least its draw: 200 waits of up to 1 ms each take
   * the sum of the same seed's draws, or longer. */
  cb_post_gap d, w;
  cb_post_gap_init(&d, 1000000, CB_POST_GAP_SEED);
  cb_post_gap_init(&w, 1000000, CB_POST_GAP_SEED);
  double drawn_s = 0;
  for (int i = 0; i < 200; i++) drawn_s += 1e-9 * cb_post_gap_draw(&d);
  t0 = cb_monotonic_s();
  for (int i = 0; i < 200; i++) cb_post_gap_wait(&w);
  double waited_s = cb_monotonic_s() - t0;
  CHECKF(waited_s >= drawn_s, "waited %.6f s for draws summing %.6f s", waited_s, drawn_s);
  CHECKF(drawn_s > 0.05, "200 draws of up to 1 ms sum to %.6f s", drawn_s);
}

int main(void) {
  test_bounds_and_spread();
  test_seed_repeats();
  test_zero_and_wait();
  return check_summary();
}
