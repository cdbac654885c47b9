#include "buffers.h"

#include <cuda_runtime_api.h>

#include "cuda_check.h"

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

void cb_buffers_alloc(cb_buffers *b, size_t send_bytes, size_t recv_bytes) {
  b->send_bytes = send_bytes;
  b->recv_bytes = recv_bytes;
  /* At least one byte each, so pointers are valid even for empty messages. */
  CB_CUDA(cudaMalloc(&b->send, send_bytes ? send_bytes : 1));
  CB_CUDA(cudaMalloc(&b->recv, recv_bytes ? recv_bytes : 1));
  CB_CUDA(cudaMalloc((void **)&b->counter, sizeof *b->counter));
}

void cb_buffers_free(cb_buffers *b) {
  CB_CUDA(cudaFree(b->send));
  CB_CUDA(cudaFree(b->recv));
  CB_CUDA(cudaFree(b->counter));
  b->send = b->recv = NULL;
  b->counter = NULL;
}
