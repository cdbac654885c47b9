/* What the direct kernels (all_gather, reduce_scatter, all_reduce -k
 * direct) share on the host: every rank's send and receive buffers mapped
 * on every rank, the handshake flag areas (device/handshake.cuh) and this
 * rank's per-block epochs; and the block count for a call. Those kernels
 * load from and store to their peers' buffers with plain 16-byte accesses,
 * with a block-level handshake before and after. */
#ifndef CB_DIRECT_MESH_H
#define CB_DIRECT_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/tunables.h"
#include "collbench/peer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every block must be resident at once (a block waits on its peers' same
 * block): cb_direct_fit caps the blocks at what the GPU holds; 128 blocks of
 * 512 threads fit an H100/H200 (132 SMs). */
#define CB_DIRECT_THREADS    512
#define CB_DIRECT_MAX_BLOCKS 128

typedef struct {
  cb_peer_buffer bufs[2]; /* the harness's send and receive buffers of every rank */
  cb_peer_buffer flags;   /* handshake words, CB_HS_AREA_BYTES(max_blocks) per rank */
  uint64_t *epochs;       /* ours, one per block */
  int max_blocks;
  size_t block_bytes;                            /* peer traffic per block */
  const void *funcs[CB_NUM_DTYPES * CB_NUM_OPS]; /* cb_direct_fit's, for the resources */
  int nfuncs;
} cb_direct_state;

/* Collective: a cb_direct_state in ctx->state. Tunables <prefix>_BLOCKS
 * (blocks at most) and <prefix>_BLOCK_BYTES (bytes of peer traffic per
 * block), equal on every rank: block b pairs with block b of each peer. */
void cb_direct_setup(cb_kernel_ctx *ctx, const char *prefix);
/* A direct kernel's two tunables, registered by its file (tunables.h):
 * CB_DIRECT_TUNABLES(ar_direct, "CB_AR_DIRECT", "all_reduce") makes
 * CB_AR_DIRECT_BLOCKS and CB_AR_DIRECT_BLOCK_BYTES; block b of every rank
 * pairs with block b of every peer, and each rank derives a call's block
 * count from the block bytes, so both must agree. */
#define CB_DIRECT_TUNABLES(group_, prefix_, program_)                                              \
  CB_REGISTER_TUNABLES(                                                                            \
      group_,                                                                                      \
      CB_TUNABLE_NUMBER(prefix_ "_BLOCKS", 1, 128, 1, 64, CB_TUNE_AGREE,                           \
                        program_ " -k direct: blocks at most"),                                    \
      CB_TUNABLE_NUMBER(prefix_ "_BLOCK_BYTES", 1024, 1L << 30, 1, 32 << 10, CB_TUNE_AGREE,        \
                        program_ " -k direct: bytes a rank sends or loads per block (fewer "       \
                                 "blocks for small messages)"))
/* Collective, after cb_direct_setup: caps max_blocks, on every rank alike,
 * at the blocks of CB_DIRECT_THREADS threads every one of funcs (the
 * kernel's instantiations) can hold resident at once on every rank's GPU;
 * notes a cap, refuses the kernel when not one block fits. Every direct
 * kernel's setup calls it. */
void cb_direct_fit(cb_kernel_ctx *ctx, cb_setup_reply *reply, const void *const *funcs, int nfuncs);
/* Collective: frees ctx->state; a direct kernel's teardown in its table. */
void cb_direct_teardown(cb_kernel_ctx *ctx);

/* Blocks for a call whose rank moves `traffic` bytes to or from its peers:
 * the same on every rank for the same call. */
int cb_direct_blocks(const cb_direct_state *st, size_t traffic);
/* The traffic that sets the blocks of a call whose rank stores or loads a
 * run of `bytes` to or from each of its peers (one run at 1 rank). */
static inline size_t cb_direct_run_traffic(int nranks, size_t bytes) {
  return bytes * (size_t)(nranks > 1 ? nranks - 1 : 1);
}

/* Resources (collective.h) of a direct kernel's call whose rank moves
 * `traffic` bytes to or from its peers: one grid of cb_direct_blocks, of
 * the instance for the call's datatype and op among those cb_direct_fit
 * was given; none for no traffic, which launches nothing. */
void cb_direct_resources_for(const cb_kernel_ctx *ctx, const cb_call *call, size_t traffic,
                             cb_kernel_resources *r);

/* The resources of a direct row whose call moves runs of its count
 * elements (cb_direct_run_traffic): every direct kernel of ours but
 * all_reduce's (chunks) and sendrecv's (one run). */
void cb_direct_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r);

/* The address on rank r of local_ptr (in our send or receive buffer);
 * fails naming the kernel if it is in neither. */
void *cb_direct_peer_ptr(const cb_kernel_ctx *ctx, const cb_direct_state *st, int r,
                         const void *local_ptr);

/* Every rank's handshake area, as this rank addresses it (NULL past nranks). */
void cb_direct_areas(const cb_kernel_ctx *ctx, const cb_direct_state *st,
                     uint64_t *area[CB_MAX_PEERS]);

#ifdef __cplusplus
}
#endif

#endif
