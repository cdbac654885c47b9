/* NCCL's kernel rows without a GPU: version text, each variant's
 * availability against the headers and library this was built with, the
 * refusal of -R/-x an NCCL cannot do, and the rows the macros make. No CUDA
 * or NCCL call is made but ncclGetVersion. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "collectives.h"
#include "nccl_kernels.h"
#include "options.h"
#include "tunables.h"

static void test_version_text(void) {
  char buf[32];
  CHECK_STR(cb_nccl_version_text(22803, buf, sizeof buf), "2.28.3");
  CHECK_STR(cb_nccl_version_text(22809, buf, sizeof buf), "2.28.9");
  CHECK_STR(cb_nccl_version_text(21903, buf, sizeof buf), "2.19.3");
  CHECK_STR(cb_nccl_version_text(2804, buf, sizeof buf), "2.8.4"); /* the old encoding */
  CHECK_STR(cb_nccl_version_text(30001, buf, sizeof buf), "3.0.1");
}

/* Each variant is available exactly when headers and library are new
 * enough; without NCCL none is, with one reason. */
static void test_availability(void) {
  int built = cb_nccl_header_version() != 0;
  CHECK((cb_nccl_unavailable() == NULL) == built);
  CHECK((cb_nccl_sym_unavailable() == NULL) == (built && cb_nccl_at_least(2, 27)));
  CHECK((cb_nccl_ce_unavailable() == NULL) == (built && cb_nccl_at_least(2, 28)));
  if (!built) {
    CHECK_CONTAINS(cb_nccl_sym_unavailable(), "without NCCL");
    CHECK_CONTAINS(cb_nccl_ce_unavailable(), "without NCCL");
    CHECK(cb_nccl_library_version() == 0);
    return;
  }
  CHECK(cb_nccl_library_version() > 0);
  if (cb_nccl_sym_unavailable()) CHECK_CONTAINS(cb_nccl_sym_unavailable(), "2.27");
  if (cb_nccl_ce_unavailable()) CHECK_CONTAINS(cb_nccl_ce_unavailable(), "2.28");
}

/* -R and -x are refused exactly where the NCCL in use lacks them, with a
 * message that names the flag; never without NCCL (kernel 0 cannot run). */
static void test_flags_problem(void) {
  char buf[192];
  int built = cb_nccl_header_version() != 0;
  CHECK(cb_nccl_flags_problem(0, CB_CTA_POLICY_UNSET, buf, sizeof buf) == NULL);
  static const struct {
    int r, x;
    int major, minor; /* the NCCL it needs */
    const char *flag;
  } cases[] = {
      {1, CB_CTA_POLICY_UNSET, 2, 19, "-R 1"},
      {2, CB_CTA_POLICY_UNSET, 2, 27, "-R 2"},
      {0, 0, 2, 27, "-x"},
      {0, 1, 2, 27, "-x"},
      {0, 2, 2, 28, "-x 2"},
      {2, 2, 2, 28, "-x 2"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *why = cb_nccl_flags_problem(cases[i].r, cases[i].x, buf, sizeof buf);
    int ok = !built || cb_nccl_at_least(cases[i].major, cases[i].minor);
    CHECKF((why == NULL) == ok, "-R %d -x %d: %s", cases[i].r, cases[i].x, why ? why : "allowed");
    if (why) CHECK_CONTAINS(why, cases[i].flag);
  }
}

/* fp8 and mulsum: skipped with the reason exactly where the NCCL in use,
 * or (for reductions in fp8) the run's oldest GPU, cannot serve them. */
static void test_call_unavailable(void) {
  int built = cb_nccl_header_version() != 0;
  int fp8 = built && cb_nccl_at_least(2, 24), premul = built && cb_nccl_at_least(2, 11);
  cb_kernel_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
#ifdef CB_HAVE_NCCL
  cb_nccl_state st;
  memset(&st, 0, sizeof st);
  ctx.state = &st;
#endif
  static const int archs[] = {80, 89, 90, 100};
  for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
#ifdef CB_HAVE_NCCL
    st.min_arch = archs[a];
#endif
    for (int t = CB_F8E4M3; t <= CB_F8E5M2; t++) {
      cb_call call = {.dtype = (cb_dtype)t, .op = CB_SUM};
      const char *why = cb_nccl_call_unavailable(&ctx, &cb_shape_all_reduce, &call);
      int ok = fp8 && archs[a] >= 90;
      CHECKF((why == NULL) == ok, "%s all_reduce on sm_%d: %s", cb_dtype_name(call.dtype), archs[a],
             why ? why : "served");
      if (why) CHECK_CONTAINS(why, cb_dtype_name(call.dtype));
      if (why) CHECK_CONTAINS(why, fp8 ? "9.0" : "2.24");
      /* Moving fp8 needs no reduction: any GPU. */
      why = cb_nccl_call_unavailable(&ctx, &cb_shape_all_gather, &call);
      CHECKF((why == NULL) == fp8, "%s all_gather on sm_%d: %s", cb_dtype_name(call.dtype),
             archs[a], why ? why : "served");
    }
  }
  cb_call mulsum = {.dtype = CB_FLOAT, .op = CB_MULSUM}, sum = {.dtype = CB_FLOAT, .op = CB_SUM};
  const char *why = cb_nccl_call_unavailable(&ctx, &cb_shape_all_reduce, &mulsum);
  CHECK((why == NULL) == premul);
  if (why) CHECK_CONTAINS(why, "2.11");
  CHECK(cb_nccl_call_unavailable(&ctx, &cb_shape_reduce_scatter, &sum) == NULL);
  /* A collective without an op never makes one. */
  CHECK(cb_nccl_call_unavailable(&ctx, &cb_shape_sendrecv, &mulsum) == NULL);
}

