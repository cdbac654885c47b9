/* cb_kernels_select, cb_kernel_why_not (of the world and of a call) and
 * cb_kernels_print on a fake collective: no CUDA call is ever made. */
#include <string.h>

#include "check.h"
#include "collective.h"
#include "collectives.h"
#include "hier.h"         /* CB_HIER_RUN_LIMITS */
#include "nccl_kernels.h" /* CB_NCCL_RUN_LIMITS */

static const char *ring_why_not(const cb_serve_question *q, char *buf, size_t len) {
  (void)q, (void)buf, (void)len;
  return "fake ring library not installed";
}

static const cb_kernel kernels[] = {
    {.id = 0,
     .name = "nccl",
     .summary = "the reference",
     .limits = {.placements = CB_OUT_OF_PLACE | CB_IN_PLACE,
                .dtypes = CB_ALL_DTYPES,
                .ops = CB_ALL_OPS}},
    {.id = 1,
     .name = "ring",
     .summary = "a ring that is not there",
     .limits = {.placements = CB_OUT_OF_PLACE | CB_IN_PLACE,
                .dtypes = CB_ALL_DTYPES,
                .ops = CB_ALL_OPS},
     .why_not = ring_why_not},
    {.id = 2,
     .name = "ll",
     .summary = "low latency, small messages",
     .limits = {.placements = CB_OUT_OF_PLACE,
                .dtypes = CB_DTYPE_BIT(CB_FLOAT),
                .ops = CB_OP_BIT(CB_SUM) | CB_OP_BIT(CB_MAX),
                .min_ranks = 2,
                .max_ranks = 8,
                .max_bytes = 1ull << 20,
                .single_host = 1}},
};
/* The table as a collective holds it: a pointer per row. */
static const cb_kernel *const rows[] = {&kernels[0], &kernels[1], &kernels[2]};

static const cb_collective coll = {&cb_shape_all_reduce, rows, 3};
/* The same kernels under a collective that does not reduce. */
static const cb_collective gather = {&cb_shape_all_gather, rows, 3};

/* Ids that are not the table indexes. */
static const cb_kernel sparse_kernels[] = {
    {.id = 0, .name = "nccl", .summary = "a", .limits = {.placements = 3, .dtypes = CB_ALL_DTYPES}},
    {.id = 5, .name = "five", .summary = "b", .limits = {.placements = 3, .dtypes = CB_ALL_DTYPES}},
    {.id = 3,
     .name = "three",
     .summary = "c",
     .limits = {.placements = 3, .dtypes = CB_ALL_DTYPES}},
};
/* The table as a collective holds it: a pointer per row. */
static const cb_kernel *const sparse_rows[] = {&sparse_kernels[0], &sparse_kernels[1],
                                               &sparse_kernels[2]};
static const cb_collective sparse = {&cb_shape_broadcast, sparse_rows, 3};

static char err[256];

/* Selects spec; checks the result is want (a string of 0/1 per kernel, or
 * NULL for an error) and the explicit flag. */
static void check_select(const cb_collective *c, const char *spec, const char *want,
                         int want_explicit) {
  int selected[8], explicit_pick = -1;
  memset(selected, 0x7f, sizeof selected);
  err[0] = '\0';
  int rc = cb_kernels_select(c, spec, selected, &explicit_pick, err, sizeof err);
  if (!want) {
    CHECKF(rc == -1, "-k '%s' should be refused (rc %d)", spec, rc);
    CHECKF(err[0] != '\0', "-k '%s': empty error message", spec);
    return;
  }
  CHECKF(rc == 0, "-k '%s' should be accepted, got '%s'", spec, err);
  char got[9] = {0};
  for (int i = 0; i < c->nkernels; i++)
    got[i] = selected[i] == 1 ? '1' : selected[i] == 0 ? '0' : '?';
  CHECKF(strcmp(got, want) == 0, "-k '%s' selected %s, expected %s", spec, got, want);
  CHECKF(explicit_pick == want_explicit, "-k '%s': explicit_pick %d, expected %d", spec,
         explicit_pick, want_explicit);
}

