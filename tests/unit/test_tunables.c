/* The CB_ tunables (common/base/tunables.c's rows and those the kernels
 * register in their own files, CB_REGISTER_TUNABLES): every row is sound
 * and fits the capacities it sizes, their values are parsed strictly,
 * read from the environment as a whole, and compared across processes
 * (only the rows that must agree, a value set to its default agreeing with
 * one left unset). With the source directory as argument: every CB_ name
 * the sources read is a row (or a run switch), and the table of tunables in
 * docs/options.md says, row by row, what the table says.
 *
 *     test_tunables [SOURCE_DIR] */
#define _XOPEN_SOURCE 700 /* nftw, setenv */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ce_plan.h" /* CB_CE_MAX_PIECES */
#include "check.h"
#include "direct_mesh.h" /* CB_DIRECT_MAX_BLOCKS */
#include "kernels/copy_llhost.h"
#include "ring_mesh.h" /* CB_RING_MAX_CHANNELS */
#include "tunables.h"

static char why[512];

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), k = strlen(tail);
  return n >= k && strcmp(s + n - k, tail) == 0;
}

/* ---- the table ------------------------------------------------------------------ */

static void test_rows_are_sound(void) {
  int n;
  const cb_tunable_row *rows = cb_tunable_rows(&n);
  CHECK(n > 30);
  for (int i = 0; i < n; i++) {
    const cb_tunable_row *t = &rows[i];
    CHECKF(strncmp(t->name, "CB_", 3) == 0, "row %d: %s", i, t->name);
    CHECKF(cb_tunable_find(t->name) == t, "%s: named twice", t->name);
    CHECKF(t->meaning && t->meaning[0] && !strchr(t->meaning, '\n'), "%s: one line", t->name);
    CHECKF(t->programs == CB_TUNE_COLL || t->programs == CB_TUNE_COPY, "%s", t->name);
    if (t->kind == CB_TUNE_WHOLE) {
      CHECKF(t->lo <= t->fallback && t->fallback <= t->hi, "%s: default out of range", t->name);
      CHECKF(t->multiple >= 1 && t->lo % t->multiple == 0 && t->fallback % t->multiple == 0,
             "%s: multiple", t->name);
    } else {
      CHECKF(t->kind == CB_TUNE_CHOICE && t->nchoices >= 2, "%s: kind", t->name);
      CHECKF(t->fallback >= 0 && t->fallback < t->nchoices, "%s: default", t->name);
    }
  }
  CHECK(cb_tunable_find("CB_NO_SUCH_TUNABLE") == NULL);
}

/* Only the LL grid, and copy_perf's own resident kernel, may differ per rank. */
static void test_what_may_differ(void) {
  static const char *const own[] = {
      "CB_LL_BLOCK_WARPS",           "CB_LL_MAX_WARPS",      "CB_LLHOST_BLOCKS",
      "CB_LLHOST_H2D_LL_MAX",        "CB_LLHOST_D2H_LL_MAX", "CB_LLHOST_H2D_WINDOW_LL_MAX",
      "CB_LLHOST_D2H_WINDOW_LL_MAX", "CB_LLHOST_STAGE_MAX"};
  int n, per_rank = 0;
  const cb_tunable_row *rows = cb_tunable_rows(&n);
  for (int i = 0; i < n; i++) {
    int listed = 0;
    for (size_t k = 0; k < sizeof own / sizeof own[0]; k++) listed |= !strcmp(rows[i].name, own[k]);
    CHECKF(rows[i].per_rank == listed, "%s: per_rank %d", rows[i].name, rows[i].per_rank);
    per_rank += rows[i].per_rank;
  }
  CHECK_EQ_INT(per_rank, 8);
}