/* NCCL's one-rank path scales fp8 for avg and mulsum in host code that has no
 * fp8 case: those calls are skipped at one rank, up to NCCL 2.29.7, and only
 * those. */
static void test_one_rank_fp8_premul(void) {
  static const struct {
    int lib, nranks, dtype, op, reduces, fails;
  } rule[] = {
      {22803, 1, CB_F8E4M3, CB_AVG, 1, 1},    {22803, 1, CB_F8E5M2, CB_MULSUM, 1, 1},
      {22907, 1, CB_F8E4M3, CB_MULSUM, 1, 1}, {22908, 1, CB_F8E4M3, CB_AVG, 1, 0},
      {22803, 2, CB_F8E4M3, CB_AVG, 1, 0},    {22803, 8, CB_F8E5M2, CB_MULSUM, 1, 0},
      {22803, 1, CB_F8E4M3, CB_SUM, 1, 0},    {22803, 1, CB_F8E4M3, CB_MAX, 1, 0},
      {22803, 1, CB_HALF, CB_AVG, 1, 0},      {22803, 1, CB_BFLOAT16, CB_MULSUM, 1, 0},
      {22803, 1, CB_F8E4M3, CB_AVG, 0, 0},
  };
  for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++) {
    cb_call call = {.dtype = (cb_dtype)rule[i].dtype, .op = (cb_redop)rule[i].op};
    const cb_coll_shape *shape = rule[i].reduces ? &cb_shape_all_reduce : &cb_shape_all_gather;
    CHECKF(cb_nccl_one_rank_fp8_premul_fails(rule[i].lib, rule[i].nranks, shape, &call) ==
               rule[i].fails,
           "rule %zu: NCCL %d, %d ranks, %s %s", i, rule[i].lib, rule[i].nranks,
           cb_dtype_name(call.dtype), rule[i].reduces ? "reducing" : "moving");
  }
#ifdef CB_HAVE_NCCL
  /* The row says so, naming NCCL's function, where this machine's library has the bug. */
  if (cb_nccl_at_least(2, 24) && cb_nccl_library_version() <= 22907) {
    cb_kernel_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    cb_nccl_state st;
    memset(&st, 0, sizeof st);
    st.min_arch = 90;
    ctx.state = &st;
    ctx.nranks = 1;
    cb_call avg = {.dtype = CB_F8E4M3, .op = CB_AVG};
    const char *why = cb_nccl_call_unavailable(&ctx, &cb_shape_all_reduce, &avg);
    CHECK(why != NULL);
    if (why) CHECK_CONTAINS(why, "ncclLaunchOneRank");
    ctx.nranks = 2;
    CHECK(cb_nccl_call_unavailable(&ctx, &cb_shape_all_reduce, &avg) == NULL);
  }
#endif
}

/* A context as NCCL's setup leaves it (st: its state) on GPUs of compute
 * capability min_arch at the oldest. */
