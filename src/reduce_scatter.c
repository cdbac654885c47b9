/* reduce_scatter_perf: rank r ends with block r of the reduction of all ranks' inputs. */
#include "collective.h"
#include "hier.h"
#include "nccl_call.h"
#include "nccl_kernels.h"
#include "registry.h"

/* What the collective moves (coll_shape.h): as nccl-tests 2.19 defines it. */
const cb_coll_shape cb_shape_reduce_scatter = {.name = "reduce_scatter",
                                               .reduces = 1,
                                               .expect = CB_EXPECT_REDUCE_BLOCK,
                                               CB_TRAFFIC_BLOCKS(cb_counts_scattered)};
CB_REGISTER_COLLECTIVE(cb_shape_reduce_scatter);

/* NCCL's call, the launch of its three rows. */
#ifdef CB_HAVE_NCCL
static void nccl_reduce_scatter(cb_kernel_ctx *ctx, const cb_call *c, cudaStream_t s) {
  CB_NCCL_REDUCING(
      ctx, c, "ncclReduceScatter",
      ncclReduceScatter(c->send, c->recv, c->count, cb_nccl_type(c->dtype), op, st->comm, s));
}
#endif

/* Our kernels register themselves, each in its own file (registry.h); the
 * hierarchical rows below take these as their parts. */
extern const cb_kernel cb_reduce_scatter_ring, cb_reduce_scatter_ll, cb_reduce_scatter_direct,
    cb_reduce_scatter_ce;

CB_NCCL_ROWS(reduce_scatter, "NCCL ncclReduceScatter", "`ncclReduceScatter`", "ncclReduceScatter",
             nccl_reduce_scatter, CB_BOTH_PLACEMENTS, CB_NCCL_NO_CE_KERNEL);

/* Across hosts (hier.h): ours within each host, then NCCL's reduce-scatter between the hosts. */
#define HIER_PLAN(kind)                                                                            \
  {                                                                                                \
    .form = CB_HIER_REDUCE_SCATTER,                                                                \
    .steps[CB_HIER_RS] = {&cb_reduce_scatter_##kind, &cb_shape_reduce_scatter},                    \
    .rail_call = CB_NCCL_LAUNCH(nccl_reduce_scatter)                                               \
  }
#define HIER_SUMMARY(kind)                                                                         \
  "across hosts: reduce-scatter " kind " in each host, then ncclReduceScatter on the rail"
#define HIER_ABOUT(kind)                                                                           \
  "across hosts only: a strided copy of the input into host order, our reduce-scatter " kind       \
  " within the host, `ncclReduceScatter` on the rail"
CB_HIER_ROWS(reduce_scatter, HIER_PLAN, HIER_SUMMARY, HIER_ABOUT);