static void test_select(void) {
  check_select(&coll, "all", "111", 0);
  check_select(&coll, "0", "100", 1);
  check_select(&coll, "1", "010", 1);
  check_select(&coll, "2", "001", 1);
  check_select(&coll, "ll", "001", 1);
  check_select(&coll, "nccl", "100", 1);
  check_select(&coll, "0,2", "101", 1);
  check_select(&coll, "nccl,ring", "110", 1);
  check_select(&coll, "ll,0", "101", 1);
  check_select(&coll, "0,1,2", "111", 1);
  /* Names in any case (docs/options.md, Case and units); all too. */
  check_select(&coll, "LL,Ring", "011", 1);
  check_select(&coll, "ALL", "111", 0);
  /* A kernel named twice, by name or by its id, is refused, not merged. */
  check_select(&coll, "2,ll", NULL, 1);
  CHECK_STR(err, "bad -k '2,ll': kernel 2 (ll) is named twice");
  check_select(&coll, "ll,LL", NULL, 1);
  CHECK_STR(err, "bad -k 'll,LL': kernel 2 (ll) is named twice");
  /* A selection after a wider one starts from nothing. */
  check_select(&coll, "all", "111", 0);
  check_select(&coll, "1", "010", 1);

  check_select(&coll, "7", NULL, 1);
  CHECK_CONTAINS(err, "'7'");
  CHECK_CONTAINS(err, "all_reduce_perf");
  check_select(&coll, "bogus", NULL, 1);
  CHECK_CONTAINS(err, "bogus");
  check_select(&coll, "0,bogus", NULL, 1);
  CHECK_CONTAINS(err, "bogus");
  check_select(&coll, "-1", NULL, 1);
  check_select(&coll, "1,,2", NULL, 1);
  check_select(&coll, "1,", NULL, 1);
  check_select(&coll, ",1", NULL, 1);
  check_select(&coll, ",", NULL, 1);
  check_select(&coll, "", NULL, 1);
  check_select(&coll, "NCCL", "100", 1); /* names in any case */
  check_select(&coll, "1x", NULL, 1);
  check_select(&coll, "list", NULL, 1);
  /* A word longer than any name. */
  check_select(&coll, "a-very-long-kernel-name-that-is-longer-than-sixty-four-characters-in-all",
               NULL, 1);

  /* Numbers are ids, not table indexes. */
  check_select(&sparse, "5", "010", 1);
  check_select(&sparse, "3", "001", 1);
  check_select(&sparse, "three,0", "101", 1);
  check_select(&sparse, "1", NULL, 1);
  check_select(&sparse, "2", NULL, 1);
  CHECK_CONTAINS(err, "broadcast_perf");
}

/* The two questions cb_kernel_why_not answers. */
static const char *world_why(const cb_kernel *k, int nranks, int multi_host, char *buf,
                             size_t len) {
  const cb_serve_question q = {.nranks = nranks, .multi_host = multi_host};
  return cb_kernel_why_not(k, &q, buf, len);
}

static const char *call_why(const cb_kernel *k, const cb_kernel_ctx *ctx,
                            const cb_coll_shape *shape, const cb_call *call, uint64_t table_bytes,
                            char *buf, size_t len) {
  const cb_serve_question q = {
      .shape = shape, .call = call, .table_bytes = table_bytes, .ctx = ctx};
  return cb_kernel_why_not(k, &q, buf, len);
}

