/* hier: the arithmetic of the hierarchical kernels' forms (hier.h). Each
 * form is played out on host arrays for H hosts of L ranks, step by step,
 * with the counts of the calls the plan makes (our part within the host,
 * NCCL's on the rail) and the strided copies' block order, and must give
 * what the collective gives. And the parts' setups in turn, on threads of
 * one process as the ranks of a host: a refusal on one rank ends them on
 * every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "grid_fit.h"
#include "hier.h"

enum { MAXR = 12, MAXN = 64 };

static int in[MAXR][MAXR * MAXN]; /* rank r's input */

static void fill(int nranks, size_t n) {
  for (int r = 0; r < nranks; r++)
    for (size_t j = 0; j < n; j++) in[r][j] = (int)(1000 * r + j + 1);
}

static void check_chunk(void) {
  CHECK(cb_hier_chunk(12, 2, 4) == 8);  /* 6 floats, rounded up to 16 bytes */
  CHECK(cb_hier_chunk(3, 2, 4) == 4);   /* 2 floats, rounded up */
  CHECK(cb_hier_chunk(32, 2, 4) == 16); /* whole */
  CHECK(cb_hier_chunk(5, 3, 1) == 16);  /* bytes: 2, rounded up to 16 */
  CHECK(cb_hier_chunk(7, 3, 8) == 4);   /* doubles: 3, rounded up to 2's multiple */
  CHECK(cb_hier_chunk(0, 4, 4) == 0);
  for (size_t n = 1; n < 200; n++)
    for (int l = 1; l <= 8; l++) {
      size_t c = cb_hier_chunk(n, l, 2);
      CHECKF(c * (size_t)l >= n && c % 8 == 0 && (c - 8) * (size_t)l < n,
             "chunk of %zu halves over %d ranks: %zu", n, l, c);
    }
}

/* all_reduce: copy in, reduce-scatter within the host, all-reduce on the
 * rail, all-gather within the host, copy out. */
static void check_all_reduce(int H, int L, size_t n) {
  const int R = H * L;
  fill(R, n);
  const cb_call call = {.dtype = CB_INT32, .op = CB_SUM, .count = n};
  const cb_hier_buffers b = {0};
  const cb_call rs = cb_hier_part_call(CB_HIER_ALL_REDUCE, CB_HIER_RS, &call, H, L, &b);
  const cb_call ag = cb_hier_part_call(CB_HIER_ALL_REDUCE, CB_HIER_AG, &call, H, L, &b);
  const cb_call rail = cb_hier_rail_call(CB_HIER_ALL_REDUCE, &call, L, &b);
  const size_t c = rs.count;
  CHECK(ag.count == c && rail.count == c && c * (size_t)L >= n);
  static int x[MAXR][MAXR * MAXN], s[MAXR][MAXN * 2], s2[MAXR][MAXN * 2], y[MAXR][MAXR * MAXN];
  for (int r = 0; r < R; r++)
    for (size_t j = 0; j < c * (size_t)L; j++) x[r][j] = j < n ? in[r][j] : 7; /* pad: any */
  for (int r = 0; r < R; r++) { /* reduce-scatter: chunk l of the host's sum */
    int h = r / L, l = r % L;
    for (size_t j = 0; j < c; j++) {
      s[r][j] = 0;
      for (int q = 0; q < L; q++) s[r][j] += x[h * L + q][(size_t)l * c + j];
    }
  }
  for (int r = 0; r < R; r++) /* the rail: the same index on every host */
    for (size_t j = 0; j < c; j++) {
      s2[r][j] = 0;
      for (int g = 0; g < H; g++) s2[r][j] += s[g * L + r % L][j];
    }
  for (int r = 0; r < R; r++) /* all-gather within the host */
    for (int q = 0; q < L; q++)
      for (size_t j = 0; j < c; j++) y[r][(size_t)q * c + j] = s2[r / L * L + q][j];
  for (int r = 0; r < R; r++)
    for (size_t j = 0; j < n; j++) {
      int want = 0;
      for (int q = 0; q < R; q++) want += in[q][j];
      CHECKF(y[r][j] == want, "all_reduce %dx%d n=%zu: rank %d [%zu] = %d, want %d", H, L, n, r, j,
             y[r][j], want);
    }
}

/* all_gather: all-gather on the rail, all-gather within the host, blocks
 * from the host order into the rank order. */