/* Bounds that size arrays or allocations in the mesh and copy layers. */
static void test_bounds_fit_capacities(void) {
  int n;
  const cb_tunable_row *rows = cb_tunable_rows(&n);
  int direct = 0, pieces = 0;
  for (int i = 0; i < n; i++) {
    if (ends_with(rows[i].name, "_DIRECT_BLOCKS")) {
      CHECKF(rows[i].hi <= CB_DIRECT_MAX_BLOCKS, "%s", rows[i].name);
      direct++;
    }
    if (ends_with(rows[i].name, "_CE_PIECES")) {
      CHECKF(rows[i].hi <= CB_CE_MAX_PIECES, "%s", rows[i].name);
      pieces++;
    }
  }
  CHECK_EQ_INT(direct, 9);
  CHECK_EQ_INT(pieces, 2);
  CHECK(cb_tunable_find("CB_RING_CHANNELS")->hi <= CB_RING_MAX_CHANNELS);
  CHECK(cb_tunable_find("CB_LLHOST_BLOCKS")->hi <= CB_LLH_RING_CHUNKS);
  /* A ring slot and a ce piece are moved in 16-byte accesses. */
  CHECK(cb_tunable_find("CB_RING_SLICE")->multiple == 16);
  CHECK(cb_tunable_find("CB_CE_MIN_PIECE")->multiple == 16);
}

/* ---- parsing ---------------------------------------------------------------------- */

static void check_parsed(const char *name, const char *text, long want) {
  long v = -12345;
  const char *bad = cb_tunable_parse(cb_tunable_find(name), text, &v, why, sizeof why);
  CHECKF(bad == NULL, "%s='%s' refused: %s", name, text ? text : "(unset)", bad ? bad : "");
  CHECKF(v == want, "%s='%s': %ld, expected %ld", name, text ? text : "(unset)", v, want);
}

static void check_refused(const char *name, const char *text, const char *want) {
  long v = -12345;
  const char *bad = cb_tunable_parse(cb_tunable_find(name), text, &v, why, sizeof why);
  CHECKF(bad != NULL, "%s='%s' taken as %ld", name, text, v);
  if (bad) CHECK_STR(bad, want);
  CHECKF(v == -12345, "%s='%s': the value was changed on a refusal", name, text);
}

static void test_whole_numbers(void) {
  check_parsed("CB_RING_SLICE", NULL, 512 << 10);
  check_parsed("CB_RING_SLICE", "1048576", 1 << 20);
  check_parsed("CB_RING_SLICE", "1024", 1024);
  check_parsed("CB_RING_SLICE", "67108864", 64 << 20);
  check_parsed("CB_LL_MAX_WARPS", "0", 0);
  check_parsed("CB_AR_DIRECT_BLOCK_BYTES", "8192", 8192);
  const char *slice = "expected a whole number from 1024 to 67108864, a multiple of 16";
  const char *bad[] = {
      "abc", "",     " 4096", "4096 ", "+4096",    "0x400", "4K",
      "1.5", "1000", "1008",  "1023",  "67108880", "-1024", "99999999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char want[256];
    snprintf(want, sizeof want, "CB_RING_SLICE='%s': %s", bad[i], slice);
    check_refused("CB_RING_SLICE", bad[i], want);
  }
  check_refused("CB_RING_CHANNELS", "0",
                "CB_RING_CHANNELS='0': expected a whole number from 1 to 128");
  check_refused("CB_LL_BLOCK_WARPS", "999",
                "CB_LL_BLOCK_WARPS='999': expected a whole number from 0 to 16");
  check_refused("CB_SHARE_GPUS", "2", "CB_SHARE_GPUS='2': expected a whole number from 0 to 1");
  check_refused("CB_LLHOST_BLOCKS", "-3",
                "CB_LLHOST_BLOCKS='-3': expected a whole number from 1 to 256");
}

/* llhost's crossovers, one a direction: bytes, 0 (the flag protocol at
 * every size) to 1 TiB (LL16 at every size a run can have), no suffixes. */
