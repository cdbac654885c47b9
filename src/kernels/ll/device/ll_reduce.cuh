/* The rank-order reduction of one LL packet, shared by every LL kernel that
 * reduces (all_reduce ll and ll2, reduce_scatter ll, reduce ll): packet i
 * of every rank's run, ours from our own input (mine, loaded by the caller
 * before this call so that its latency hides behind the polls) and each
 * peer's polled in our scratch (ll_tiles.cuh), reduced in rank order 0, 1,
 * ..., n-1 whichever rank reduces, so floating-point sums and min/max of
 * signed zeros and NaNs give the same bits on every rank; avg divides once,
 * at the end. Each packet enters as the input of the rank it came from
 * (reduce.cuh: mulsum scales it by that rank's scalar). */
#ifndef CB_DEVICE_LL_REDUCE_CUH
#define CB_DEVICE_LL_REDUCE_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/device/ll_packet.cuh"
#include "device/ll_tiles.cuh"
#include "collbench/device/reduce.cuh"
#include "ll_mesh.h"

template <typename T, int OP>
__device__ __forceinline__ uint2 cb_ll_reduce_ranks(const cb_ll_mesh &m, uint64_t epoch,
                                                    uint32_t flag, size_t i, uint2 mine,
                                                    const cb_spin_info &spin) {
  uint2 acc = make_uint2(0, 0);
  for (int q = 0; q < m.nranks; q++) {
    uint2 v = q == m.rank ? mine : cb_ll16_read(cb_ll_slot(m, 0, epoch, q, i), flag, spin, q);
    acc = cb_reduce_rank_pack<T, OP>(acc, v, q);
  }
  return cb_finalize_pack<T, OP>(acc, m.nranks);
}

#endif