static void test_world_reason(void) {
  char buf[256];
  const cb_kernel *nccl = &kernels[0], *ring = &kernels[1], *ll = &kernels[2];
  CHECK(world_why(nccl, 2, 0, buf, sizeof buf) == NULL);
  CHECK(world_why(nccl, 1024, 1, buf, sizeof buf) == NULL);

  const char *why = world_why(ring, 2, 0, buf, sizeof buf);
  CHECK_STR(why, "fake ring library not installed");

  CHECK(world_why(ll, 2, 0, buf, sizeof buf) == NULL);
  CHECK(world_why(ll, 8, 0, buf, sizeof buf) == NULL);
  why = world_why(ll, 9, 0, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "8");
  CHECK_CONTAINS(why, "9");
  why = world_why(ll, 1, 0, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "2");
  why = world_why(ll, 4, 1, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "host");
  /* Unavailability comes before anything else. */
  cb_kernel ring_small = *ring;
  ring_small.limits.max_ranks = 2;
  why = world_why(&ring_small, 4, 1, buf, sizeof buf);
  CHECK_STR(why, "fake ring library not installed");
  /* Ranks sharing a GPU: a kernel that needs a GPU per rank is out, first. */
  cb_kernel own_gpu = *nccl;
  own_gpu.limits.gpu_per_rank = 1;
  const cb_serve_question shared = {.nranks = 2, .share_gpus = 1};
  why = cb_kernel_why_not(&own_gpu, &shared, buf, sizeof buf);
  CHECK(why != NULL);
  if (why) CHECK_CONTAINS(why, "CB_SHARE_GPUS=1");
  CHECK(cb_kernel_why_not(nccl, &shared, buf, sizeof buf) == NULL);
  const cb_serve_question own = {.nranks = 2};
  CHECK(cb_kernel_why_not(&own_gpu, &own, buf, sizeof buf) == NULL);
  /* One host only: ours for their peer memory, NCCL's copy engines for NCCL's reason. */
  cb_kernel nccl_ce = *nccl;
  nccl_ce.limits.single_host = 1;
  nccl_ce.memory = CB_MEM_NCCL;
  why = world_why(&nccl_ce, 4, 1, buf, sizeof buf);
  CHECK(why != NULL);
  if (why) CHECK_CONTAINS(why, "copy-engine");
  CHECK(world_why(&nccl_ce, 4, 0, buf, sizeof buf) == NULL);
  /* Across hosts only: a hierarchical kernel on one host says what it needs. */
  cb_kernel hier = *nccl;
  hier.limits.across_hosts = 1;
  hier.memory = CB_MEM_CUDA;
  why = world_why(&hier, 4, 0, buf, sizeof buf);
  CHECK(why != NULL);
  if (why) CHECK_CONTAINS(why, "several hosts");
  CHECK(world_why(&hier, 4, 1, buf, sizeof buf) == NULL);
  CHECK(cb_kernel_uses_peer_memory(&hier));
  CHECK(!cb_kernel_uses_peer_memory(&nccl_ce));
}

static cb_call call_of(cb_dtype t, cb_redop op, int in_place) {
  cb_call c;
  memset(&c, 0, sizeof c);
  c.dtype = t;
  c.op = op;
  c.in_place = in_place;
  c.count = 256;
  return c;
}

