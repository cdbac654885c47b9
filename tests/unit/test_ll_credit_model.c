/* The LL credit protocol (src/kernels/ll/device/ll_credit.cuh) as a model, run
 * under random schedules on the CPU: ranks with per-tile epochs, scratch
 * slots by (source, parity, tile), credit words by (tile, receiver) in the
 * sender's area, and the kernels' steps in their order (sendrecv: per tile
 * return credit, await credit, push; then poll; broadcast (and scatter): the
 * root awaits and pushes, the others return credit for all their tiles,
 * then poll; gather (and reduce), device/ll_rooted.cuh's many to one: the
 * root returns credit to every sender for all its tiles, then polls every
 * sender's packet of each tile; the others await the root's credit, push).
 * Each call covers a random number of tiles (sizes differ), each rank runs
 * it with its own random number of warps (grids differ) taking their tiles
 * in a random order, a rank starts a call only when its previous one is
 * complete (stream order), all warps are resident, and a broadcast's root
 * changes at random. One packet per tile stands for the tile's 32.
 *
 * Checked: no push overwrites a packet its receiver has not read (the
 * safety claim), and no schedule gets stuck before every call is done (the
 * progress claim). And the test can fail: the model without the credit wait
 * (the skip_ll_credit mutant's kernel) must be caught overwriting, for broadcast
 * and gather at 2 ranks and sendrecv at 3, while sendrecv at 2 ranks must not
 * be (its ranks read from the ones they send to); and with credit returned
 * tile by tile just before each poll, some schedule must get stuck. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MR 5               /* ranks at most */
#define MT 6               /* tiles at most */
#define MC 14              /* calls */
#define MW 6               /* warps per rank at most */
#define MA (MT * (MR + 2)) /* steps of a warp at most: a gather root takes MR - 1 per tile */

/* POLL takes one packet and closes the tile; TAKE takes one and leaves it
 * open (a gather root takes one per sender), DONE closes it. */
enum { POST, AWAIT, PUSH, POLL, TAKE, DONE };
enum { SENDRECV, BROADCAST, GATHER };
typedef struct {
  int kind, t, peer; /* peer -1: every other rank */
} step;

typedef struct {
  step s[MA];
  int len, pc;
} warp;

typedef struct {
  uint64_t epoch; /* of the packet in the slot; 0: never written */
  int unread;
} slot;

typedef struct {
  int pattern, n, no_credit;
  int late_credit; /* broken rule: a receiver returns a tile's credit just before polling it */
  int tiles[MC], root[MC];
  uint64_t epochs[MR][MT];
  uint64_t credit[MR][MT][MR]; /* [sender][t][receiver] */
  slot scratch[MR][MR][2][MT]; /* [receiver][source][parity][t] */
  int call[MR];
  warp w[MR][MW];
  int nwarps[MR];
  int lost; /* pushes that overwrote an unread packet */
} model;

static void add(warp *w, int kind, int t, int peer) {
  if (w->len == MA) { /* a model too small for its kernels: no result means anything */
    fprintf(stderr, "test_ll_credit_model: more than %d steps in a warp\n", MA);
    exit(1);
  }
  w->s[w->len++] = (step){kind, t, peer};
}

/* The warps of rank r for its current call, with a random grid: warp k
 * takes tiles k, k + W, ... (as cb_ll_first_tile / cb_ll_tile_stride), in
 * a random order (the kernels go up; the proof must not need it). */