static void check_llhost_crossover(const char *name, long fallback) {
  check_parsed(name, NULL, fallback);
  check_parsed(name, "0", 0);
  check_parsed(name, "1", 1);
  check_parsed(name, "4097", 4097);
  check_parsed(name, "1099511627776", 1L << 40);
  const char *range = "expected a whole number from 0 to 1099511627776";
  const char *bad[] = {"-1", "1K", "abc", "", " 8", "1e3", "1099511627777", "0x10"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char want[256];
    snprintf(want, sizeof want, "%s='%s': %s", name, bad[i], range);
    check_refused(name, bad[i], want);
  }
  /* Read by copy_perf, each process its own. */
  const cb_tunable_row *t = cb_tunable_find(name);
  CHECK(t->programs == CB_TUNE_COPY && t->per_rank);
  setenv(name, "0", 1);
  CHECK(cb_tunables_read(CB_TUNE_COPY, why, sizeof why) == NULL);
  CHECK_EQ_INT(cb_tunable(name), 0);
  setenv(name, "4K", 1);
  char want[256];
  snprintf(want, sizeof want, "%s='4K': %s", name, range);
  CHECK_STR(cb_tunables_read(CB_TUNE_COPY, why, sizeof why), want);
  CHECK_EQ_INT(cb_tunable(name), 0); /* the refused read kept nothing */
  unsetenv(name);
  CHECK(cb_tunables_read(CB_TUNE_COPY, why, sizeof why) == NULL);
  CHECK_EQ_INT(cb_tunable(name), fallback);
}

static void test_llhost_crossover(void) {
  check_llhost_crossover("CB_LLHOST_H2D_LL_MAX", 4096);
  check_llhost_crossover("CB_LLHOST_D2H_LL_MAX", 512);
  check_llhost_crossover("CB_LLHOST_H2D_WINDOW_LL_MAX", 1024);
  check_llhost_crossover("CB_LLHOST_D2H_WINDOW_LL_MAX", 64);
  /* The name both directions once shared is refused, set to anything,
   * naming what replaced it; collectives do not read it. */
  CHECK(cb_tunable_find("CB_LLHOST_LL_MAX") == NULL);
  CHECK_STR(cb_tunable_retired("CB_LLHOST_LL_MAX"),
            "CB_LLHOST_H2D_LL_MAX and CB_LLHOST_D2H_LL_MAX (one a direction)");
  CHECK(cb_tunable_retired("CB_LLHOST_H2D_LL_MAX") == NULL);
  setenv("CB_LLHOST_LL_MAX", "0", 1);
  CHECK_STR(cb_tunables_read(CB_TUNE_COPY, why, sizeof why),
            "CB_LLHOST_LL_MAX is no longer read: set CB_LLHOST_H2D_LL_MAX and "
            "CB_LLHOST_D2H_LL_MAX (one a direction) instead");
  CHECK(cb_tunables_read(CB_TUNE_COLL, why, sizeof why) == NULL);
  unsetenv("CB_LLHOST_LL_MAX");
  CHECK(cb_tunables_read(CB_TUNE_COPY, why, sizeof why) == NULL);
  /* The protocol it picks (copy_llhost.h): LL16 up to it, inclusive; 0, never. */
  CHECK(cb_llh_protocol_for(1024, 1024, 0, 1) == CB_LLH_LL16);
  CHECK(cb_llh_protocol_for(1025, 1024, 0, 1) == CB_LLH_FLAG_DIRECT);
  CHECK(cb_llh_protocol_for(1025, 1024, 0, 0) == CB_LLH_FLAG_STAGED);
  CHECK(cb_llh_protocol_for(0, 0, 0, 1) == CB_LLH_FLAG_DIRECT);
  CHECK(cb_llh_protocol_for(1, 0, 0, 0) == CB_LLH_FLAG_STAGED);
  CHECK(cb_llh_protocol_for(1ull << 40, 1ull << 40, 0, 1) == CB_LLH_LL16);
}

/* Where h2d leaves the staging ring for direct reads: bytes, as H2D_LL_MAX; LL16
 * goes first, staged up to it inclusive, the host's memory kind after. */
