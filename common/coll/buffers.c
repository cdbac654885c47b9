#include "buffers.h"

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "cumem.h"
#include "nccl_comm.h"
#include "peer_mapping.h"

/* The widest element: -u N moves a call's pointers by at most 8 N bytes. */
#define WIDEST_ELEMENT 8

/* One-byte elements give the largest byte counts: wider types only round down. */
void cb_buffers_need(const cb_coll_shape *shape, uint64_t max_bytes, int nranks, int unalign,
                     size_t *send, size_t *recv) {
  cb_counts c;
  shape->counts((size_t)max_bytes, 1, nranks, 0, &c);
  size_t pad = (size_t)unalign * WIDEST_ELEMENT;
  *send = c.send_count + pad;
  *recv = (c.send_count > c.recv_count ? c.send_count : c.recv_count) + pad + CB_GUARD_BYTES;
}

char *cb_buffers_output_end(const cb_buffers *b, const cb_call *call, const cb_counts *c,
                            size_t elem) {
  if (!call->in_place) return (char *)call->recv + c->recv_count * elem;
  const size_t region = c->send_count > c->recv_count ? c->send_count : c->recv_count;
  return cb_buffers_start(b, b->recv, elem) + region * elem;
}

uint64_t cb_buffers_largest_fit(const cb_coll_shape *shape, int nranks, int unalign,
                                uint64_t avail) {
  uint64_t lo = 0, hi = avail; /* need(bytes) >= bytes, so nothing above avail fits */
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    size_t s, r;
    cb_buffers_need(shape, mid, nranks, unalign, &s, &r);
    if ((uint64_t)s + r <= avail)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

void cb_buffers_init(cb_buffers *b, size_t send_bytes, size_t recv_bytes, int unalign) {
  b->send = b->recv = NULL;
  b->send_bytes = send_bytes;
  b->recv_bytes = recv_bytes;
  b->unalign = unalign;
  CB_CUDA(cudaMalloc((void **)&b->check, sizeof *b->check));
  /* Every rank starts at round 0 and runs the same calls: rounds agree. */
  CB_CUDA(cudaMemset(b->check, 0, sizeof *b->check));
}

/* At least one byte, so pointers are valid even for empty messages. Our
 * kernels' buffers (CB_MEM_CUDA) come from cuMem when the run maps peer
 * memory with it (CB_PEER_MAPPING=cumem or fabric, or auto resolved to
 * cumem), since CUDA IPC is the only mapping that takes cudaMalloc memory. */
static void *alloc_kind(const cb_buffers *b, size_t bytes) {
  void *p = NULL;
  size_t n = bytes ? bytes : 1;
  if (b->kind == CB_MEM_NCCL) {
    cb_nccl_mem_alloc(&p, n);
  } else if (b->cumem_types) {
    int device;
    CB_CUDA(cudaGetDevice(&device));
    p = cb_cumem_alloc(n, device, b->cumem_types);
  } else {
    CB_CUDA(cudaMalloc(&p, n));
  }
  return p;
}

static void free_kind(const cb_buffers *b, void *p) {
  if (!p) return;
  if (b->kind == CB_MEM_NCCL)
    cb_nccl_mem_free(p);
  else if (b->cumem_types)
    cb_cumem_free(p);
  else
    CB_CUDA(cudaFree(p));
}

static void release(cb_buffers *b) {
  free_kind(b, b->send);
  free_kind(b, b->recv);
  b->send = b->recv = NULL;
}

void cb_buffers_provide(cb_buffers *b, cb_buffer_kind kind) {
  if (b->send && b->kind == kind) return;
  release(b); /* first, so that the two kinds never take memory at once */
  b->kind = kind;
  /* The mapping is settled before the first buffer (rank_main); an auto
   * still unresolved means no kernel of ours maps peer memory: cudaMalloc. */
  b->cumem_types =
      kind == CB_MEM_CUDA ? cb_peer_mapping_handle_types(cb_peer_mapping_current()) : 0;
  b->send = alloc_kind(b, b->send_bytes);
  b->recv = alloc_kind(b, b->recv_bytes);
}

void *cb_buffers_alloc_ours(size_t bytes) {
  const cb_buffers b = {.kind = CB_MEM_CUDA,
                        .cumem_types = cb_peer_mapping_handle_types(cb_peer_mapping_current())};
  return alloc_kind(&b, bytes);
}

void cb_buffers_free_ours(void *p) {
  const cb_buffers b = {.kind = CB_MEM_CUDA,
                        .cumem_types = cb_peer_mapping_handle_types(cb_peer_mapping_current())};
  free_kind(&b, p);
}

void cb_buffers_free(cb_buffers *b) {
  release(b);
  CB_CUDA(cudaFree(b->check));
  b->check = NULL;
}
