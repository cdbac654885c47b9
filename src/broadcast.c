/* broadcast_perf: every rank ends with the root's (-r) input. */
#include "collective.h"
#include "hier.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_broadcast = {.name = "broadcast",
                                          .rooted = 1,
                                          .outputs_agree = 1,
                                          .expect = CB_EXPECT_FROM_ROOT,
                                          CB_TRAFFIC_MESSAGE};
CB_REGISTER_COLLECTIVE(cb_shape_broadcast);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
static void nccl_broadcast(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
  CB_NCCL_WATCHED(
      st, "ncclBroadcast",
      ncclBroadcast(c->send, c->recv, c->count, cb_nccl_type(c->dtype), c->root, st->comm, s));
}
#endif

/* Our kernels register themselves, each in its own file (registry.h); the
 * hierarchical rows below take these as their parts. */
extern const cb_kernel cb_broadcast_ring, cb_broadcast_ll, cb_broadcast_direct, cb_broadcast_ce;

CB_NCCL_ROWS(broadcast, "NCCL ncclBroadcast", "`ncclBroadcast`", "ncclBroadcast", nccl_broadcast,
             CB_BOTH_PLACEMENTS, CB_NCCL_NO_CE_KERNEL);

/* Across hosts (hier.h): NCCL's broadcast on the root's rail, then ours within each host. */
#define HIER_PLAN(kind)                                                                            \
  {                                                                                                \
    .form = CB_HIER_BROADCAST, .steps[CB_HIER_BC] = {&cb_broadcast_##kind, &cb_shape_broadcast},   \
    .rail_call = CB_NCCL_LAUNCH(nccl_broadcast)                                                    \
  }
#define HIER_SUMMARY(kind)                                                                         \
  "across hosts: ncclBroadcast on the root's rail, then broadcast " kind " in each host"
#define HIER_ABOUT(kind)                                                                           \
  "across hosts only: `ncclBroadcast` on the root's rail (from the root's host), then our "        \
  "broadcast " kind " within every host, in place on the output, from the rank with the "          \
  "root's index on its host; no copy"
CB_HIER_ROWS(broadcast, HIER_PLAN, HIER_SUMMARY, HIER_ABOUT);
