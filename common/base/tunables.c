/* The CB_ tunables: the harness's and copy_perf's rows, the list of every
 * row (these and those the kernels register), and their values as this
 * process read them (tunables.h). */
#define _POSIX_C_SOURCE 200809L /* pthread mutexes */
#include "tunables.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "error.h"

#define NUMBER   CB_TUNABLE_NUMBER_OF
#define AGREE    CB_TUNE_AGREE
#define PER_RANK CB_TUNE_PER_RANK
#define COLL     CB_TUNE_COLL
#define COPY     CB_TUNE_COPY

/* Every row must agree across ranks unless it says PER_RANK: whatever
 * shapes what a peer sees (slices, slots, channels, block counts and
 * sizes, piece cuts, which copy path runs, which NCCL calls are made) must
 * be the same on every rank, or a rank reads a peer's memory with the
 * wrong layout, waits on a block never launched, or reduces different
 * pieces; and one row of results must measure one configuration. Only the
 * LL grid (and copy_perf's llhost kernel, which has no peer) is a rank's
 * own: nothing its peers see depends on it. The kernels' rows are in their
 * own files (CB_REGISTER_TUNABLES); these are the harness's and
 * copy_perf's. */
static const cb_tunable_row table[] = {
    NUMBER("CB_SHARE_GPUS", 0, 1, 1, 0, AGREE, COLL,
           "1: ranks share the visible GPUs round robin (correctness checks only; times are not "
           "comparable)"),
    NUMBER("CB_HOSTS", 0, 1024, 1, 0, AGREE, COLL,
           "N > 0: the processes of this machine form N simulated hosts, each with its own "
           "NCCL_HOSTID (correctness checks only; times are not comparable)"),
    /* At most CB_LLH_RING_CHUNKS (copy_llhost.h): a block per ring slot. */
    NUMBER("CB_LLHOST_BLOCKS", 1, 256, 1, 32, PER_RANK, COPY,
           "copy_perf -k llhost: blocks of the resident kernel"),
    /* Where llhost leaves LL16 packets for its payload-then-flag protocol
     * (copy_llhost.h), per direction: the crossover of the protocols'
     * latencies (docs/copy_perf.md, "The crossovers"). On one H100, LL16's
     * latency at most flag's up to 4 KiB h2d (8 KiB: 6.44 against 5.01 us),
     * so 4096, and up to 512 B d2h (1 KiB: 3.87 against 3.57 us), so 512;
     * another host's crossovers lie elsewhere. They shape only this
     * process's kernel. */
    NUMBER("CB_LLHOST_H2D_LL_MAX", 0, 1L << 40, 1, 4096, PER_RANK, COPY,
           "copy_perf -k llhost, h2d: LL16 packets for copies up to this many bytes, the "
           "payload-then-flag protocol above; 0, the flag protocol at every size"),
    NUMBER("CB_LLHOST_D2H_LL_MAX", 0, 1L << 40, 1, 512, PER_RANK, COPY,
           "copy_perf -k llhost, d2h: LL16 packets for copies up to this many bytes, the "
           "payload-then-flag protocol above; 0, the flag protocol at every size"),
    /* The same crossover for a post of more than one copy (a window), where
     * what counts is the time per copy with many in flight, not one copy's
     * latency: LL16 moves 8 data bytes in 16 and is polled packet by
     * packet, the flag protocol's time per copy hardly grows with the size
     * (docs/copy_perf.md, "The crossovers"). h2d: LL16's window ahead up to
     * 1 KiB on two H100s (3.08 against 2.89 GB/s), behind from 2 KiB; d2h:
     * ahead up to 64 B, behind from 128 B (0.69 against 1.0 GB/s) on H100s
     * and one H200. Windows take LL16 up to the smaller of this and the
     * direction's LL_MAX. */
    NUMBER("CB_LLHOST_H2D_WINDOW_LL_MAX", 0, 1L << 40, 1, 1024, PER_RANK, COPY,
           "copy_perf -k llhost, h2d: in a post of more than one copy (a window), LL16 packets "
           "for copies up to this many bytes and up to CB_LLHOST_H2D_LL_MAX, the "
           "payload-then-flag protocol above"),
    NUMBER("CB_LLHOST_D2H_WINDOW_LL_MAX", 0, 1L << 40, 1, 64, PER_RANK, COPY,
           "copy_perf -k llhost, d2h: in a post of more than one copy (a window), LL16 packets "
           "for copies up to this many bytes and up to CB_LLHOST_D2H_LL_MAX, the "
           "payload-then-flag protocol above"),
    /* Where llhost's h2d copies from pinned memory leave the staging ring
     * for the GPU's own reads of the host buffer (copy_llhost.h). 0: the
     * GPU's ld.global.cg reads of the host buffer beat staging at every
     * size (8 KiB windows 21-22 against 9 GB/s, latency no worse:
     * docs/copy_perf.md, "flag-direct h2d: ld.global.cg, nothing staged"). */
    NUMBER("CB_LLHOST_STAGE_MAX", 0, 1L << 40, 1, 0, PER_RANK, COPY,
           "copy_perf -k llhost: h2d copies above LL16's limit (CB_LLHOST_H2D_LL_MAX, in a window "
           "CB_LLHOST_H2D_WINDOW_LL_MAX) and up to this many bytes "
           "go through the pinned staging ring even from pinned memory; 0, never"),
};

