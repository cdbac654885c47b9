#define _GNU_SOURCE /* getpid */
#include "peer_memory.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "error.h"

/* What a rank tells its peers about one buffer. */
typedef struct {
  int pid;
  int device;
  void *ptr;
  cudaIpcMemHandle_t handle;
} peer_record;

/* Peer access between two devices of one process; idempotent. */
static void enable_peer_access(int device, int peer_device) {
  if (device == peer_device) return;
  int can = 0;
  CB_CUDA(cudaDeviceCanAccessPeer(&can, device, peer_device));
  if (!can) cb_fatal("device %d cannot access device %d (no P2P path)", device, peer_device);
  cudaError_t rc = cudaDeviceEnablePeerAccess(peer_device, 0);
  if (rc == cudaErrorPeerAccessAlreadyEnabled)
    (void)cudaGetLastError(); /* not an error: take it off cudaGetLastError for later checks */
  else
    CB_CUDA(rc);
}

void cb_peer_share(cb_rank_info *me, void *local, size_t bytes, cb_peer_buffer *out) {
  if (me->nranks > CB_MAX_PEERS)
    cb_fatal("peer memory serves at most %d ranks, this run has %d", CB_MAX_PEERS, me->nranks);
  memset(out, 0, sizeof *out);
  out->bytes = bytes;
  out->rank = me->rank;
  out->nranks = me->nranks;
  peer_record mine, *all = calloc((size_t)me->nranks, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  memset(&mine, 0, sizeof mine);
  mine.pid = (int)getpid();
  mine.ptr = local;
  CB_CUDA(cudaGetDevice(&mine.device));
  CB_CUDA(cudaIpcGetMemHandle(&mine.handle, local));
  cb_world_allgather(me, &mine, sizeof mine, all);
  for (int r = 0; r < me->nranks; r++) {
    if (all[r].pid == mine.pid) { /* same process: the pointer is valid here */
      enable_peer_access(mine.device, all[r].device);
      out->ptr[r] = all[r].ptr;
    } else {
      CB_CUDA(cudaIpcOpenMemHandle(&out->ptr[r], all[r].handle, cudaIpcMemLazyEnablePeerAccess));
      out->ipc_opened[r] = 1;
    }
  }
  free(all);
}

void cb_peer_alloc(cb_rank_info *me, size_t bytes, cb_peer_buffer *out) {
  void *p;
  CB_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
  CB_CUDA(cudaMemset(p, 0, bytes ? bytes : 1));
  CB_CUDA(cudaDeviceSynchronize()); /* zeroed before any peer can write into it */
  cb_peer_share(me, p, bytes, out);
  out->owned = 1;
}

void cb_peer_free(cb_rank_info *me, cb_peer_buffer *b) {
  /* No rank may free its buffer while a peer still maps it. */
  cb_world_barrier(me);
  for (int r = 0; r < b->nranks; r++)
    if (b->ipc_opened[r]) CB_CUDA(cudaIpcCloseMemHandle(b->ptr[r]));
  cb_world_barrier(me);
  if (b->owned) CB_CUDA(cudaFree(b->ptr[b->rank]));
  memset(b, 0, sizeof *b);
}
