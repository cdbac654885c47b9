/* -k direct: all-reduce by direct loads and stores, for mid sizes.
 *
 * The message is cut into n chunks (rank_chunk.h: whole 16-byte
 * multiples, the last ones shorter or empty). Rank r loads chunk r of
 * every rank's input over NVLink, reduces it in rank order, and stores the
 * result into chunk r of every rank's output, its own last: a
 * reduce-scatter and an all-gather in one pass, with no scratch and no
 * second copy, and one handshake before and one after (the shared direct
 * reduce kernel, device/direct_reduce.cuh, which explains them). Each
 * link carries a rank's loads one way and its stores the other, at once.
 *
 * In place (send == recv): element i of chunk c is loaded from every rank's
 * buffer and then stored to every rank's buffer by one thread of rank c,
 * and by nobody else; no other rank touches chunk c of any buffer. So no
 * byte is read after being overwritten. */
#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "device/direct_reduce.cuh"
#include "collbench/device/dispatch.cuh"
#include "direct_mesh.h"
#include "peer_limits.h"
#include "rank_chunk.h"

static void cb_ar_direct_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  cb_direct_reduce_setup(ctx, reply, "CB_AR_DIRECT");
}

/* The bytes a rank loads from its peers for a whole chunk, which set the blocks: the same on
 * every rank, whichever chunk is short. */
static size_t ar_direct_traffic(const cb_kernel_ctx *ctx, const cb_call *call) {
  const int n = ctx->nranks;
  const size_t elem = cb_dtype_size(call->dtype);
  return cb_direct_run_traffic(n, cb_chunk_elems(call->count, n, elem) * elem);
}

static void cb_ar_direct_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_direct_state *st = (const cb_direct_state *)ctx->state;
  const int n = ctx->nranks, rank = ctx->rank;
  const size_t elem = cb_dtype_size(call->dtype);
  if (call->count == 0) return; /* on every rank alike: nothing to reduce, no epoch */
  size_t first, len;
  cb_rank_chunk(call->count, n, elem, rank, &first, &len);
  cb_direct_reduce_args a;
  a.bytes = len * elem;
  a.nout = a.bytes ? n : 0;
  const char *in = (const char *)call->send + first * elem;
  char *out = (char *)call->recv + first * elem;
  int same = 1;
  for (int k = 0; k < CB_MAX_PEERS; k++) {
    a.in[k] = NULL;
    a.out[k] = NULL;
    if (k >= n || !a.bytes) continue;
    a.in[k] = (const char *)cb_direct_peer_ptr(ctx, st, k, in);
    /* Peers from the next rank on (ranks spread over the links), ours last. */
    a.out[k] = (char *)cb_direct_peer_ptr(ctx, st, (rank + 1 + k) % n, out);
    same &= cb_same_mod16(in, a.in[k]) & cb_same_mod16(in, a.out[k]);
  }
  a.split = cb_vec_split_make(in, same, a.bytes, elem);
  cb_direct_reduce_enqueue(ctx, &a, call, cb_direct_blocks(st, ar_direct_traffic(ctx, call)),
                           stream);
}

static void cb_ar_direct_resources(const cb_kernel_ctx *ctx, const cb_call *call,
                                   cb_kernel_resources *r) {
  if (call->count) cb_direct_resources_for(ctx, call, ar_direct_traffic(ctx, call), r);
}

CB_KERNEL_ROW(cb_all_reduce_direct) =
    CB_PEER_ROW_RESOURCES("direct",
                          "all-pairs in one pass: each rank loads its chunk of every peer's input "
                          "over NVLink, reduces, and stores the result into every peer's output; "
                          "a flag handshake before and after",
                          CB_BOTH_PLACEMENTS, cb_ar_direct_setup, cb_direct_teardown,
                          cb_ar_direct_launch, cb_ar_direct_resources, CB_WAITS_HANDSHAKE);
CB_REGISTER_KERNEL(all_reduce, cb_all_reduce_direct,
                   "all-pairs in one pass: rank r loads chunk r of every rank's input with 16-byte "
                   "loads over NVLink, reduces in rank order and stores the result into chunk r of "
                   "every rank's output; per-block start and end flag handshakes; for mid sizes "
                   "(1–64 MiB)");
CB_DIRECT_TUNABLES(all_reduce_direct, "CB_AR_DIRECT", "all_reduce");
