#include "buffers.h"

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "nccl_comm.h"

/* One-byte elements give the largest byte counts: wider types only round down. */
void cb_buffers_need(const cb_coll_shape *shape, uint64_t max_bytes, int nranks, size_t *send,
                     size_t *recv) {
  cb_counts c;
  shape->counts((size_t)max_bytes, 1, nranks, 0, &c);
  *send = c.send_count;
  *recv = c.send_count > c.recv_count ? c.send_count : c.recv_count;
}

uint64_t cb_buffers_largest_fit(const cb_coll_shape *shape, int nranks, uint64_t avail) {
  uint64_t lo = 0, hi = avail; /* need(bytes) >= bytes, so nothing above avail fits */
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    size_t s, r;
    cb_buffers_need(shape, mid, nranks, &s, &r);
    if ((uint64_t)s + r <= avail)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

void cb_buffers_init(cb_buffers *b, size_t send_bytes, size_t recv_bytes) {
  b->send = b->recv = NULL;
  b->send_bytes = send_bytes;
  b->recv_bytes = recv_bytes;
  CB_CUDA(cudaMalloc((void **)&b->counter, sizeof *b->counter));
}

/* At least one byte, so pointers are valid even for empty messages. */
static void *alloc_kind(cb_buffer_kind kind, size_t bytes) {
  void *p = NULL;
  if (kind == CB_MEM_NCCL)
    cb_nccl_mem_alloc(&p, bytes ? bytes : 1);
  else
    CB_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
  return p;
}

static void free_kind(cb_buffer_kind kind, void *p) {
  if (!p) return;
  if (kind == CB_MEM_NCCL)
    cb_nccl_mem_free(p);
  else
    CB_CUDA(cudaFree(p));
}

static void release(cb_buffers *b) {
  free_kind(b->kind, b->send);
  free_kind(b->kind, b->recv);
  b->send = b->recv = NULL;
}

void cb_buffers_provide(cb_buffers *b, cb_buffer_kind kind) {
  if (b->send && b->kind == kind) return;
  release(b); /* first, so that the two kinds never take memory at once */
  b->kind = kind;
  b->send = alloc_kind(kind, b->send_bytes);
  b->recv = alloc_kind(kind, b->recv_bytes);
}

void cb_buffers_free(cb_buffers *b) {
  release(b);
  CB_CUDA(cudaFree(b->counter));
  b->counter = NULL;
}