static void test_llhost_stage_max(void) {
  check_parsed("CB_LLHOST_STAGE_MAX", NULL, 0);
  check_parsed("CB_LLHOST_STAGE_MAX", "8192", 8192);
  check_parsed("CB_LLHOST_STAGE_MAX", "0", 0);
  check_parsed("CB_LLHOST_STAGE_MAX", "1099511627776", 1L << 40);
  check_refused("CB_LLHOST_STAGE_MAX", "8K",
                "CB_LLHOST_STAGE_MAX='8K': expected a whole number from 0 to 1099511627776");
  const cb_tunable_row *t = cb_tunable_find("CB_LLHOST_STAGE_MAX");
  CHECK(t->programs == CB_TUNE_COPY && t->per_rank);
  CHECK(cb_llh_protocol_for(1024, 1024, 8192, 1) == CB_LLH_LL16);
  CHECK(cb_llh_protocol_for(1025, 1024, 8192, 1) == CB_LLH_FLAG_STAGED);
  CHECK(cb_llh_protocol_for(8192, 1024, 8192, 1) == CB_LLH_FLAG_STAGED);
  CHECK(cb_llh_protocol_for(8193, 1024, 8192, 1) == CB_LLH_FLAG_DIRECT);
  CHECK(cb_llh_protocol_for(8193, 1024, 8192, 0) == CB_LLH_FLAG_STAGED);
  CHECK(cb_llh_protocol_for(512, 1024, 8192, 1) == CB_LLH_LL16);
}

static void test_choices(void) {
  check_parsed("CB_CE_OWN_COPY", NULL, 0);
  check_parsed("CB_CE_OWN_COPY", "ce", 0);
  check_parsed("CB_CE_OWN_COPY", "sm", 1);
  check_parsed("CB_A2A_RING_OWN_COPY", NULL, 0);
  check_parsed("CB_A2A_RING_OWN_COPY", "sm", 0);
  check_parsed("CB_A2A_RING_OWN_COPY", "ce", 1);
  check_refused("CB_A2A_RING_OWN_COPY", "bogus",
                "CB_A2A_RING_OWN_COPY='bogus': expected one of sm, ce");
  check_refused("CB_CE_OWN_COPY", "SM", "CB_CE_OWN_COPY='SM': expected one of ce, sm");
  check_refused("CB_CE_OWN_COPY", "", "CB_CE_OWN_COPY='': expected one of ce, sm");
  check_refused("CB_CE_OWN_COPY", "s", "CB_CE_OWN_COPY='s': expected one of ce, sm");
}

/* ---- reading the environment ------------------------------------------------------ */

static void test_read(void) {
  unsetenv("CB_RING_SLICE");
  unsetenv("CB_LLHOST_BLOCKS");
  setenv("CB_RING_CHANNELS", "16", 1);
  setenv("CB_CE_OWN_COPY", "sm", 1);
  CHECK(cb_tunables_read(CB_TUNE_COLL, why, sizeof why) == NULL);
  CHECK_EQ_INT(cb_tunable("CB_RING_CHANNELS"), 16);
  CHECK_EQ_INT(cb_tunable("CB_RING_SLICE"), 512 << 10);
  CHECK_EQ_INT(cb_tunable("CB_CE_OWN_COPY"), 1);
  /* Choices by name, whatever their order in a row: set and left unset. */
  CHECK(cb_tunable_is("CB_CE_OWN_COPY", "sm") && !cb_tunable_is("CB_CE_OWN_COPY", "ce"));
  CHECK(cb_tunable_is("CB_A2A_RING_OWN_COPY", "sm") &&
        !cb_tunable_is("CB_A2A_RING_OWN_COPY", "ce"));
  CHECK_EQ_INT(cb_tunable("CB_AR_DIRECT_BLOCKS"), 64);
  /* One bad value refuses the read, naming it; what was kept stays. */
  setenv("CB_RING_CHANNELS", "32", 1);
  setenv("CB_AR_CE_PIECES", "0", 1);
  const char *bad = cb_tunables_read(CB_TUNE_COLL, why, sizeof why);
  CHECK_STR(bad, "CB_AR_CE_PIECES='0': expected a whole number from 1 to 64");
  CHECK_EQ_INT(cb_tunable("CB_RING_CHANNELS"), 16);
  unsetenv("CB_AR_CE_PIECES");
  /* copy_perf reads only its own: a bad collective tunable is not its business. */
  setenv("CB_RING_SLICE", "abc", 1);
  setenv("CB_LLHOST_BLOCKS", "8", 1);
  CHECK(cb_tunables_read(CB_TUNE_COPY, why, sizeof why) == NULL);
  CHECK_EQ_INT(cb_tunable("CB_LLHOST_BLOCKS"), 8);
  setenv("CB_LLHOST_BLOCKS", "257", 1);
  CHECK_STR(cb_tunables_read(CB_TUNE_COPY, why, sizeof why),
            "CB_LLHOST_BLOCKS='257': expected a whole number from 1 to 256");
  unsetenv("CB_RING_SLICE");
  unsetenv("CB_LLHOST_BLOCKS");
  unsetenv("CB_RING_CHANNELS");
  unsetenv("CB_CE_OWN_COPY");
}

