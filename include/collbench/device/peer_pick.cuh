/* One entry of a per-rank array that sits in a kernel's parameters, chosen
 * at run time. Selects, not an index: a run-time index into a kernel
 * parameter array gets nvcc to copy the whole parameter block to local
 * memory at every launch. */
#ifndef CB_DEVICE_PEER_PICK_CUH
#define CB_DEVICE_PEER_PICK_CUH

#include "collbench/peer.h"

template <typename P>
__device__ __forceinline__ P cb_peer_pick(P const (&arr)[CB_MAX_PEERS], int i) {
  P x = arr[0];
#pragma unroll
  for (int k = 1; k < CB_MAX_PEERS; k++) x = i == k ? arr[k] : x;
  return x;
}

#endif
