/* cb_ll_flag (common/mesh/ll_flag.h): 1 + e mod (2^32 - 1) without a
 * division, never 0, and different for e and e - 2 (the older epoch an LL
 * slot can hold), at the edges of the 32-bit halves and across a range. */
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
  }
  return check_summary();
}