#ifdef CB_HAVE_NCCL
typedef cb_nccl_state fake_state;
#else
typedef int fake_state;
#endif
static cb_kernel_ctx fake_set_up(fake_state *st, int min_arch) {
  cb_kernel_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  memset(st, 0, sizeof *st);
#ifdef CB_HAVE_NCCL
  st->min_arch = min_arch;
  ctx.state = st;
#else
  (void)min_arch;
#endif
  return ctx;
}

static void dummy_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t s) {
  (void)ctx, (void)call, (void)s;
}

/* The rows: catalogue ids and names, NCCL's memory, a GPU per rank; copy
 * engines on one host only; the CE row where NCCL has no path is unavailable;
 * every row asks NCCL whether it can serve a call (fp8, mulsum) and groups
 * -m's calls. */
static void test_rows(void) {
  static const cb_kernel rows[] = {
      CB_NCCL_KERNEL("NCCL ncclAllGather", dummy_launch),
      CB_NCCL_SYM_KERNEL("ncclAllGather", dummy_launch, CB_BOTH_PLACEMENTS),
      CB_NCCL_CE_KERNEL("ncclAllGather", dummy_launch, CB_BOTH_PLACEMENTS),
      CB_NCCL_NO_CE_KERNEL("ncclAllReduce", dummy_launch, CB_OUT_OF_PLACE),
  };
  static const char *const kinds[] = {"nccl", "nccl-sym", "nccl-ce", "nccl-ce"};
  char buf[256];
  for (int i = 0; i < 4; i++) {
    CHECK_STR(rows[i].name, kinds[i]);
    CHECK(cb_catalogue_find(rows[i].name) &&
          cb_catalogue_is_nccl(cb_catalogue_find(rows[i].name)->id));
    CHECK(rows[i].memory == CB_MEM_NCCL);
    CHECK(rows[i].limits.gpu_per_rank);
    CHECK(rows[i].setup && rows[i].teardown == cb_nccl_teardown);
    CHECK_EQ_INT(rows[i].limits.single_host, i >= 2);
    /* Only nccl-ce where NCCL has no copy-engine path never runs, saying why. */
    CHECK_EQ_INT(rows[i].unavailable != NULL, i == 3);
    CHECK(rows[i].aggregate == cb_nccl_aggregate); /* -m: one ncclGroupStart/End */
    CHECK(rows[i].run_limits != NULL);
    if (rows[i].run_limits) CHECK_CONTAINS(rows[i].run_limits, "f8e4m3");
  }
  /* Each row's answer: its variant's availability for the build, NCCL's
   * per-call check for a call. */
  CHECK(rows[0].why_not == cb_nccl_why_not && rows[1].why_not == cb_nccl_sym_why_not);
  CHECK(rows[2].why_not == cb_nccl_ce_why_not);
  CHECK_CONTAINS(rows[3].unavailable, "AllGather");
  const cb_serve_question build = {0};
  CHECK((rows[0].why_not(&build, buf, sizeof buf) == NULL) == (cb_nccl_unavailable() == NULL));
  CHECK((rows[1].why_not(&build, buf, sizeof buf) == NULL) == (cb_nccl_sym_unavailable() == NULL));
  CHECK((rows[2].why_not(&build, buf, sizeof buf) == NULL) == (cb_nccl_ce_unavailable() == NULL));
  fake_state st;
  cb_kernel_ctx ctx = fake_set_up(&st, 90);
  ctx.nranks = 2;
  const cb_call mulsum = {.dtype = CB_FLOAT, .op = CB_MULSUM};
  const cb_serve_question call = {.shape = &cb_shape_all_reduce, .call = &mulsum, .ctx = &ctx};
  for (int i = 0; i < 3; i++)
    CHECK((rows[i].why_not(&call, buf, sizeof buf) == NULL) ==
          (cb_nccl_call_unavailable(&ctx, &cb_shape_all_reduce, &mulsum) == NULL));
  CHECK(rows[0].setup == cb_nccl_setup && rows[1].setup == cb_nccl_sym_setup);
  CHECK(rows[2].setup == cb_nccl_ce_setup && rows[3].setup == cb_nccl_ce_setup);
  CHECK_EQ_INT(rows[3].limits.placements, CB_OUT_OF_PLACE);
  const cb_serve_question world = {.nranks = 2};
  CHECK_STR(cb_kernel_why_not(&rows[3], &world, buf, sizeof buf), CB_NCCL_CE_MISSING);
  CHECK_CONTAINS(rows[1].summary, "ncclAllGather");
  CHECK_CONTAINS(rows[1].summary, "-R 2");
  CHECK_CONTAINS(rows[2].summary, "-R 2 -x 2");
}

