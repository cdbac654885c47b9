/* The CB_ tunables' table, and their values as this process read them
 * (tunables.h). */
#include "tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "error.h"

static const char *const ce_or_sm[] = {"ce", "sm"};
static const char *const sm_or_ce[] = {"sm", "ce"};

/* A row: its name, what it takes, its default, whether ranks must agree,
 * which programs read it, and its meaning. */
#define NUMBER(name_, lo_, hi_, multiple_, default_, ranks_, programs_, meaning_)                  \
  {                                                                                                \
    .name = (name_), .kind = CB_TUNE_WHOLE, .lo = (lo_), .hi = (hi_), .multiple = (multiple_),     \
    .fallback = (default_), .per_rank = (ranks_), .programs = (programs_), .meaning = (meaning_)   \
  }
#define CHOICE(name_, list_, default_, ranks_, programs_, meaning_)                                \
  {                                                                                                \
    .name = (name_), .kind = CB_TUNE_CHOICE, .choices = (list_),                                   \
    .nchoices = (int)(sizeof(list_) / sizeof *(list_)), .fallback = (default_),                    \
    .per_rank = (ranks_), .programs = (programs_), .meaning = (meaning_)                           \
  }
enum { AGREE = 0, PER_RANK = 1 };
#define COLL CB_TUNE_COLL
#define COPY CB_TUNE_COPY

/* The direct kernels of one collective (prefix as its setup names it):
 * block b of every rank pairs with block b of every peer, and each rank
 * derives a call's block count from the block bytes, so both must agree. */
#define DIRECT_ROWS(prefix, program)                                                               \
  NUMBER(prefix "_BLOCKS", 1, 128, 1, 64, AGREE, COLL, program " -k direct: blocks at most"),      \
      NUMBER(prefix "_BLOCK_BYTES", 1024, 1L << 30, 1, 32 << 10, AGREE, COLL,                      \
             program " -k direct: bytes a rank sends or loads per block (fewer blocks for small "  \
                     "messages)")

/* Every row must agree across ranks unless it says PER_RANK: whatever
 * shapes what a peer sees (slices, slots, channels, block counts and
 * sizes, piece cuts, which copy path runs, which NCCL calls are made) must
 * be the same on every rank, or a rank reads a peer's memory with the
 * wrong layout, waits on a block never launched, or reduces different
 * pieces; and one row of results must measure one configuration. Only the
 * LL grid (and copy_perf's llhost kernel, which has no peer) is a rank's
 * own: nothing its peers see depends on it. */
