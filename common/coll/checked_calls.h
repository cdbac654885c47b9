/* Validated calls launched back to back, with no host wait between them
 * (checked_calls.c says how). Internal to common/coll/. */
#ifndef CB_CHECKED_CALLS_H
#define CB_CHECKED_CALLS_H

#include "placed_call.h"
#include "run_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call of a validated chain. */
typedef struct {
  cb_launch launch; /* the kernel, its context and the placed call */
  cb_counts counts;
  int reps; /* launches before the check; above 1 only out of place */
} cb_checked_call;

/* Ranks whose output differs from rank 0's (the first CB_NAMED_RANKS named). */
#define CB_NAMED_RANKS 8
typedef struct {
  int count;
  int ranks[CB_NAMED_RANKS];
} cb_disagreement;

/* What a chain found per call, over every rank (and every replay). */
typedef struct {
  long long wrong[CB_CHECK_SLOTS];
  cb_disagreement disagree[CB_CHECK_SLOTS]; /* only where the shape's outputs must agree */
} cb_chain_result;

/* Collective: validates ncalls (1..CB_CHECK_SLOTS) calls launched back to
 * back on the rank's stream with no host wait between them, each on fresh
 * inputs of its own round written on the GPU, each checked into its own
 * counters; the chain runs `replays` times (one graph replayed, in graph
 * mode), on new rounds every time. Waits once, then gathers every rank's
 * counts and output hashes into out. */
void cb_run_checked_calls(cb_rank_state *st, cb_checked_call *calls, int ncalls, int replays,
                          const char *what, cb_chain_result *out);
/* Wrong values of call i: wrong elements plus one per disagreeing rank. */
long long cb_chain_wrong(const cb_chain_result *r, int i);
/* Rank 0: a "# rank agreement" line naming the ranks, when there are any. */
void cb_print_disagreement(const cb_rank_state *st, const char *what, const cb_disagreement *d);

#ifdef __cplusplus
}
#endif

#endif