enum { TABLE_ROWS = sizeof table / sizeof table[0] };

/* Names collbench read once and reads no more, with what took their place:
 * a run that sets one is refused, where it would silently run with the
 * defaults its user meant to change. */
static const struct {
  const char *name;
  int programs;
  const char *instead;
} retired[] = {
    {"CB_LLHOST_LL_MAX", COPY, "CB_LLHOST_H2D_LL_MAX and CB_LLHOST_D2H_LL_MAX (one a direction)"},
};

/* Every row (ours, then the registered ones by name: this library's, then
 * the plugins'), made when first asked for and again when a plugin adds
 * some, and what cb_tunables_read kept of each: nrows of them. */
static cb_tunable_row *rows;
static int nrows;
static long *values;
static unsigned char *set, *kept;
static pthread_mutex_t rows_lock = PTHREAD_MUTEX_INITIALIZER;

/* The plugins' groups (cb_tunables_add). */
#define MAX_ADDED 64
static const cb_tunable_group *added[MAX_ADDED];
static int nadded;

CB_SECTION_BOUNDS(const cb_tunable_group *, cb_tunable_groups);

static int by_name(const void *a, const void *b) {
  return strcmp(((const cb_tunable_row *)a)->name, ((const cb_tunable_row *)b)->name);
}

static int group_rows(const cb_tunable_group *const *g, size_t n) {
  int rows_in = 0;
  for (size_t i = 0; i < n; i++) rows_in += g[i]->n;
  return rows_in;
}

static void append(const cb_tunable_group *const *g, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < g[i]->n; k++) rows[nrows++] = g[i]->rows[k];
}

static void make_rows(void) {
  const cb_tunable_group *const *g = __start_cb_tunable_groups;
  const size_t ngroups = g ? (size_t)(__stop_cb_tunable_groups - g) : 0;
  const int n = TABLE_ROWS + group_rows(g, ngroups) + group_rows(added, (size_t)nadded);
  free(rows), free(values), free(set), free(kept);
  rows = malloc((size_t)n * sizeof *rows);
  values = calloc((size_t)n, sizeof *values);
  set = calloc((size_t)n, 1);
  kept = calloc((size_t)n, 1);
  if (!rows || !values || !set || !kept) cb_fatal("out of host memory");
  memcpy(rows, table, sizeof table);
  nrows = TABLE_ROWS;
  append(g, ngroups);
  append(added, (size_t)nadded);
  qsort(rows + TABLE_ROWS, (size_t)(nrows - TABLE_ROWS), sizeof *rows, by_name);
}

/* Read from the environment but not tunables: they choose how a run is made,
 * not how a kernel moves data (docs/options.md's other sections). */