static void test_call_reason(void) {
  char buf[256];
  const cb_kernel *nccl = &kernels[0], *ll = &kernels[2];
  const cb_coll_shape *ar = &cb_shape_all_reduce, *ag = &cb_shape_all_gather;
  cb_call ok = call_of(CB_FLOAT, CB_SUM, 0);
  CHECK(call_why(ll, NULL, ar, &ok, 1024, buf, sizeof buf) == NULL);
  cb_call mx = call_of(CB_FLOAT, CB_MAX, 0);
  CHECK(call_why(ll, NULL, ar, &mx, 1024, buf, sizeof buf) == NULL);

  /* Placement. */
  cb_call ip = call_of(CB_FLOAT, CB_SUM, 1);
  const char *why = call_why(ll, NULL, ar, &ip, 1024, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "in-place");

  /* Datatype. */
  cb_call dbl = call_of(CB_DOUBLE, CB_SUM, 0);
  why = call_why(ll, NULL, ar, &dbl, 1024, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "double");
  cb_call bf = call_of(CB_BFLOAT16, CB_SUM, 0);
  why = call_why(ll, NULL, ag, &bf, 1024, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "bfloat16");

  /* Op: only where the collective reduces. */
  cb_call prod = call_of(CB_FLOAT, CB_PROD, 0);
  why = call_why(ll, NULL, ar, &prod, 1024, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "prod");
  CHECK(call_why(ll, NULL, ag, &prod, 1024, buf, sizeof buf) == NULL);
  cb_call avg = call_of(CB_FLOAT, CB_AVG, 0);
  why = call_why(ll, NULL, &cb_shape_reduce_scatter, &avg, 1024, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "avg");

  /* Size: up to the limit included. */
  CHECK(call_why(ll, NULL, ar, &ok, 1u << 20, buf, sizeof buf) == NULL);
  why = call_why(ll, NULL, ar, &ok, (1u << 20) + 1, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "1 MiB");
  why = call_why(ll, NULL, ar, &ok, 1ull << 30, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "1 MiB");

  /* The unrestricted kernel takes everything. */
  CHECK(call_why(nccl, NULL, ar, &ip, 1ull << 40, buf, sizeof buf) == NULL);
  CHECK(call_why(nccl, NULL, ar, &dbl, 1ull << 40, buf, sizeof buf) == NULL);
  CHECK(call_why(nccl, NULL, ar, &prod, 1ull << 40, buf, sizeof buf) == NULL);

  /* An in-place-only kernel refuses out-of-place. */
  cb_kernel inplace_only = kernels[0];
  inplace_only.limits.placements = CB_IN_PLACE;
  why = call_why(&inplace_only, NULL, ar, &ok, 1024, buf, sizeof buf);
  CHECK(why != NULL);
  CHECK_CONTAINS(why, "out-of-place");
  CHECK(call_why(&inplace_only, NULL, ar, &ip, 1024, buf, sizeof buf) == NULL);
}

/* What only a run can tell: asked after the limits, only with a set-up
 * context; its reason is the skip's. */
static int hook_calls;
static const char *no_fp8_here(const cb_serve_question *q, char *buf, size_t len) {
  (void)buf, (void)len;
  if (!q->call) return NULL; /* the build: available */
  hook_calls++;
  CHECK(q->ctx != NULL && q->shape == &cb_shape_all_reduce);
  return q->call->dtype == CB_F8E4M3 ? "this library has no f8e4m3" : NULL;
}

static void test_call_unavailable(void) {
  char buf[128];
  cb_kernel k = kernels[0];
  k.why_not = no_fp8_here;
  cb_kernel_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  cb_call f8 = {.dtype = CB_F8E4M3, .op = CB_SUM}, fl = {.dtype = CB_FLOAT, .op = CB_MULSUM};
  const cb_coll_shape *ar = &cb_shape_all_reduce;
  hook_calls = 0;
  CHECK(call_why(&k, NULL, ar, &f8, 1024, buf, sizeof buf) == NULL);
  CHECK_EQ_INT(hook_calls, 0);
  const char *why = call_why(&k, &ctx, ar, &f8, 1024, buf, sizeof buf);
  CHECK(why != NULL);
  if (why) CHECK_STR(why, "this library has no f8e4m3");
  CHECK(call_why(&k, &ctx, ar, &fl, 1024, buf, sizeof buf) == NULL);
  CHECK_EQ_INT(hook_calls, 2);
  /* The limits come first: a placement it lacks is the reason, unasked. */
  k.limits.placements = CB_IN_PLACE;
  why = call_why(&k, &ctx, ar, &f8, 1024, buf, sizeof buf);
  CHECK(why != NULL);
  if (why) CHECK_CONTAINS(why, "out-of-place");
  CHECK_EQ_INT(hook_calls, 2);
}

