/* Hierarchical kernels: a collective across hosts composed of a kernel of
 * ours within each host and NCCL between the hosts, on a rail communicator
 * (the ranks with one index on their host, one per host; cb_nccl_rail_setup).
 * The ranks must be laid out host by host, L on each of H hosts (rank =
 * host * L + index on the host); a setup refuses any other layout, with the
 * reason. Each part runs as it runs alone: ours on a node view of the world
 * (cb_world_node_view: its rank and nranks are the host's), on buffers at
 * the same offsets on every rank (this kernel's own, allocated as the
 * harness allocates ours, or broadcast's the harness's), so the part's
 * contract (collective.h: start and end handshakes) holds between the parts
 * as it holds between two calls.
 *
 * The forms (rank (h, l): index l on host h; N the call's count per rank;
 * every step on the call's stream, in order):
 *
 *   all_reduce      copy the input into X (N elements, padded to L chunks
 *                   of c = ceil(N / L) elements, c a whole number of 16
 *                   bytes); ours reduce-scatter X -> S within the host
 *                   (chunk l of the host's sum); NCCL all-reduce S -> S2 on
 *                   the rail (the sum over the hosts of chunk l); ours
 *                   all-gather S2 -> Y within the host; copy Y's first N
 *                   elements out. The rail carries c elements a rank, 1 / L
 *                   of the message: the traffic between hosts of a
 *                   hierarchical all-reduce.
 *   all_gather      NCCL all-gather input -> Y on the rail (Y[h] = rank
 *                   (h, l)'s block); ours all-gather Y -> Z within the host
 *                   (Z[l'][h] = rank (h, l')'s block); a strided copy of Z
 *                   into the output's rank order (h * L + l'). The rail
 *                   carries each block once to each host.
 *   reduce_scatter  a strided copy of the input into X (X[l'][h] = block
 *                   h * L + l'); ours reduce-scatter X -> Y within the host
 *                   (Y[h] = block (h, l) summed over the host); NCCL
 *                   reduce-scatter Y -> output on the rail (block (h, l)
 *                   summed over every host).
 *   broadcast       NCCL broadcast on the root's rail (index l_r on its
 *                   host h_r; root h_r there), input -> output; then ours
 *                   within every host, in place on the output, from the
 *                   rank of index l_r. The other rails take no part in the
 *                   first step; the harness's buffers serve the second
 *                   (at the same offsets on every rank), so it copies
 *                   nothing.
 *
 * With one rank a host (L = 1) there is nothing to do within a host: the
 * rail is the whole group and NCCL's call is the kernel.
 *
 * Why each form is right: the copies and the strided copies are placements
 * only (the layouts above); a reduce-scatter within a host then one across
 * the hosts reduces every element over every rank once, an all-gather of
 * all-gathers places every block once, and a broadcast to one rank of each
 * host, then from it within the host, reaches every rank once. Every rank of a host reduces in
 * our kernel's order and every rank of a rail in NCCL's, the same for
 * every chunk, so all_reduce's ranks agree bit for bit. Ops: op within the
 * host and op across hosts, which is op over all ranks for sum, prod, min
 * and max. avg averages the hosts' averages: equal for floating types (L
 * ranks on every host), but each average of integers truncates, so integer
 * avg is skipped with the reason from 2 ranks a host. mulsum scales each
 * input within the host by its rank's scalar, which depends on the rank's
 * parity (cb_mulsum_scalar): the index on the host has the rank's parity
 * when L is even, so mulsum runs at L = 1 (NCCL alone) and even L, and the
 * rail sums. */
#ifndef CB_HIER_H
#define CB_HIER_H

#include <stddef.h>

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CB_HIER_ALL_REDUCE,
  CB_HIER_ALL_GATHER,
  CB_HIER_REDUCE_SCATTER,
  CB_HIER_BROADCAST
} cb_hier_form;

/* Our kernels' steps within a host: a form takes one or two of them. */
typedef enum { CB_HIER_RS, CB_HIER_AG, CB_HIER_BC, CB_HIER_NSTEPS } cb_hier_step;

/* A kernel of ours within the host: its row and its collective's shape. */
typedef struct {
  const cb_kernel *row;
  const cb_coll_shape *shape;
} cb_hier_part;

/* One hierarchical kernel: its form, our kernels within a host (row NULL
 * where the form has none) and the program's own NCCL call (its nccl rows'
 * launch), made on the rail. */
typedef struct {
  cb_hier_form form;
  cb_hier_part steps[CB_HIER_NSTEPS]; /* by cb_hier_step */
  void (*rail_call)(cb_kernel_ctx *rail, const cb_call *call, cudaStream_t stream);
} cb_hier_plan;

/* What a plan's rows share (hier.c); setup takes the plan, and keeps it in
 * the state the others read. */
void cb_hier_setup(const cb_hier_plan *plan, cb_kernel_ctx *ctx, cb_setup_reply *reply);
const char *cb_hier_why_not(const cb_serve_question *q, char *buf, size_t len);
void cb_hier_teardown(cb_kernel_ctx *ctx);
void cb_hier_prepare(cb_kernel_ctx *ctx, const cb_call *call);
void cb_hier_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);
/* What the launch holds (collective.h): the parts' grids, streams and
 * copies, one after the other on the call's stream, its own copies, and
 * NCCL's note for the rail's call. */
void cb_hier_resources(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *r);