static const char *const run_switches[] = {"CB_PEER_MAPPING", "CB_FAULT_SKIP_RANK", "CB_GDRAPI_LIB",
                                           "CB_CUBLAS_LIB",   "CB_ERROR_STACKS",    "CB_PLUGINS"};

void cb_env_names(void (*each)(const char *name, void *ctx), void *ctx) {
  int n = 0;
  const cb_tunable_row *all = cb_tunable_rows(&n);
  for (int i = 0; i < n; i++) each(all[i].name, ctx);
  for (size_t i = 0; i < sizeof run_switches / sizeof run_switches[0]; i++)
    each(run_switches[i], ctx);
  for (size_t i = 0; i < sizeof retired / sizeof retired[0]; i++) each(retired[i].name, ctx);
}

/* The edit distance of a and b (letters inserted, removed or changed), capped
 * at 63 characters a name: names are shorter. */
static int edit_distance(const char *a, const char *b) {
  enum { MAX = 64 };
  int prev[MAX + 1], cur[MAX + 1];
  size_t la = strlen(a), lb = strlen(b);
  if (la > MAX) la = MAX;
  if (lb > MAX) lb = MAX;
  for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int change = prev[j - 1] + (a[i - 1] != b[j - 1]);
      int gap = (prev[j] < cur[j - 1] ? prev[j] : cur[j - 1]) + 1;
      cur[j] = change < gap ? change : gap;
    }
    memcpy(prev, cur, sizeof cur);
  }
  return prev[lb];
}

/* What cb_env_names' walk looks for: a name, whether it was met, and the nearest. */
typedef struct {
  const char *name;
  int found, best;
  const char *nearest;
} name_search;

static void search_one(const char *known, void *ctx) {
  name_search *s = ctx;
  if (strcmp(known, s->name) == 0) s->found = 1;
  int d = edit_distance(s->name, known);
  if (!s->nearest || d < s->best) s->nearest = known, s->best = d;
}

int cb_env_name_known(const char *name) {
  name_search s = {.name = name};
  cb_env_names(search_one, &s);
  return s.found;
}

const char *cb_env_unknown(char *const *env, char *why, size_t len) {
  for (; env && *env; env++) {
    if (strncmp(*env, "CB_", 3) != 0) continue;
    char name[128];
    size_t n = strcspn(*env, "=");
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), *env);
    name_search s = {.name = name};
    cb_env_names(search_one, &s);
    if (s.found) continue;
    snprintf(why, len,
             "%s is set, but collbench reads no such variable (the nearest it reads: %s; "
             "docs/options.md lists them)",
             name, s.nearest ? s.nearest : "none");
    return why;
  }
  return NULL;
}

const cb_tunable_row *cb_tunable_rows(int *n) {
  pthread_mutex_lock(&rows_lock);
  if (!rows) make_rows();
  pthread_mutex_unlock(&rows_lock);
  *n = nrows;
  return rows;
}

void cb_tunables_add(const cb_tunable_group *const *groups, int n) {
  pthread_mutex_lock(&rows_lock);
  for (int i = 0; i < n; i++) {
    if (nadded == MAX_ADDED) cb_fatal("more than %d groups of plugins' tunables", MAX_ADDED);
    added[nadded++] = groups[i];
  }
  make_rows();
  pthread_mutex_unlock(&rows_lock);
}

static int row_index(const char *name) {
  int n;
  cb_tunable_rows(&n);
  for (int i = 0; i < n; i++)
    if (strcmp(rows[i].name, name) == 0) return i;
  return -1;
}

const cb_tunable_row *cb_tunable_find(const char *name) {
  int i = row_index(name);
  return i < 0 ? NULL : &rows[i];
}

const char *cb_tunable_parse(const cb_tunable_row *t, const char *text, long *value, char *why,
                             size_t len) {
  if (t->kind == CB_TUNE_WHOLE)
    return cb_env_long_parse(t->name, text, t->lo, t->hi, t->multiple, t->fallback, value, why,
                             len);
  int choice = 0;
  const char *bad = cb_env_choice_parse(t->name, text, t->choices, t->nchoices, (int)t->fallback,
                                        &choice, why, len);
  if (!bad) *value = choice;
  return bad;
}