static void start_call(model *m, int r) {
  int c = m->call[r], T = m->tiles[c], n = m->n;
  int W = 1 + rand() % MW, prev = (r + n - 1) % n, next = (r + 1) % n, root = m->root[c];
  memset(m->w[r], 0, sizeof m->w[r]);
  m->nwarps[r] = W;
  for (int k = 0; k < W; k++) {
    warp *w = &m->w[r][k];
    int ts[MT], nt = 0;
    for (int t = k; t < T; t += W) ts[nt++] = t;
    for (int i = nt - 1; i > 0; i--) {
      int j = rand() % (i + 1), x = ts[i];
      ts[i] = ts[j], ts[j] = x;
    }
    if (m->pattern == SENDRECV) {
      for (int i = 0; i < nt; i++)
        add(w, POST, ts[i], prev), add(w, AWAIT, ts[i], next), add(w, PUSH, ts[i], next);
      for (int i = 0; i < nt; i++) add(w, POLL, ts[i], prev);
    } else if (m->pattern == GATHER && r != root) {
      for (int i = 0; i < nt; i++)
        add(w, AWAIT, ts[i], root), add(w, PUSH, ts[i], root), add(w, DONE, ts[i], -1);
    } else if (m->pattern == GATHER) { /* the root: credit to every sender, then take */
      for (int i = 0; i < nt && !m->late_credit; i++) add(w, POST, ts[i], -1);
      for (int i = 0; i < nt; i++) {
        if (m->late_credit) add(w, POST, ts[i], -1);
        for (int q = 0; q < n; q++)
          if (q != r) add(w, TAKE, ts[i], q);
        add(w, DONE, ts[i], -1);
      }
    } else if (r == root) {
      for (int i = 0; i < nt; i++)
        add(w, AWAIT, ts[i], -1), add(w, PUSH, ts[i], -1), add(w, DONE, ts[i], -1);
    } else if (m->late_credit) {
      for (int i = 0; i < nt; i++) add(w, POST, ts[i], root), add(w, POLL, ts[i], root);
    } else {
      for (int i = 0; i < nt; i++) add(w, POST, ts[i], root);
      for (int i = 0; i < nt; i++) add(w, POLL, ts[i], root);
    }
  }
}

static int credit_ok(const model *m, int r, int t, int q, uint64_t e) {
  return m->no_credit || m->credit[r][t][q] + 2 >= e;
}

/* Whether rank r's step s can run now (waits are the only blockers). */
static int enabled(const model *m, int r, const step *s) {
  uint64_t e = m->epochs[r][s->t] + 1;
  if (s->kind == AWAIT) {
    for (int q = 0; q < m->n; q++)
      if ((s->peer == -1 ? q != r : q == s->peer) && !credit_ok(m, r, s->t, q, e)) return 0;
    return 1;
  }
  if (s->kind == POLL || s->kind == TAKE) {
    const slot *sl = &m->scratch[r][s->peer][e & 1][s->t];
    return sl->epoch == e && sl->unread; /* the flag must be exactly the epoch's */
  }
  return 1;
}

static void push(model *m, int r, int q, int t, uint64_t e) {
  slot *sl = &m->scratch[q][r][e & 1][t];
  if (sl->unread) m->lost++;
  sl->epoch = e;
  sl->unread = 1;
}

static void run_step(model *m, int r, const step *s) {
  uint64_t e = m->epochs[r][s->t] + 1;
  switch (s->kind) {
  case POST:
    for (int q = 0; q < m->n; q++)
      if (s->peer == -1 ? q != r : q == s->peer) m->credit[q][s->t][r] = e - 1;
    break;
  case TAKE:
    m->scratch[r][s->peer][e & 1][s->t].unread = 0;
    break;
  case PUSH:
    for (int q = 0; q < m->n; q++)
      if (s->peer == -1 ? q != r : q == s->peer) push(m, r, q, s->t, e);
    break;
  case POLL:
    m->scratch[r][s->peer][e & 1][s->t].unread = 0;
    m->epochs[r][s->t] = e; /* the tile is done */
    break;
  case DONE:
    m->epochs[r][s->t] = e;
    break;
  default:
    break;
  }
}

