/* broadcast_perf: every rank ends with the root's (-r) input. */
#include "collective.h"
#include "hier.h"
#include "nccl_call.h"
#include "nccl_kernels.h"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_broadcast = {.name = "broadcast",
                                          .rooted = 1,
                                          .outputs_agree = 1,
                                          .expect = CB_EXPECT_FROM_ROOT,
                                          CB_TRAFFIC_MESSAGE};

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
static void nccl_broadcast(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
  CB_NCCL_WATCHED(
      st, "ncclBroadcast",
      ncclBroadcast(c->send, c->recv, c->count, cb_nccl_type(c->dtype), c->root, st->comm, s));
}
#endif

/* Our kernels: each row is exported by its file, src/kernels/broadcast_<kernel>.cu. */
extern const cb_kernel cb_broadcast_ring, cb_broadcast_ll, cb_broadcast_direct, cb_broadcast_ce;

CB_NCCL_ROWS("NCCL ncclBroadcast", "ncclBroadcast", nccl_broadcast, CB_BOTH_PLACEMENTS,
             CB_NCCL_NO_CE_KERNEL);

/* Across hosts (hier.h): NCCL's broadcast on the root's rail, then ours within each host. */
#define HIER_PLAN(kind)                                                                            \
  {                                                                                                \
    .form = CB_HIER_BROADCAST, .steps[CB_HIER_BC] = {&cb_broadcast_##kind, &cb_shape_broadcast},   \
    .rail_call = CB_NCCL_LAUNCH(nccl_broadcast)                                                    \
  }
#define HIER_SUMMARY(kind)                                                                         \
  "across hosts: ncclBroadcast on the root's rail, then broadcast " kind " in each host"
CB_HIER_ROWS(HIER_PLAN, HIER_SUMMARY);

CB_DEFINE_COLLECTIVE(cb_broadcast_collective, &cb_shape_broadcast, &nccl, &cb_broadcast_ring,
                     &cb_broadcast_ll, &cb_broadcast_direct, &cb_broadcast_ce, &nccl_sym, &nccl_ce,
                     &hier_ring, &hier_ll, &hier_direct, &hier_ce);