/* collbench owns the CB_ prefix: a name it does not read is refused, naming
 * the nearest one it reads; every tunable, run switch and retired name is
 * known, and other prefixes are not its business. */
static void test_unknown_names(void) {
  char *misspelt[] = {"PATH=/bin", "CB_RNG_SLICE=1024", NULL};
  CHECK_STR(cb_env_unknown(misspelt, why, sizeof why),
            "CB_RNG_SLICE is set, but collbench reads no such variable (the nearest it reads: "
            "CB_RING_SLICE; docs/options.md lists them)");
  char *bare[] = {"CB_LLHOST_BLOCK", NULL}; /* no '=' */
  CHECK_STR(cb_env_unknown(bare, why, sizeof why),
            "CB_LLHOST_BLOCK is set, but collbench reads no such variable (the nearest it reads: "
            "CB_LLHOST_BLOCKS; docs/options.md lists them)");
  char *known[] = {"CB_RING_SLICE=1",
                   "CB_PEER_MAPPING=ipc",
                   "CB_LLHOST_LL_MAX=0",
                   "CB_ERROR_STACKS=on",
                   "CBX=1",
                   "NCCL_DEBUG=INFO",
                   NULL};
  CHECK(cb_env_unknown(known, why, sizeof why) == NULL);
  int n;
  const cb_tunable_row *rows = cb_tunable_rows(&n);
  for (int i = 0; i < n; i++) CHECKF(cb_env_name_known(rows[i].name), "%s", rows[i].name);
  CHECK(!cb_env_name_known("CB_NO_SUCH_TUNABLE"));
  /* The programs read it first, as a bad value. */
  setenv("CB_RING_SLIC", "1", 1);
  CHECK(strstr(cb_tunables_read(CB_TUNE_COPY, why, sizeof why), "CB_RING_SLIC is set") == why);
  unsetenv("CB_RING_SLIC");
}

/* ---- comparing processes ---------------------------------------------------------- */

static int row_of(const char *name) {
  int n;
  return (int)(cb_tunable_find(name) - cb_tunable_rows(&n));
}

/* nprocs processes, every row unset (its default). */
static cb_tunable_setting *unset_settings(int nprocs) {
  int n;
  const cb_tunable_row *rows = cb_tunable_rows(&n);
  cb_tunable_setting *all = calloc((size_t)nprocs * (size_t)n, sizeof *all);
  if (!all) exit(2);
  for (int p = 0; p < nprocs; p++)
    for (int i = 0; i < n; i++) all[p * n + i] = (cb_tunable_setting){rows[i].fallback, 0};
  return all;
}

static void set_on(cb_tunable_setting *all, int proc, const char *name, long value) {
  int n;
  cb_tunable_rows(&n);
  all[proc * n + row_of(name)] = (cb_tunable_setting){value, 1};
}