static void check_all_gather(int H, int L, size_t n) {
  const int R = H * L;
  fill(R, n);
  const cb_call call = {.dtype = CB_INT32, .count = n};
  const cb_hier_buffers b = {0};
  CHECK(cb_hier_rail_call(CB_HIER_ALL_GATHER, &call, L, &b).count == n);
  CHECK(cb_hier_part_call(CB_HIER_ALL_GATHER, CB_HIER_AG, &call, H, L, &b).count == (size_t)H * n);
  static int y[MAXR][MAXR * MAXN], z[MAXR][MAXR * MAXN], out[MAXR][MAXR * MAXN];
  for (int r = 0; r < R; r++)
    for (int g = 0; g < H; g++) memcpy(&y[r][g * n], in[g * L + r % L], n * sizeof(int));
  for (int r = 0; r < R; r++)
    for (int q = 0; q < L; q++)
      memcpy(&z[r][(size_t)q * H * n], y[r / L * L + q], (size_t)H * n * sizeof(int));
  for (int r = 0; r < R; r++)
    for (int g = 0; g < H; g++)
      for (int q = 0; q < L; q++)
        memcpy(&out[r][(size_t)(g * L + q) * n], &z[r][cb_hier_host_order_block(g, q, H) * n],
               n * sizeof(int));
  for (int r = 0; r < R; r++)
    for (int q = 0; q < R; q++)
      CHECKF(!memcmp(&out[r][(size_t)q * n], in[q], n * sizeof(int)),
             "all_gather %dx%d: rank %d's block %d", H, L, r, q);
}

/* reduce_scatter: blocks from the rank order into the host order,
 * reduce-scatter within the host, reduce-scatter on the rail. */
static void check_reduce_scatter(int H, int L, size_t n) {
  const int R = H * L;
  fill(R, (size_t)R * n);
  const cb_call call = {.dtype = CB_INT32, .op = CB_SUM, .count = n};
  const cb_hier_buffers b = {0};
  CHECK(cb_hier_part_call(CB_HIER_REDUCE_SCATTER, CB_HIER_RS, &call, H, L, &b).count ==
        (size_t)H * n);
  CHECK(cb_hier_rail_call(CB_HIER_REDUCE_SCATTER, &call, L, &b).count == n);
  static int x[MAXR][MAXR * MAXN], y[MAXR][MAXR * MAXN], out[MAXR][MAXN];
  for (int r = 0; r < R; r++)
    for (int g = 0; g < H; g++)
      for (int q = 0; q < L; q++)
        memcpy(&x[r][cb_hier_host_order_block(g, q, H) * n], &in[r][(size_t)(g * L + q) * n],
               n * sizeof(int));
  for (int r = 0; r < R; r++)
    for (size_t k = 0; k < (size_t)H * n; k++) {
      y[r][k] = 0;
      for (int q = 0; q < L; q++) y[r][k] += x[r / L * L + q][(size_t)(r % L) * H * n + k];
    }
  for (int r = 0; r < R; r++)
    for (size_t j = 0; j < n; j++) {
      out[r][j] = 0;
      for (int g = 0; g < H; g++) out[r][j] += y[g * L + r % L][(size_t)(r / L) * n + j];
    }
  for (int r = 0; r < R; r++)
    for (size_t j = 0; j < n; j++) {
      int want = 0;
      for (int q = 0; q < R; q++) want += in[q][(size_t)r * n + j];
      CHECKF(out[r][j] == want, "reduce_scatter %dx%d: rank %d [%zu] = %d, want %d", H, L, r, j,
             out[r][j], want);
    }
}

/* broadcast: the root's rail broadcasts from the root's host, then every
 * host's rank of the root's index broadcasts within its host, in place. */
static void check_broadcast(int H, int L) {
  static char out[16];
  const cb_hier_buffers b = {0};
  for (int root = 0; root < H * L; root++) {
    const cb_call call = {
        .dtype = CB_FLOAT, .root = root, .count = 5, .send = out + 1, .recv = out};
    const cb_call rail = cb_hier_rail_call(CB_HIER_BROADCAST, &call, L, &b);
    const cb_call part = cb_hier_part_call(CB_HIER_BROADCAST, CB_HIER_BC, &call, H, L, &b);
    CHECK(rail.root * L + part.root == root); /* host, then index on it: the root itself */
    CHECK(rail.root < H && part.root < L);
    CHECK(rail.send == call.send && rail.recv == call.recv && rail.count == 5);
    CHECK(part.send == out && part.recv == out && part.in_place && part.count == 5);
  }
}

/* mulsum's scalars are applied within the host; the rail sums. One rank a
 * host: NCCL's call is the kernel, as asked. */
static void check_rail_ops(void) {
  const cb_call mulsum = {.dtype = CB_FLOAT, .op = CB_MULSUM, .count = 8, .in_place = 1};
  const cb_hier_buffers b = {0};
  CHECK(cb_hier_rail_call(CB_HIER_ALL_REDUCE, &mulsum, 2, &b).op == CB_SUM);
  const cb_call one = cb_hier_rail_call(CB_HIER_ALL_REDUCE, &mulsum, 1, &b);
  CHECK(one.op == CB_MULSUM && one.count == 8 && one.in_place == 1);
  const cb_call avg = {.dtype = CB_FLOAT, .op = CB_AVG, .count = 8};
  CHECK(cb_hier_rail_call(CB_HIER_REDUCE_SCATTER, &avg, 2, &b).op == CB_AVG);
}

