/* all_gather_perf: every rank ends with every rank's input, in rank order. */
#include "collective.h"
#include "hier.h"
#include "nccl_call.h"
#include "nccl_kernels.h"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_all_gather = {.name = "all_gather",
                                           .outputs_agree = 1,
                                           .expect = CB_EXPECT_GATHER,
                                           CB_TRAFFIC_BLOCKS(cb_counts_gathered)};

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
static void nccl_all_gather(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  cb_nccl_state *st = cb_nccl_state_of(ctx);
  CB_NCCL_WATCHED(st, "ncclAllGather",
                  ncclAllGather(c->send, c->recv, c->count, cb_nccl_type(c->dtype), st->comm, s));
}
#endif

/* Our kernels: each row is exported by its file, src/kernels/all_gather_<kernel>.cu. */
extern const cb_kernel cb_all_gather_ring, cb_all_gather_ll, cb_all_gather_direct, cb_all_gather_ce;

CB_NCCL_ROWS("NCCL ncclAllGather", "ncclAllGather", nccl_all_gather, CB_BOTH_PLACEMENTS,
             CB_NCCL_CE_KERNEL);

/* Across hosts (hier.h): NCCL's all-gather between the hosts, then ours within each host. */
#define HIER_PLAN(kind)                                                                            \
  {                                                                                                \
    .form = CB_HIER_ALL_GATHER,                                                                    \
    .steps[CB_HIER_AG] = {&cb_all_gather_##kind, &cb_shape_all_gather},                            \
    .rail_call = CB_NCCL_LAUNCH(nccl_all_gather)                                                   \
  }
#define HIER_SUMMARY(kind)                                                                         \
  "across hosts: ncclAllGather on the rail, then all-gather " kind " in each host"
CB_HIER_ROWS(HIER_PLAN, HIER_SUMMARY);

CB_DEFINE_COLLECTIVE(cb_all_gather_collective, &cb_shape_all_gather, &nccl, &cb_all_gather_ring,
                     &cb_all_gather_ll, &cb_all_gather_direct, &cb_all_gather_ce, &nccl_sym,
                     &nccl_ce, &hier_ring, &hier_ll, &hier_direct, &hier_ce);
