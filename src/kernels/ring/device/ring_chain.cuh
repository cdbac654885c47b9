/* The ring chain kernel: all_reduce, all_gather and reduce_scatter -k ring.
 * Around the ring (rank -> rank+1, link 1 of the FIFO pipes, ring_mesh.h),
 * every channel (one block) runs, for each slice of its span, the phases
 * of a plan: in phase p a rank takes chunk k of the message (the plan says
 * which) and does one kind of step with its slice (ring_slice.cuh): send
 * our data, receive and reduce with ours and send on, receive and keep, ...
 * What a rank sends in phase p its next rank takes in phase p+1 of the same
 * slice.
 *
 * Chunks: chunk k is elements [k * chunk, k * chunk + chunk) of a run of
 * `total` elements (shorter or empty at the end), found at in + k *
 * in_stride and out + k * out_stride (a stride of 0: the one place every
 * chunk of that side uses, e.g. an all-gather's input). Each chunk is cut
 * into one span per channel and each span into slices the same way
 * (ring_span.h), from the longest chunk, so every phase of a slice covers
 * the same elements of its chunk on every rank.
 *
 * Slices outside, phases inside: every phase of slice j is done before
 * slice j+1, so no FIFO ever has to hold a whole phase. (Phases outside
 * would deadlock: all ranks sending, none receiving, as soon as a phase had
 * more slices than the FIFO has slots.) A plan's first phase only sends, so
 * no rank waits for a receive that waits for it (ring_fifo.cuh). Every rank
 * runs the same slices and phases, empty ones included, so the flag counts
 * always match.
 *
 * A plan is a struct of device functions:
 *   static int phases(int n);
 *   static int kind(int p, int n, int rank, const cb_ring_chain_args &a, int *chunk);
 *   template <typename T, int OP> static void move(int kind, ..., int n, int rank):
 *       cb_ring_slice_of<T, OP, its kinds...>(kind, ..., n, rank)
 *       (rank: ours, for the reductions: mulsum scales our input by our scalar)
 * The kinds say what a phase reads and writes; the plan's file argues the
 * chunk order and in-place safety. */
#ifndef CB_DEVICE_RING_CHAIN_CUH
#define CB_DEVICE_RING_CHAIN_CUH

#include <stddef.h>
#include <stdint.h>

#include "collbench/cuda_check.h"
#include "collbench/device/dispatch.cuh"
#include "collbench/device/ring_fifo.cuh"
#include "ring_mesh.h"
#include "ring_slice.cuh"
#include "ring_span.h"

typedef struct {
  const void *in;
  void *out;
  size_t total;                 /* elements the chunks are cut from */
  size_t chunk;                 /* elements of a chunk (whole 16-byte vectors) */
  size_t in_stride, out_stride; /* chunk k at in + k * in_stride, out + k * out_stride */
  int out_of_place;             /* for plans whose first step also keeps a copy */
  int root;                     /* for rooted plans (reduce: where the chain ends) */
  size_t at;                    /* where a slice sits in its slot (cb_ring_slot_offset) */
  cb_ring_mesh m;
  cb_spin_info spin;
} cb_ring_chain_args;

template <typename T, int OP, typename PLAN>
__global__ void __launch_bounds__(CB_RING_THREADS) cb_ring_chain_kernel(cb_ring_chain_args a) {
  const int c = blockIdx.x, channels = gridDim.x, n = a.m.nranks;
  const size_t per_vec = sizeof(uint4) / sizeof(T);
  const size_t ch = cb_ring_span(a.chunk, channels, per_vec); /* channel's range */
  const size_t c0 = (size_t)c * ch;
  const size_t slice_elems = a.m.slice_bytes / sizeof(T);
  const cb_ring_link l = cb_ring_link_of(a.m, 1, c);
  cb_ring_pos pos = cb_ring_load_pos(a.m, l);
  const int phases = PLAN::phases(n);
  for (size_t s0 = 0; c0 < a.chunk && s0 < ch; s0 += slice_elems) {
    for (int p = 0; p < phases; p++) {
      int k, kind = PLAN::kind(p, n, a.m.rank, a, &k);
      size_t klen = cb_ring_take(a.total, (size_t)k * a.chunk, a.chunk);
      size_t len = cb_ring_take(cb_ring_take(klen, c0, ch), s0, slice_elems);
      const bool recv = kind & CB_SLICE_FROM_FIFO;
      const bool send = kind & CB_SLICE_TO_FIFO;
      cb_ring_wait(a.m, l, pos, recv, send, a.spin);
      const T *fin = (const T *)cb_ring_in_slot(a.m, l, pos, a.at);
      T *fout = (T *)cb_ring_out_slot(a.m, l, pos, a.at);
      const T *in = (const T *)a.in + (size_t)k * a.in_stride + c0 + s0;
      T *out = (T *)a.out + (size_t)k * a.out_stride + c0 + s0;
      PLAN::template move<T, OP>(kind, in, fin, out, fout, len, n, a.m.rank);
      /* write_past_end (device/mutation.cuh): a byte after the chunk's end. */
      if (CB_MUTANT_BREAKS(CB_BOUND_OUTPUT_END) && (kind & CB_SLICE_TO_OUT) && threadIdx.x == 0 &&
          len > 0 && c0 + s0 + len == klen)
        *(unsigned char *)(out + len) = 0;
      cb_ring_signal(a.m, l, pos, recv, send);
    }
  }
  cb_ring_store_pos(a.m, l, pos);
}

