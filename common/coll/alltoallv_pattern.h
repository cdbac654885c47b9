/* alltoallv's traffic pattern, as nccl-tests 2.19.6 generates it
 * (src/alltoallv.cu, "Generated Pattern Mode"): a message of `bytes` bytes
 * is the total each rank sends, cut into per-peer pieces by distance in rank
 * space. With spread s (NCCL_TESTS_ALLTOALLV_SPREAD, 0..1, default 1), the
 * piece from rank i to rank j (distance d = (j - i) mod n) is
 *     (1 - s) * total / n  +  s * d * total / (n (n - 1) / 2)
 * bytes, rounded down to 16; one rank alone sends its whole total to itself.
 * Every rank sends and receives the same total (the pieces depend on the
 * distance only), so send and receive counts are rank-independent.
 *
 * Header-only: the host (counts, NCCL's calls) and the validation kernel
 * (datagen.cu) must cut the same pieces, so the device side rounds every
 * step as the host does, with no fused multiply-add. */
#ifndef CB_ALLTOALLV_PATTERN_H
#define CB_ALLTOALLV_PATTERN_H

#include <stddef.h>

#ifdef __CUDACC__
#define CB_A2AV_HD static inline __host__ __device__
#else
#define CB_A2AV_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* a * b + c rounded twice, as the host computes it (nvcc would fuse it on the
 * device, rounding once, and cut other pieces than the host's). */
CB_A2AV_HD double cb_a2av_mul_add(double a, double b, double c) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(__dmul_rn(a, b), c);
#else
  return a * b + c;
#endif
}

/* Bytes rank `from` sends rank `to`, of a total of `total` bytes per rank. */
CB_A2AV_HD size_t cb_a2av_peer_bytes(int from, int to, int nranks, size_t total, double spread) {
  if (nranks == 1) return total & ~(size_t)15;
  int distance = (to - from + nranks) % nranks;
  size_t sum_distances = (size_t)nranks * (size_t)(nranks - 1) / 2;
  double uniform = (double)total / (double)nranks;
#ifdef __CUDA_ARCH__
  double dist = __ddiv_rn(__dmul_rn((double)distance, (double)total), (double)sum_distances);
#else
  double dist = (double)distance * (double)total / (double)sum_distances;
#endif
  double bytes = cb_a2av_mul_add(spread, dist, 0.0);
  bytes = cb_a2av_mul_add(1.0 - spread, uniform, bytes);
  return (size_t)bytes & ~(size_t)15;
}

#ifdef __cplusplus
}
#endif

#endif