/* One random schedule to the end; returns 1 if every call completed. */
static int run_model(model *m) {
  for (int r = 0; r < m->n; r++) start_call(m, r);
  for (;;) {
    int cand[MR * MW][2], nc = 0, done = 1;
    for (int r = 0; r < m->n; r++) {
      if (m->call[r] == MC) continue;
      done = 0;
      for (int k = 0; k < m->nwarps[r]; k++) {
        warp *w = &m->w[r][k];
        if (w->pc < w->len && enabled(m, r, &w->s[w->pc])) cand[nc][0] = r, cand[nc++][1] = k;
      }
    }
    if (done) return 1;
    if (nc == 0) return 0;
    int pick = rand() % nc, r = cand[pick][0];
    warp *w = &m->w[r][cand[pick][1]];
    run_step(m, r, &w->s[w->pc++]);
    int complete = 1;
    for (int k = 0; k < m->nwarps[r]; k++) complete &= m->w[r][k].pc == m->w[r][k].len;
    if (complete && ++m->call[r] < MC) start_call(m, r);
  }
}

static void scenario(model *m, int pattern, int n, int broken) {
  memset(m, 0, sizeof *m);
  m->pattern = pattern;
  m->n = n;
  m->no_credit = broken == 1;
  m->late_credit = broken == 2;
  int root = rand() % n;
  for (int c = 0; c < MC; c++) {
    m->tiles[c] = 1 + rand() % MT;
    if (rand() % 4 == 0) root = rand() % n; /* the root changes now and then */
    m->root[c] = root;
  }
}

/* Runs random schedules of the protocol (broken: 0 as built, 1 without the
 * credit wait, 2 with credit returned late); returns the pushes that lost a
 * packet and counts the schedules that got stuck. */
static long trials(int pattern, int n, int broken, int runs, int *stuck) {
  long lost = 0;
  model m;
  for (int i = 0; i < runs; i++) {
    scenario(&m, pattern, n, broken);
    if (!run_model(&m)) ++*stuck;
    lost += m.lost;
  }
  return lost;
}

int main(void) {
  static const char *const names[] = {"sendrecv", "broadcast", "gather"};
  srand(14);
  for (int pattern = SENDRECV; pattern <= GATHER; pattern++)
    for (int n = 1; n <= MR; n++) {
      int stuck = 0;
      long lost = trials(pattern, n, 0, 2000, &stuck);
      CHECKF(lost == 0 && stuck == 0, "%s, %d ranks, with credits: %ld packets lost, %d stuck",
             names[pattern], n, lost, stuck);
    }
  /* The broken protocol must be seen: a sender laps its receiver. */
  int stuck = 0;
  CHECKF(trials(BROADCAST, 2, 1, 2000, &stuck) > 0,
         "broadcast without credits, 2 ranks: nothing lost");
  CHECKF(trials(GATHER, 2, 1, 2000, &stuck) > 0, "gather without credits, 2 ranks: nothing lost");
  CHECKF(trials(SENDRECV, 3, 1, 2000, &stuck) > 0,
         "sendrecv without credits, 3 ranks: nothing lost");
  /* ... and sendrecv at 2 ranks cannot lap: each reads from the one it sends to. */
  stuck = 0;
  CHECKF(trials(SENDRECV, 2, 1, 2000, &stuck) == 0 && stuck == 0,
         "sendrecv without credits, 2 ranks: a lap where reading should prevent it");
  /* The progress rule: credit returned tile by tile, just before each poll,
   * gets stuck once the root changes (ll_credit.cuh, "Progress"). */
  stuck = 0;
  long lost = trials(BROADCAST, 3, 2, 2000, &stuck);
  CHECKF(lost == 0 && stuck > 0, "broadcast with late credits: %ld lost, %d stuck (want 0, > 0)",
         lost, stuck);
  stuck = 0;
  lost = trials(GATHER, 3, 2, 2000, &stuck);
  CHECKF(lost == 0 && stuck > 0, "gather with late credits: %ld lost, %d stuck (want 0, > 0)", lost,
         stuck);
  return check_summary();
}
