/* cb_ll_flag (src/kernels/ll/ll_flag.h): 1 + e mod (2^32 - 1) without a
 * division, never 0, and different for e and e - 2, at the edges of the
 * 32-bit halves and across a range; and two epochs of one parity (one half
 * of an LL slot) share a flag only 2 (2^32 - 1) epochs apart or a multiple
 * of that (device/ll_tiles.cuh, "Counters"). */
#include <stdint.h>

#include "check.h"
#include "ll_flag.h"

static void check_epoch(uint64_t e) {
  uint32_t f = cb_ll_flag(e);
  CHECKF(f == 1u + (uint32_t)(e % 0xffffffffull), "epoch %llu: flag %u", (unsigned long long)e, f);
  CHECKF(f != 0, "epoch %llu: flag 0", (unsigned long long)e);
  if (e >= 2)
    CHECKF(f != cb_ll_flag(e - 2), "epochs %llu and %llu share flag %u", (unsigned long long)e,
           (unsigned long long)(e - 2), f);
}

/* The distance at which two epochs of one parity share a flag. */
#define SAME_PARITY_SPAN (2 * 0xffffffffull)

/* e and e + d (0 < d < 2^64 - e) of one parity (d even) share a flag
 * exactly when d is a multiple of SAME_PARITY_SPAN; an odd multiple of
 * 2^32 - 1 apart they do too, but they are of the other parity, in the
 * other half of the scratch. */
static void check_distance(uint64_t e, uint64_t d) {
  int same = cb_ll_flag(e) == cb_ll_flag(e + d);
  int expect = d & 1 ? d % 0xffffffffull == 0 : d % SAME_PARITY_SPAN == 0;
  CHECKF(same == expect, "epochs %llu and %llu (%llu apart): flags %s", (unsigned long long)e,
         (unsigned long long)(e + d), (unsigned long long)d, same ? "equal" : "differ");
}

static void check_same_parity(uint64_t e) {
  const uint64_t m = 0xffffffffull, span = SAME_PARITY_SPAN;
  const uint64_t near[] = {1,        2,         4,        m - 1,      m,         m + 1,
                           m + 2,    2 * m - 2, span - 2, span - 1,   span,      span + 1,
                           span + 2, 2 * span,  3 * span, 1ull << 32, 1ull << 33};
  for (unsigned i = 0; i < sizeof near / sizeof near[0]; i++)
    if (near[i] < UINT64_MAX - e) check_distance(e, near[i]);
  /* Epochs one span apart do share a flag: the bound is tight. */
  CHECKF(cb_ll_flag(e) == cb_ll_flag(e + span), "epoch %llu: no collision at 2 (2^32 - 1)",
         (unsigned long long)e);
}

int main(void) {
  const uint64_t edges[] = {0,
                            1,
                            2,
                            3,
                            0xfffffffeull,
                            0xffffffffull,
                            0x100000000ull,
                            0x100000001ull,
                            0x1fffffffdull,
                            0x1fffffffeull,
                            0x1ffffffffull,
                            0xffffffff00000000ull,
                            0xfffffffffffffffeull,
                            0xffffffffffffffffull};
  for (unsigned i = 0; i < sizeof edges / sizeof edges[0]; i++)
    for (int d = -3; d <= 3; d++) check_epoch(edges[i] + (uint64_t)(int64_t)d);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 100000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    check_epoch(x);
    const uint64_t e = x >> 1; /* room for e + 3 spans */
    check_same_parity(e);
    check_distance(e, 2 * (1 + (x >> 32) % (SAME_PARITY_SPAN / 2 - 1))); /* even, below a span */
  }
  for (unsigned i = 0; i < sizeof edges / sizeof edges[0]; i++)
    if (edges[i] < UINT64_MAX - 4 * SAME_PARITY_SPAN) check_same_parity(edges[i]);
  return check_summary();
}