/* The tunables as a program reads them at start (tunables.h). */
static void read_tunables(void) {
  char why[256];
  CHECK(cb_tunables_read(CB_TUNE_COLL, why, sizeof why) == NULL);
}

/* scatter's copy-engine row: NCCL <= 2.28.3 is wrong in place at root != 0
 * (nccl-tests shows it too): exactly those calls are skipped, naming the
 * bug, unless CB_NCCL_CE_SCATTER_IN_PLACE=1; every other call as any row. */
static void test_ce_scatter_bug(void) {
  fake_state st;
  cb_kernel_ctx ctx = fake_set_up(&st, 90);
  int lib = cb_nccl_library_version(), bad = lib > 0 && lib <= 22803;
  for (int in_place = 0; in_place < 2; in_place++)
    for (int root = 0; root < 3; root++) {
      cb_call call = {.dtype = CB_FLOAT, .op = CB_SUM, .root = root, .in_place = in_place};
      unsetenv("CB_NCCL_CE_SCATTER_IN_PLACE");
      read_tunables();
      const char *why = cb_nccl_ce_scatter_call_unavailable(&ctx, &cb_shape_scatter, &call);
      int skipped = bad && in_place && root != 0;
      CHECKF((why != NULL) == skipped, "in_place %d root %d, NCCL %d: %s", in_place, root, lib,
             why ? why : "served");
      if (why) CHECK_CONTAINS(why, "2.28.3");
      setenv("CB_NCCL_CE_SCATTER_IN_PLACE", "1", 1);
      read_tunables();
      CHECK(cb_nccl_ce_scatter_call_unavailable(&ctx, &cb_shape_scatter, &call) == NULL);
    }
  unsetenv("CB_NCCL_CE_SCATTER_IN_PLACE");
  /* The rule itself, whatever library this machine has. */
  static const struct {
    int lib, in_place, root, wrong;
  } rule[] = {{22803, 1, 1, 1}, {22803, 1, 0, 0}, {22803, 0, 1, 0},
              {22800, 1, 2, 1}, {22804, 1, 1, 0}, {22809, 1, 1, 0}};
  for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++) {
    cb_call call = {.dtype = CB_FLOAT, .root = rule[i].root, .in_place = rule[i].in_place};
    CHECK_EQ_INT(cb_nccl_ce_scatter_is_wrong(rule[i].lib, &call), rule[i].wrong);
  }
  /* fp8 and mulsum still go through the common check. */
  cb_call mulsum = {.dtype = CB_FLOAT, .op = CB_MULSUM};
  const char *a = cb_nccl_ce_scatter_call_unavailable(&ctx, &cb_shape_all_reduce, &mulsum);
  const char *b = cb_nccl_call_unavailable(&ctx, &cb_shape_all_reduce, &mulsum);
  CHECK((a == NULL) == (b == NULL));
  static const cb_kernel row =
      CB_NCCL_CE_SCATTER_KERNEL("ncclScatter", dummy_launch, CB_BOTH_PLACEMENTS);
  CHECK_STR(row.name, "nccl-ce");
  CHECK(row.why_not == cb_nccl_ce_scatter_why_not);
  const cb_call wrong_path = {.dtype = CB_FLOAT, .op = CB_SUM, .root = 1, .in_place = 1};
  const cb_serve_question q = {.shape = &cb_shape_scatter, .call = &wrong_path, .ctx = &ctx};
  char buf[256];
  CHECK((row.why_not(&q, buf, sizeof buf) == NULL) ==
        (cb_nccl_ce_scatter_call_unavailable(&ctx, &cb_shape_scatter, &wrong_path) == NULL));
  CHECK_CONTAINS(row.run_limits, "2.28.3");
  CHECK(row.setup == cb_nccl_ce_setup && row.aggregate == cb_nccl_aggregate);
}

int main(void) {
  test_version_text();
  test_availability();
  test_flags_problem();
  test_rows();
  test_call_unavailable();
  test_one_rank_fp8_premul();
  test_ce_scatter_bug();
  return check_summary();
}