/* The context of a part (our kernel within the host) of ctx's kernel, as
 * its own program would give it at L ranks: node's rank and ranks (the
 * node view), scratch for max_bytes, ctx's GPU, names and bound; no
 * buffers (the setup's). beside_nccl is set: while the part's grid waits,
 * a peer of its host may be at its rail's NCCL call, which must start on
 * the GPU of any ranks that share it (grid_fit.h). */
cb_kernel_ctx cb_hier_part_ctx(const cb_kernel_ctx *ctx, cb_rank_info *node, uint64_t max_bytes);

/* The parts' setups, in turn (cb_hier_setup): setup(step, arg, reply) for
 * steps 0 .. nsteps - 1 on every rank of the host (node: its node view).
 * Each setup is collective within the host (its kernel maps its peers'
 * memory), so after each the host agrees whether any rank refused: a rank
 * that did not takes the first refusal's words (naming the rank), and the
 * steps end on every rank alike. A rank that skipped a step its peers set
 * up would leave them in a collective it never joins. */
void cb_hier_set_up_in_turn(cb_rank_info *node, int nsteps,
                            void (*setup)(int step, void *arg, cb_setup_reply *reply), void *arg,
                            cb_setup_reply *reply);

/* ---- the arithmetic of the forms (plain; tests/unit/test_hier.c) ---------- */

/* all_reduce's chunk: ceil(count / L) elements of elem bytes, rounded up to
 * a whole number of 16 bytes, as every block of our reduce-scatter and
 * all-gather kernels is (cb_block_count). */
size_t cb_hier_chunk(size_t count, int per_host, size_t elem);

/* The call our kernel makes within the host (its step) and the one NCCL
 * makes on the rail (broadcast: on the root's rail only), for a
 * call of the hierarchical kernel with nhosts hosts of per_host ranks;
 * buffers x, s, s2, y, z as hier.h names them (NULL where unused). */
typedef struct {
  void *x, *s, *s2, *y, *z;
} cb_hier_buffers;
cb_call cb_hier_part_call(cb_hier_form form, cb_hier_step step, const cb_call *call, int nhosts,
                          int per_host, const cb_hier_buffers *b);
cb_call cb_hier_rail_call(cb_hier_form form, const cb_call *call, int per_host,
                          const cb_hier_buffers *b);

/* The strided copy of the gather and scatter forms: block (host h, index
 * l) of the rank order (h * L + l) sits at l * H + h in the host's order. */
size_t cb_hier_host_order_block(int h, int l, int nhosts);

/* One row of a program's table: CB_HIER_KERNEL(row, "hier-ring", summary,
 * plan) defines `static const cb_kernel row` (and its setup, which passes
 * plan, a cb_hier_plan of the file, to the shared code). */
#define CB_HIER_COPY_RUN_LIMITS                                                                    \
  "ranks host by host (rank = host * L + index on the host); within each host what our kernel "    \
  "serves"
#define CB_HIER_RUN_LIMITS                                                                         \
  CB_HIER_COPY_RUN_LIMITS "; integer avg (L >= 2) and mulsum (odd L >= 3) skipped"
#define CB_HIER_KERNEL(row, name_, summary_, plan_)                                                \
  static void row##_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {                             \
    cb_hier_setup(&plan_, ctx, reply);                                                             \
  }                                                                                                \
  static const cb_kernel row = {.name = name_,                                                     \
                                .summary = summary_,                                               \
                                .limits = {.placements = CB_BOTH_PLACEMENTS,                       \
                                           .dtypes = CB_ALL_DTYPES,                                \
                                           .ops = CB_ALL_OPS,                                      \
                                           .across_hosts = 1},                                     \
                                .memory = CB_MEM_CUDA,                                             \
                                .why_not = cb_hier_why_not,                                        \
                                .run_limits = CB_HIER_RUN_LIMITS,                                  \
                                .setup = row##_setup,                                              \
                                .teardown = cb_hier_teardown,                                      \
                                .prepare = cb_hier_prepare,                                        \
                                .launch = cb_hier_launch,                                          \
                                .resources = cb_hier_resources}

/* A program's four rows, hier_ring, hier_ll, hier_direct and hier_ce,
 * registered as kernels of collective_ (a bare name: all_reduce), from
 * plan_(kind), the cb_hier_plan of a kind of our kernels (ring, ll, direct,
 * ce: the name's last part), summary_("kind"), its line for -k list, and
 * about_("kind"), what docs/kernels.md says of it. */
#define CB_HIER_ROWS(collective_, plan_, summary_, about_)                                         \
  static const cb_hier_plan ring_plan = plan_(ring), ll_plan = plan_(ll),                          \
                            direct_plan = plan_(direct), ce_plan = plan_(ce);                      \
  CB_HIER_KERNEL(hier_ring, "hier-ring", summary_("ring"), ring_plan);                             \
  CB_HIER_KERNEL(hier_ll, "hier-ll", summary_("ll"), ll_plan);                                     \
  CB_HIER_KERNEL(hier_direct, "hier-direct", summary_("direct"), direct_plan);                     \
  CB_HIER_KERNEL(hier_ce, "hier-ce", summary_("ce"), ce_plan);                                     \
  CB_REGISTER_KERNEL(collective_, hier_ring, about_("ring"));                                      \
  CB_REGISTER_KERNEL(collective_, hier_ll, about_("ll"));                                          \
  CB_REGISTER_KERNEL(collective_, hier_direct, about_("direct"));                                  \
  CB_REGISTER_KERNEL(collective_, hier_ce, about_("ce"))

#ifdef __cplusplus
}
#endif

#endif