static char *print_of(const cb_collective *c) {
  FILE *f = check_tmpfile();
  cb_kernels_print(f, c);
  char *text = check_slurp(f);
  fclose(f);
  return text;
}

static void test_print(void) {
  char *text = print_of(&coll);
  CHECK_CONTAINS(text, "all_reduce_perf");
  for (int i = 0; i < 3; i++) {
    CHECK_CONTAINS(text, kernels[i].name);
    CHECK_CONTAINS(text, kernels[i].summary);
  }
  CHECK_CONTAINS(text, "fake ring library not installed");
  CHECK_CONTAINS(text, "unavailable");
  CHECK_CONTAINS(text, "1 MiB");
  CHECK_CONTAINS(text, "out-of-place only");
  CHECK_CONTAINS(text, "out-of-place and in-place");
  CHECK_CONTAINS(text, "2..8 ranks");
  CHECK_CONTAINS(text, "one host");
  CHECK_CONTAINS(text, "types: float");
  CHECK_CONTAINS(text, "ops: sum max");
  /* The available kernels are not marked unavailable: exactly one mark. */
  const char *first = strstr(text, "unavailable");
  CHECK(first && !strstr(first + 1, "unavailable"));
  /* Each kernel's line starts with its id. */
  CHECK_CONTAINS(text, "   0  nccl");
  CHECK_CONTAINS(text, "   1  ring");
  CHECK_CONTAINS(text, "   2  ll");
  free(text);

  text = print_of(&gather);
  CHECK_CONTAINS(text, "all_gather_perf");
  free(text);
}

/* A name of the longest a kernel may take (CB_KERNEL_NAME_MAX, a plugin's,
 * say) keeps every summary in one column, and names no longer than 11 keep
 * it where it always was. */
static void test_print_long_name(void) {
  cb_kernel k[2] = {kernels[0], kernels[1]};
  k[1].id = 12;
  k[1].name = "oneshot-read-16";
  const cb_kernel *const long_rows[] = {&k[0], &k[1]};
  cb_collective c = {&cb_shape_all_reduce, long_rows, 2};
  char *text = print_of(&c);
  CHECK_CONTAINS(text, "\n   0  nccl            the reference");
  CHECK_CONTAINS(text, "\n  12  oneshot-read-16 ");
  free(text);
  text = print_of(&coll);
  CHECK_CONTAINS(text, "\n   0  nccl        the reference");
  free(text);
}

/* A kernel with a minimum rank count and no maximum (0 = no limit) must
 * not be listed as serving "2..0 ranks". */
static void test_print_min_ranks_only(void) {
  cb_kernel k = kernels[0];
  k.limits.min_ranks = 2;
  k.limits.max_ranks = 0;
  const cb_kernel *const one_row[] = {&k};
  cb_collective one = {&cb_shape_all_reduce, one_row, 1};
  char *text = print_of(&one);
  CHECKF(strstr(text, "..0 ranks") == NULL,
         "cb_kernels_print shows min_ranks 2 / max_ranks 0 (no limit) as:\n%s", text);
  CHECK_CONTAINS(text, "2");
  free(text);
}

/* -k list: a kernel's run-time limits after its static ones, and a types
 * mask without fp8 names the types it keeps. */
static void test_print_run_limits_and_types(void) {
  cb_kernel k = kernels[0];
  k.run_limits = "f8e4m3 with a new enough library";
  k.limits.dtypes = CB_ALL_DTYPES & ~(CB_DTYPE_BIT(CB_F8E4M3) | CB_DTYPE_BIT(CB_F8E5M2));
  k.limits.ops = CB_ALL_OPS & ~CB_OP_BIT(CB_MULSUM);
  const cb_kernel *const one_row[] = {&k};
  cb_collective one = {&cb_shape_all_reduce, one_row, 1};
  char *text = print_of(&one);
  CHECK_CONTAINS(text, "; f8e4m3 with a new enough library\n");
  CHECK_CONTAINS(text, "types: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16;");
  CHECK_CONTAINS(text, "ops: sum prod min max avg;");
  free(text);
  /* Every type and op: no list at all. */
  text = print_of(&coll);
  CHECK(strstr(text, "f8e4m3") == NULL);
  CHECK(strstr(text, "mulsum") == NULL);
  free(text);
}