const char *cb_tunable_retired(const char *name) {
  for (size_t i = 0; i < sizeof retired / sizeof retired[0]; i++)
    if (strcmp(retired[i].name, name) == 0) return retired[i].instead;
  return NULL;
}

extern char **environ;

const char *cb_tunables_read(int programs, char *why, size_t len) {
  if (cb_env_unknown(environ, why, len)) return why;
  for (size_t i = 0; i < sizeof retired / sizeof retired[0]; i++)
    if ((retired[i].programs & programs) && getenv(retired[i].name)) {
      snprintf(why, len, "%s is no longer read: set %s instead", retired[i].name,
               retired[i].instead);
      return why;
    }
  int n;
  cb_tunable_rows(&n);
  long *v = malloc((size_t)n * sizeof *v);
  if (!v) cb_fatal("out of host memory");
  for (int i = 0; i < n; i++) {
    v[i] = rows[i].fallback;
    if ((rows[i].programs & programs) &&
        cb_tunable_parse(&rows[i], getenv(rows[i].name), &v[i], why, len)) {
      free(v);
      return why;
    }
  }
  for (int i = 0; i < n; i++) {
    values[i] = v[i];
    kept[i] = (rows[i].programs & programs) != 0;
    set[i] = kept[i] && getenv(rows[i].name) != NULL;
  }
  free(v);
  return NULL;
}

long cb_tunable(const char *name) {
  int i = row_index(name);
  if (i < 0) cb_fatal("%s is not in collbench's table of tunables (tunables.c)", name);
  if (!kept[i]) cb_fatal("%s was asked for before the program read its tunables", name);
  return values[i];
}

int cb_tunable_is(const char *name, const char *choice) {
  long value = cb_tunable(name);
  const cb_tunable_row *t = &rows[row_index(name)];
  for (int i = 0; t->kind == CB_TUNE_CHOICE && i < t->nchoices; i++)
    if (strcmp(t->choices[i], choice) == 0) return value == i;
  cb_fatal("%s has no choice '%s' in collbench's table of tunables (tunables.c)", name, choice);
  return 0;
}

void cb_tunable_settings(cb_tunable_setting *out) {
  int n;
  cb_tunable_rows(&n);
  for (int i = 0; i < n; i++)
    out[i] = (cb_tunable_setting){kept[i] ? values[i] : rows[i].fallback, set[i]};
}

/* "1048576", "sm", or "it unset (default 524288)". */
static const char *describe(const cb_tunable_row *t, const cb_tunable_setting *s, char *buf,
                            size_t len) {
  char value[64];
  if (t->kind == CB_TUNE_CHOICE && s->value >= 0 && s->value < t->nchoices)
    snprintf(value, sizeof value, "%s", t->choices[s->value]);
  else
    snprintf(value, sizeof value, "%ld", s->value);
  if (s->set)
    snprintf(buf, len, "%s", value);
  else
    snprintf(buf, len, "it unset (default %s)", value);
  return buf;
}

const char *cb_tunables_mismatch(const cb_tunable_setting *all, int nprocs, char *why, size_t len) {
  int n;
  cb_tunable_rows(&n);
  for (int i = 0; i < n; i++) {
    if (rows[i].per_rank) continue;
    for (int p = 1; p < nprocs; p++) {
      const cb_tunable_setting *a = &all[i], *b = &all[(size_t)p * nrows + i];
      if (a->value == b->value) continue;
      char va[96], vb[96];
      snprintf(why, len,
               "%s differs between processes: process 0 has %s, process %d has %s; every process "
               "must give it the same value",
               rows[i].name, describe(&rows[i], a, va, sizeof va), p,
               describe(&rows[i], b, vb, sizeof vb));
      return why;
    }
  }
  return NULL;
}
