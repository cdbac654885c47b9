/* all_reduce_perf: every rank ends with the reduction of all ranks' inputs. */
#include "collective.h"
#include "hier.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
static double factor_all_reduce(int n) {
  return 2.0 * (n - 1) / n;
}

const cb_coll_shape cb_shape_all_reduce = {.name = "all_reduce",
                                           .reduces = 1,
                                           .outputs_agree = 1,
                                           .expect = CB_EXPECT_REDUCE,
                                           .counts = cb_counts_same,
                                           .bus_factor = factor_all_reduce,
                                           .algbw_bytes = cb_algbw_param};
CB_REGISTER_COLLECTIVE(cb_shape_all_reduce);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
static void nccl_all_reduce(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  CB_NCCL_REDUCING(
      ctx, c, "ncclAllReduce",
      ncclAllReduce(c->send, c->recv, c->count, cb_nccl_type(c->dtype), op, st->comm, s));
}
#endif

/* Our kernels register themselves, each in its own file (registry.h). */

CB_NCCL_ROWS(all_reduce, "NCCL ncclAllReduce (its own choice of algorithm and protocol)",
             "`ncclAllReduce`", "ncclAllReduce", nccl_all_reduce, CB_BOTH_PLACEMENTS,
             CB_NCCL_NO_CE_KERNEL);

/* Across hosts (hier.h): our reduce-scatter within each host, NCCL's all-reduce between the
 * hosts, our all-gather within each host, the two of ours of one kind. */
extern const cb_coll_shape cb_shape_reduce_scatter, cb_shape_all_gather;
extern const cb_kernel cb_reduce_scatter_ring, cb_reduce_scatter_ll, cb_reduce_scatter_direct,
    cb_reduce_scatter_ce, cb_all_gather_ring, cb_all_gather_ll, cb_all_gather_direct,
    cb_all_gather_ce;
#define HIER_PLAN(kind)                                                                            \
  {                                                                                                \
    .form = CB_HIER_ALL_REDUCE,                                                                    \
    .steps[CB_HIER_RS] = {&cb_reduce_scatter_##kind, &cb_shape_reduce_scatter},                    \
    .steps[CB_HIER_AG] = {&cb_all_gather_##kind, &cb_shape_all_gather},                            \
    .rail_call = CB_NCCL_LAUNCH(nccl_all_reduce)                                                   \
  }
#define HIER_SUMMARY(kind)                                                                         \
  "across hosts: reduce-scatter " kind " in each host, ncclAllReduce on the rail, "                \
  "all-gather " kind
#define HIER_ABOUT(kind)                                                                           \
  "across hosts only: the message copied into a buffer of whole chunks (one a rank of the "        \
  "host), our reduce-scatter " kind " within the host, `ncclAllReduce` of the rank's chunk "       \
  "on its rail (the ranks with its index on their host, a communicator of the kernel's "           \
  "own), our all-gather " kind " within the host, the result copied out "                          \
  "([multi-node.md](multi-node.md), `common/coll/hier.h`)"
CB_HIER_ROWS(all_reduce, HIER_PLAN, HIER_SUMMARY, HIER_ABOUT);