/* An NCCL row's run limits say what its why_not checks in each program: in
 * one that does not reduce, no word of reductions, mulsum or avg. */
static void test_print_nccl_run_limits(void) {
  cb_kernel k = kernels[0];
  k.run_limits = CB_NCCL_RUN_LIMITS;
  cb_kernel scatter_ce = kernels[0];
  scatter_ce.run_limits = CB_NCCL_CE_SCATTER_RUN_LIMITS;
  cb_kernel hier = kernels[0];
  hier.run_limits = CB_HIER_RUN_LIMITS;
  const cb_kernel *const nccl_rows[] = {&k, &scatter_ce, &hier};
  cb_collective reducing = {&cb_shape_all_reduce, nccl_rows, 1};
  char *text = print_of(&reducing);
  CHECK_CONTAINS(text, "; " CB_NCCL_RUN_LIMITS "\n");
  free(text);
  const cb_coll_shape *const copying[] = {&cb_shape_sendrecv, &cb_shape_all_gather,
                                          &cb_shape_scatter, &cb_shape_alltoallv,
                                          &cb_shape_hypercube};
  for (size_t i = 0; i < sizeof copying / sizeof copying[0]; i++) {
    cb_collective c = {copying[i], nccl_rows, 3};
    text = print_of(&c);
    CHECKF(strstr(text, "; " CB_NCCL_COPY_RUN_LIMITS "\n") != NULL, "%s:\n%s", copying[i]->name,
           text);
    CHECK_CONTAINS(text, "; " CB_NCCL_COPY_RUN_LIMITS "; in place with root != 0 only with NCCL");
    CHECK_CONTAINS(text, "; " CB_HIER_COPY_RUN_LIMITS "\n");
    CHECKF(strstr(text, "mulsum") == NULL && strstr(text, "reducing") == NULL &&
               strstr(text, "avg") == NULL,
           "%s lists a reduction's limits:\n%s", copying[i]->name, text);
    free(text);
  }
}

/* cb_kernel_note: a second note of a setup (the alltoall ring's own-copy
 * choice after its grid's) joins the first instead of replacing it, and
 * notes past the buffer are cut, never overflowing it. */
static void test_notes(void) {
  cb_setup_reply reply;
  memset(&reply, 0, sizeof reply);
  cb_kernel_note(&reply, "grid shrunk to %d blocks", 66);
  CHECK(strcmp(reply.note, "grid shrunk to 66 blocks") == 0);
  cb_kernel_note(&reply, "own copy by %s", "the channels");
  CHECK(strcmp(reply.note, "grid shrunk to 66 blocks; own copy by the channels") == 0);
  char long_text[sizeof reply.note * 2];
  memset(long_text, 'x', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = 0;
  for (int i = 0; i < 3; i++) cb_kernel_note(&reply, "%s", long_text);
  CHECK(strlen(reply.note) == sizeof reply.note - 1);
  CHECK(strncmp(reply.note, "grid shrunk to 66 blocks; own copy by the channels; xxx", 55) == 0);
  /* A refusal with no words still says something. */
  cb_kernel_refuse(&reply, "%s", "");
  CHECK_STR(reply.refused, "refused by its setup");
}

int main(void) {
  test_notes();
  test_select();
  test_world_reason();
  test_call_reason();
  test_print();
  test_print_min_ranks_only();
  test_print_long_name();
  test_call_unavailable();
  test_print_run_limits_and_types();
  test_print_nccl_run_limits();
  return check_summary();
}