/* The moves of a plan that reduces along the chain (reduce_scatter, reduce):
 * send ours, reduce and send on, reduce into the result; one rank alone
 * only finalizes. Our input enters as our rank's (mulsum scales it). A plan
 * takes them by deriving from this struct. */
struct cb_ring_reducing_moves {
  template <typename T, int OP>
  static __device__ __forceinline__ void move(int kind, const T *in, const T *fin, T *out, T *fout,
                                              size_t len, int n, int rank) {
    cb_ring_slice_of<T, OP, CB_SLICE_SEND, CB_SLICE_REDUCE_SEND, CB_SLICE_FINAL, CB_SLICE_LOCAL>(
        kind, in, fin, out, fout, len, n, rank);
  }
};

/* Host side: one launch of the plan's kernel for type T and op OP, on the
 * setup's channels (0 elements: nothing, on every rank alike). */
template <typename T, int OP, typename PLAN>
static void cb_ring_chain_launch(const cb_kernel_ctx *ctx, cb_ring_chain_args a,
                                 cudaStream_t stream) {
  const cb_ring_state *st = (const cb_ring_state *)ctx->state;
  if (a.total == 0) return;
  a.at = cb_ring_slot_offset(a.out);
  a.m = cb_ring_mesh_for(ctx, st);
  a.spin = CB_SPIN_INFO(ctx);
  cb_ring_chain_kernel<T, OP, PLAN><<<st->channels, CB_RING_THREADS, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}

/* The same for the call's datatype and op (the plans that reduce), a
 * filled by the kernel's launch: in, out and how the call is cut. */
template <typename PLAN> struct cb_ring_chain_typed {
  template <typename T, int OP>
  static void launch(const cb_kernel_ctx *ctx, const cb_ring_chain_args *a, cudaStream_t stream) {
    cb_ring_chain_launch<T, OP, PLAN>(ctx, *a, stream);
  }
};
template <typename PLAN>
static void cb_ring_chain_launch_call(const cb_kernel_ctx *ctx, const cb_call *call,
                                      const cb_ring_chain_args &a, cudaStream_t stream) {
  CB_DISPATCH_TYPE_OP(call->dtype, call->op, cb_ring_chain_typed<PLAN>::template launch, ctx, &a,
                      stream);
}

/* The plan's kernel for (dtype, op), for the setup's residency check; with
 * BYTES the one instance that moves bytes for every datatype (plans that
 * only copy). */
template <typename PLAN> struct cb_ring_chain_instance {
  template <typename T, int OP> static void get(const void **fn) {
    *fn = (const void *)cb_ring_chain_kernel<T, OP, PLAN>;
  }
};
template <typename PLAN, bool BYTES>
static const void *cb_ring_chain_kernel_of(cb_dtype dtype, cb_redop op) {
  const void *fn = (const void *)cb_ring_chain_kernel<uint8_t, CB_SUM, PLAN>;
  if (!BYTES) CB_DISPATCH_TYPE_OP(dtype, op, cb_ring_chain_instance<PLAN>::template get, &fn);
  return fn;
}

/* A ring chain kernel's setup (collective): link 1 of the FIFO pipes. */
template <typename PLAN, bool BYTES>
static void cb_ring_chain_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  const cb_ring_spec spec = {1, CB_RING_THREADS, cb_ring_chain_kernel_of<PLAN, BYTES>};
  cb_ring_setup(ctx, reply, &spec);
}

#endif