static void test_mismatch(void) {
  cb_tunable_setting *all = unset_settings(3);
  CHECK(cb_tunables_mismatch(all, 3, why, sizeof why) == NULL);
  CHECK(cb_tunables_mismatch(all, 1, why, sizeof why) == NULL);
  /* Set to its default on one process, unset on the others: the same. */
  set_on(all, 1, "CB_RING_SLICE", 512 << 10);
  set_on(all, 0, "CB_CE_OWN_COPY", 0);
  CHECK(cb_tunables_mismatch(all, 3, why, sizeof why) == NULL);
  /* The LL grid is a rank's own. */
  set_on(all, 2, "CB_LL_MAX_WARPS", 512);
  set_on(all, 1, "CB_LL_BLOCK_WARPS", 4);
  set_on(all, 0, "CB_LLHOST_BLOCKS", 8);
  CHECK(cb_tunables_mismatch(all, 3, why, sizeof why) == NULL);
  set_on(all, 2, "CB_RING_SLICE", 1 << 20);
  CHECK_STR(cb_tunables_mismatch(all, 3, why, sizeof why),
            "CB_RING_SLICE differs between processes: process 0 has it unset (default 524288), "
            "process 2 has 1048576; every process must give it the same value");
  set_on(all, 0, "CB_RING_SLICE", 1 << 20);
  CHECK_STR(cb_tunables_mismatch(all, 3, why, sizeof why),
            "CB_RING_SLICE differs between processes: process 0 has 1048576, process 1 has "
            "524288; every process must give it the same value");
  set_on(all, 1, "CB_RING_SLICE", 1 << 20);
  set_on(all, 2, "CB_RING_SLICE", 1 << 20);
  CHECK(cb_tunables_mismatch(all, 3, why, sizeof why) == NULL);
  set_on(all, 1, "CB_CE_OWN_COPY", 1);
  CHECK_STR(cb_tunables_mismatch(all, 3, why, sizeof why),
            "CB_CE_OWN_COPY differs between processes: process 0 has ce, process 1 has sm; "
            "every process must give it the same value");
  free(all);
  all = unset_settings(2);
  set_on(all, 1, "CB_AR_DIRECT_BLOCK_BYTES", 8192);
  CHECK_STR(cb_tunables_mismatch(all, 2, why, sizeof why),
            "CB_AR_DIRECT_BLOCK_BYTES differs between processes: process 0 has it unset "
            "(default 32768), process 1 has 8192; every process must give it the same value");
  free(all);
}

/* This process's settings: what it read, set or not. */
static void test_settings(void) {
  setenv("CB_AR_CE_PIECES", "2", 1);
  setenv("CB_RS_CE_PIECES", "8", 1);
  CHECK(cb_tunables_read(CB_TUNE_COLL, why, sizeof why) == NULL);
  int n;
  cb_tunable_rows(&n);
  cb_tunable_setting *mine = calloc((size_t)n, sizeof *mine);
  if (!mine) exit(2);
  cb_tunable_settings(mine);
  CHECK(mine[row_of("CB_AR_CE_PIECES")].set && mine[row_of("CB_AR_CE_PIECES")].value == 2);
  CHECK(mine[row_of("CB_RS_CE_PIECES")].set && mine[row_of("CB_RS_CE_PIECES")].value == 8);
  CHECK(!mine[row_of("CB_RING_SLICE")].set && mine[row_of("CB_RING_SLICE")].value == 512 << 10);
  CHECK(!mine[row_of("CB_LLHOST_BLOCKS")].set); /* not read by the collective programs */
  free(mine);
  unsetenv("CB_AR_CE_PIECES");
  unsetenv("CB_RS_CE_PIECES");
}

/* ---- the sources and docs/options.md ------------------------------------------------ */

static char *slurp_path(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = check_slurp(f);
  fclose(f);
  return text;
}

/* Whether name is the prefix of rows that a kernel names by it
 * (cb_direct_setup(ctx, reply, "CB_AR_DIRECT") reads CB_AR_DIRECT_BLOCKS). */
static int prefix_of_rows(const char *name) {
  int n;
  const cb_tunable_row *rows = cb_tunable_rows(&n);
  size_t len = strlen(name);
  for (int i = 0; i < n; i++)
    if (strncmp(rows[i].name, name, len) == 0 && rows[i].name[len] == '_') return 1;
  return 0;
}

static int known_name(const char *name) {
  return cb_env_name_known(name) || prefix_of_rows(name);
}

/* Every string literal of a source that starts with a CB_ name. */
static int scan_source(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)ftw;
  if (type != FTW_F || !(ends_with(path, ".c") || ends_with(path, ".h") || ends_with(path, ".cu") ||
                         ends_with(path, ".cuh")))
    return 0;
  char *text = slurp_path(path);
  if (!text) return 0;
  for (const char *p = strstr(text, "\"CB_"); p; p = strstr(p + 1, "\"CB_")) {
    char name[96];
    size_t k = 0;
    for (const char *q = p + 1;
         k + 1 < sizeof name && (*q == '_' || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9'));
         q++)
      name[k++] = *q;
    name[k] = '\0';
    if (!strcmp(name, "CB_")) continue; /* a prefix test ("CB_*" variables) */
    CHECKF(known_name(name), "%s: %s is read or named, but is not in the table of tunables", path,
           name);
  }
  free(text);
  return 0;
}

