/* copy_perf's --post_gap: a random wait before each latency copy, outside
 * the timed span.
 *
 * Why: a resident kernel (llhost, the floor's echo) finds a CPU store by
 * polling host memory, one read per PCIe round trip (~1 us). A latency
 * loop that posts each copy the moment the last one is done posts at the
 * same point of that round trip every time: the point is set by the
 * machine's constants, so the p50 lands in one of several modes about a
 * round trip apart, and a run on another machine, or the same one later,
 * may land in another. Posted after a gap drawn uniformly from 0..max_ns
 * (longer than a round trip), a copy meets the poll at a random point, as
 * a copy posted by an application does, and the p50 is over every point.
 * The draws come from a fixed seed: two runs wait the same gaps. No CUDA
 * here, so CPU tests use it. */
#ifndef CB_POST_GAP_H
#define CB_POST_GAP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CB_POST_GAP_MAX_NS 10000000              /* 10 ms: --post_gap's upper bound */
#define CB_POST_GAP_SEED   0x636f6c6c62656e63ull /* "collbenc": every loop's first gap */

typedef struct {
  uint64_t state;  /* splitmix64's */
  uint32_t max_ns; /* 0: no wait, back to back */
} cb_post_gap;

/* The gaps of one latency loop: the same seed, the same gaps. */
void cb_post_gap_init(cb_post_gap *g, uint32_t max_ns, uint64_t seed);

/* The next gap, uniform in 0..max_ns. */
uint32_t cb_post_gap_draw(cb_post_gap *g);

/* Spins on the host's monotonic clock for the next gap (nothing when
 * max_ns is 0): a sleep would hand the core away and wake late. */
void cb_post_gap_wait(cb_post_gap *g);

#ifdef __cplusplus
}
#endif

#endif