static const cb_tunable_row table[] = {
    NUMBER("CB_SHARE_GPUS", 0, 1, 1, 0, AGREE, COLL,
           "1: ranks share the visible GPUs round robin (correctness checks only; times are not "
           "comparable)"),
    NUMBER("CB_HOSTS", 0, 1024, 1, 0, AGREE, COLL,
           "N > 0: the processes of this machine form N simulated hosts, each with its own "
           "NCCL_HOSTID (correctness checks only; times are not comparable)"),
    /* Ring defaults from sweeps of the all_reduce ring on 2 x H200 at 1 GiB
     * float (docs/kernels.md, "The ring's defaults"): 16 channels of
     * 128 KiB slices gave 164 GB/s, 32 x 512 KiB 311, 64 x 512 KiB 350, 96 x 512 KiB
     * 357, 128 x 512 KiB 364; 1 MiB slices and 8 slots did not help. At
     * most CB_RING_MAX_CHANNELS (ring_mesh.h) channels; a slice is moved in
     * 16-byte accesses, its slot CB_RING_SLOT_PAD bytes longer (ring_span.h). */
    NUMBER("CB_RING_CHANNELS", 1, 128, 1, 128, AGREE, COLL,
           "ring kernels: channels (one FIFO pipe per channel and link), at most; fewer where "
           "the GPU cannot hold them all resident"),
    NUMBER("CB_RING_SLOTS", 2, 64, 1, 4, AGREE, COLL, "ring kernels: slots of each FIFO pipe"),
    NUMBER("CB_RING_SLICE", 1 << 10, 64 << 20, 16, 512 << 10, AGREE, COLL,
           "ring kernels: bytes a FIFO slot carries"),
    /* How the ce reduce-scatter cuts the longest part into pieces
     * (cb_ce_plan). Each piece costs a few microseconds of copy-engine and
     * launch gaps; the reduce of the last piece is the pipeline's drain.
     * all_reduce hides that drain behind its all-gather copies, so it wants
     * few equal pieces: at 1 GiB on 2 x H200 (docs/kernels.md, "ce: pieces
     * and the taper", both launches) 2, 3, 4 and 6 pieces per part gave
     * 386.9, 384.1, 384.6 and 382.1 GB/s (one piece, no pipeline: 308). A
     * reduce-scatter has nothing to hide its drain behind: there 2, 4, 8 and
     * 16 equal pieces gave 297, 333, 352 and 357 GB/s, and pieces that take
     * 60, 50, 40 and 30 percent of what is left of the part 308, 331, 353
     * and 368: a taper keeps the last reduce short with few pieces. At most
     * CB_CE_MAX_PIECES (ce_plan.h) pieces, moved in 16-byte accesses. */
    NUMBER("CB_AR_CE_PIECES", 1, 64, 1, 2, AGREE, COLL,
           "all_reduce -k ce: equal pieces per part of its reduce-scatter"),
    NUMBER("CB_AR_CE_TAPER", 0, 90, 1, 0, AGREE, COLL,
           "all_reduce -k ce: above 0, pieces that each take this percent of what is left of "
           "the part instead"),
    NUMBER("CB_RS_CE_PIECES", 1, 64, 1, 4, AGREE, COLL,
           "reduce_scatter -k ce: equal pieces per part"),
    NUMBER("CB_RS_CE_TAPER", 0, 90, 1, 30, AGREE, COLL,
           "reduce_scatter -k ce: above 0, pieces that each take this percent of what is left of "
           "the part instead"),
    NUMBER("CB_CE_MIN_PIECE", 16, 1L << 30, 16, 2 << 20, AGREE, COLL,
           "all_reduce and reduce_scatter -k ce: bytes of a piece, at least"),
    NUMBER("CB_AG_CE_PARALLEL", 0, 1, 1, 1, AGREE, COLL,
           "all_gather -k ce: 1, one copy stream per peer; 0, every copy on the call's stream"),
    NUMBER("CB_A2A_CE_PARALLEL", 0, 1, 1, 1, AGREE, COLL,
           "alltoall -k ce: 1, one copy stream per peer; 0, every copy on the call's stream"),
    CHOICE("CB_CE_OWN_COPY", ce_or_sm, 0, AGREE, COLL,
           "all_gather and alltoall -k ce, out of place: the own block copied by a copy engine "
           "(ce) or by a kernel (sm)"),
    NUMBER("CB_LL_BLOCK_WARPS", 0, 16, 1, 0, PER_RANK, COLL,
           "LL kernels: warps per block; 0, by size (2 up to 64 tiles of 32 packets, 4 above)"),
    NUMBER("CB_LL_MAX_WARPS", 0, 2048, 1, 0, PER_RANK, COLL,
           "LL kernels: warps at most, each taking several tiles; 0, 1024"),
    DIRECT_ROWS("CB_AR_DIRECT", "all_reduce"),
    DIRECT_ROWS("CB_RS_DIRECT", "reduce_scatter"),
    DIRECT_ROWS("CB_AG_DIRECT", "all_gather"),
    DIRECT_ROWS("CB_A2A_DIRECT", "alltoall"),
    DIRECT_ROWS("CB_SR_DIRECT", "sendrecv"),
    DIRECT_ROWS("CB_BC_DIRECT", "broadcast"),
    DIRECT_ROWS("CB_RD_DIRECT", "reduce"),
    DIRECT_ROWS("CB_GA_DIRECT", "gather"),
    DIRECT_ROWS("CB_SC_DIRECT", "scatter"),
    CHOICE("CB_A2A_RING_OWN_COPY", sm_or_ce, 0, AGREE, COLL,
           "alltoall -k ring: the own block copied by the channels between their sends and "
           "receives (sm) or by a copy engine beside the kernel (ce; not with ranks sharing a "
           "GPU)"),
    NUMBER("CB_NCCL_CE_SCATTER_IN_PLACE", 0, 1, 1, 0, AGREE, COLL,
           "1: scatter -k nccl-ce runs in place with a root other than 0 on NCCL <= 2.28.3, "
           "which gets it wrong"),
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

enum { ROWS = sizeof table / sizeof table[0] };

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

/* Read from the environment but not tunables: they choose how a run is made,
 * not how a kernel moves data (docs/options.md's other sections). */
static const char *const run_switches[] = {"CB_PEER_MAPPING", "CB_FAULT_SKIP_RANK", "CB_GDRAPI_LIB",
                                           "CB_CUBLAS_LIB", "CB_ERROR_STACKS"};

void cb_env_names(void (*each)(const char *name, void *ctx), void *ctx) {
  int n = 0;
  const cb_tunable_row *rows = cb_tunable_rows(&n);
  for (int i = 0; i < n; i++) each(rows[i].name, ctx);
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

/* What cb_tunables_read kept. */
static long values[ROWS];
static unsigned char set[ROWS], kept[ROWS];

const cb_tunable_row *cb_tunable_rows(int *n) {
  *n = ROWS;
  return table;
}

static int row_index(const char *name) {
  for (int i = 0; i < ROWS; i++)
    if (strcmp(table[i].name, name) == 0) return i;
  return -1;
}

const cb_tunable_row *cb_tunable_find(const char *name) {
  int i = row_index(name);
  return i < 0 ? NULL : &table[i];
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
  long v[ROWS];
  for (int i = 0; i < ROWS; i++) {
    v[i] = table[i].fallback;
    if ((table[i].programs & programs) &&
        cb_tunable_parse(&table[i], getenv(table[i].name), &v[i], why, len))
      return why;
  }
  for (int i = 0; i < ROWS; i++) {
    values[i] = v[i];
    kept[i] = (table[i].programs & programs) != 0;
    set[i] = kept[i] && getenv(table[i].name) != NULL;
  }
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
  const cb_tunable_row *t = &table[row_index(name)];
  for (int i = 0; t->kind == CB_TUNE_CHOICE && i < t->nchoices; i++)
    if (strcmp(t->choices[i], choice) == 0) return value == i;
  cb_fatal("%s has no choice '%s' in collbench's table of tunables (tunables.c)", name, choice);
  return 0;
}

void cb_tunable_settings(cb_tunable_setting *out) {
  for (int i = 0; i < ROWS; i++)
    out[i] = (cb_tunable_setting){kept[i] ? values[i] : table[i].fallback, set[i]};
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
  for (int i = 0; i < ROWS; i++) {
    if (table[i].per_rank) continue;
    for (int p = 1; p < nprocs; p++) {
      const cb_tunable_setting *a = &all[i], *b = &all[(size_t)p * ROWS + i];
      if (a->value == b->value) continue;
      char va[96], vb[96];
      snprintf(why, len,
               "%s differs between processes: process 0 has %s, process %d has %s; every process "
               "must give it the same value",
               table[i].name, describe(&table[i], a, va, sizeof va), p,
               describe(&table[i], b, vb, sizeof vb));
      return why;
    }
  }
  return NULL;
}