static void test_sources_read_only_rows(const char *src) {
  static const char *const dirs[] = {"include", "common", "src", "copy"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", src, dirs[i]);
    CHECKF(nftw(dir, scan_source, 16, FTW_PHYS) == 0, "cannot walk %s", dir);
  }
}

/* The page's row (a table line) whose first cell names `name`, cut into
 * its cells, or 0. */
static int doc_row(const char *doc, const char *name, char cells[5][1024]) {
  char quoted[100];
  snprintf(quoted, sizeof quoted, "`%s`", name);
  for (const char *line = doc; line && *line; line = strchr(line, '\n'), line += line != NULL) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len < 2 || line[0] != '|') continue;
    int c = -1;
    size_t at = 0;
    for (size_t i = 0; i < len && c < 5; i++) {
      if (line[i] == '|') {
        if (c >= 0) cells[c][at] = '\0';
        c++, at = 0;
      } else if (c >= 0 && c < 5 && at + 1 < 1024) {
        cells[c][at++] = line[i];
      }
    }
    if (c >= 5 && strstr(cells[0], quoted)) return 1;
  }
  return 0;
}

#define OPTIONS_PAGE "docs/options.md"

static void test_options_page_says_the_same(const char *src) {
  char path[4096];
  snprintf(path, sizeof path, "%s/" OPTIONS_PAGE, src);
  char *doc = slurp_path(path);
  CHECKF(doc != NULL, "cannot read %s", path);
  if (!doc) return;
  int n;
  const cb_tunable_row *rows = cb_tunable_rows(&n);
  static char cells[5][1024];
  for (int i = 0; i < n; i++) {
    const cb_tunable_row *t = &rows[i];
    if (!CHECKF(doc_row(doc, t->name, cells), OPTIONS_PAGE ": no row for %s", t->name)) continue;
    char text[128];
    if (t->kind == CB_TUNE_WHOLE) {
      snprintf(text, sizeof text, " %ld ", t->fallback);
      CHECKF(strstr(cells[1], text), OPTIONS_PAGE ", %s: default is %ld", t->name, t->fallback);
      snprintf(text, sizeof text, " %ld to %ld", t->lo, t->hi);
      CHECKF(strstr(cells[2], text), OPTIONS_PAGE ", %s: takes%s", t->name, text);
      snprintf(text, sizeof text, "a multiple of %ld", t->multiple);
      CHECKF((t->multiple > 1) == (strstr(cells[2], text) != NULL), OPTIONS_PAGE ", %s: %s",
             t->name, text);
    } else {
      snprintf(text, sizeof text, "`%s`", t->choices[t->fallback]);
      CHECKF(strstr(cells[1], text), OPTIONS_PAGE ", %s: default is %s", t->name, text);
      for (int k = 0; k < t->nchoices; k++) {
        snprintf(text, sizeof text, "`%s`", t->choices[k]);
        CHECKF(strstr(cells[2], text), OPTIONS_PAGE ", %s: takes %s", t->name, text);
      }
    }
    const char *ranks = t->per_rank ? " may differ per rank " : " must agree ";
    CHECKF(!strcmp(cells[3], ranks), OPTIONS_PAGE ", %s: ranks column '%s', expected '%s'", t->name,
           cells[3], ranks);
  }
  free(doc);
}

int main(int argc, char **argv) {
  test_rows_are_sound();
  test_what_may_differ();
  test_bounds_fit_capacities();
  test_whole_numbers();
  test_llhost_crossover();
  test_llhost_stage_max();
  test_choices();
  test_read();
  test_unknown_names();
  test_mismatch();
  test_settings();
  if (argc > 1) {
    test_sources_read_only_rows(argv[1]);
    test_options_page_says_the_same(argv[1]);
  }
  return check_summary();
}
