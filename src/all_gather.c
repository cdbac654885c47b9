/* all_gather_perf: every rank ends with every rank's input, in rank order. */
#include "collective.h"
#include "hier.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_all_gather = {.name = "all_gather",
                                           .outputs_agree = 1,
                                           .expect = CB_EXPECT_GATHER,
                                           CB_TRAFFIC_BLOCKS(cb_counts_gathered)};
CB_REGISTER_COLLECTIVE(cb_shape_all_gather);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
static void nccl_all_gather(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
  CB_NCCL_WATCHED(st, "ncclAllGather",
                  ncclAllGather(c->send, c->recv, c->count, cb_nccl_type(c->dtype), st->comm, s));
}
#endif

/* Our kernels register themselves, each in its own file (registry.h); the
 * hierarchical rows below take these as their parts. */
extern const cb_kernel cb_all_gather_ring, cb_all_gather_ll, cb_all_gather_direct, cb_all_gather_ce;

CB_NCCL_ROWS(all_gather, "NCCL ncclAllGather", "`ncclAllGather`", "ncclAllGather", nccl_all_gather,
             CB_BOTH_PLACEMENTS, CB_NCCL_CE_KERNEL);

/* Across hosts (hier.h): NCCL's all-gather between the hosts, then ours within each host. */
#define HIER_PLAN(kind)                                                                            \
  {                                                                                                \
    .form = CB_HIER_ALL_GATHER,                                                                    \
    .steps[CB_HIER_AG] = {&cb_all_gather_##kind, &cb_shape_all_gather},                            \
    .rail_call = CB_NCCL_LAUNCH(nccl_all_gather)                                                   \
  }
#define HIER_SUMMARY(kind)                                                                         \
  "across hosts: ncclAllGather on the rail, then all-gather " kind " in each host"
#define HIER_ABOUT(kind)                                                                           \
  "across hosts only: `ncclAllGather` of the rank's block on its rail, our all-gather " kind       \
  " within the host, a strided copy into rank order"
CB_HIER_ROWS(all_gather, HIER_PLAN, HIER_SUMMARY, HIER_ABOUT);