/* ---- the parts' setups in turn ----------------------------------------------- */

/* A part's context: the host's view of the ranks, the whole kernel's GPU,
 * names and bound, and NCCL beside it. With ranks sharing the GPU its grid
 * then keeps whole SMs free for the rail's NCCL call (grid_fit.h): at 2
 * hosts of 2 ranks on one H100, where 10 LL blocks an SM fit, the 4 ranks'
 * grids reach at most half the SMs (165 blocks each put blocks on every SM,
 * and all_reduce -k hier-ll timed out a rank of a host waiting for the
 * other, whose rail call had no SM to start on). */
static void check_part_ctx(void) {
  cb_rank_info node = {.rank = 1, .nranks = 2, .node_view = 1};
  const cb_kernel_ctx ctx = {.rank = 3,
                             .nranks = 4,
                             .device = 0,
                             .timeout_s = 60,
                             .max_bytes = 1 << 19,
                             .kernel_id = 9,
                             .kernel_name = "hier-ll",
                             .ranks_on_device = 4};
  const cb_kernel_ctx part = cb_hier_part_ctx(&ctx, &node, 12345);
  CHECK(part.rank == 1 && part.nranks == 2 && part.world == &node && part.max_bytes == 12345);
  CHECK(part.timeout_s == 60 && part.kernel_id == 9 && part.ranks_on_device == 4);
  CHECK(part.beside_nccl && !part.state && !part.send_buf && !part.recv_buf);
  const int each = cb_ctx_resident_blocks(&part, 10, 132);
  CHECKF(each >= 1 && 4 * each <= 132 * CB_SHARED_GPU_PERCENT / 100,
         "4 ranks' parts hold %d blocks each, on more than %d%% of 132 SMs", each,
         CB_SHARED_GPU_PERCENT);
}

enum { TURN_RANKS = 3, TURN_STEPS = 3 };
static int set_up[TURN_RANKS][TURN_STEPS]; /* [rank][step]: its setup ran there */

/* A part's setup as a kernel's is: collective within the host (it maps its
 * peers' memory); rank 1 finds it cannot serve step 0. */
static void fake_part_setup(int step, void *arg, cb_setup_reply *reply) {
  cb_rank_info *me = arg;
  set_up[me->rank][step] = 1;
  int mine = me->rank, all[TURN_RANKS];
  cb_world_allgather(me, &mine, sizeof mine, all);
  if (step == 0 && me->rank == 1) cb_kernel_refuse(reply, "no room on this GPU");
}

static int turn_rank(cb_rank_info *me, void *arg) {
  (void)arg;
  cb_setup_reply reply = {{0}, {0}};
  cb_hier_set_up_in_turn(me, TURN_STEPS, fake_part_setup, me, &reply);
  CHECKF(strstr(reply.refused, "no room on this GPU") != NULL, "rank %d: refused '%s'", me->rank,
         reply.refused);
  if (me->rank != 1)
    CHECKF(strstr(reply.refused, "(rank 1 of the host)") != NULL, "rank %d: refused '%s'", me->rank,
           reply.refused);
  return 0;
}

static void check_setups_in_turn(cb_world *w) {
  cb_world_run(w, TURN_RANKS, turn_rank, NULL);
  for (int r = 0; r < TURN_RANKS; r++) {
    CHECKF(set_up[r][0], "rank %d did not set up step 0", r);
    for (int step = 1; step < TURN_STEPS; step++)
      CHECKF(!set_up[r][step], "rank %d set up step %d after rank 1 refused step 0", r, step);
  }
}

int main(int argc, char **argv) {
  cb_world *w = cb_world_init(&argc, &argv);
  check_setups_in_turn(w);
  cb_world_finalize(w);
  check_chunk();
  check_part_ctx();
  const int layouts[][2] = {{2, 2}, {3, 2}, {2, 3}, {4, 2}, {3, 4}}; /* L = 1: NCCL alone */
  const size_t counts[] = {1, 3, 4, 12, 21, 33};
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
      check_all_reduce(layouts[i][0], layouts[i][1], counts[k]);
      check_all_gather(layouts[i][0], layouts[i][1], counts[k]);
      check_reduce_scatter(layouts[i][0], layouts[i][1], counts[k]);
    }
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
    check_broadcast(layouts[i][0], layouts[i][1]);
  check_rail_ops();
  return check_summary();
}
