/* --post_gap's draws and wait (post_gap.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "post_gap.h"

#include "clock.h"

void cb_post_gap_init(cb_post_gap *g, uint32_t max_ns, uint64_t seed) {
  g->state = seed;
  g->max_ns = max_ns;
}

/* splitmix64: one 64-bit word per draw, every bit mixed. */
static uint64_t next_word(cb_post_gap *g) {
  uint64_t z = (g->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint32_t cb_post_gap_draw(cb_post_gap *g) {
  if (g->max_ns == 0) return 0;
  /* The top 32 bits scaled into 0..max_ns: uneven by at most 1 in 2^32/max_ns. */
  return (uint32_t)(((next_word(g) >> 32) * ((uint64_t)g->max_ns + 1)) >> 32);
}

void cb_post_gap_wait(cb_post_gap *g) {
  if (g->max_ns == 0) return;
  double until = cb_monotonic_s() + 1e-9 * (double)cb_post_gap_draw(g);
  while (cb_monotonic_s() < until) {
  }
}
