/* Validated calls launched back to back, with no host wait between them.
 *
 * For each call of a chain, the rank's stream gets: poison the output and
 * the guard after it, write this call's inputs (its own round, so a stale
 * read of an earlier call's data or a write that lands late is a wrong
 * value), the kernel (1-4 launches), and the check of the output and of
 * its guard (a write past the output's end) into the call's own device
 * counters (and, where every rank's output must agree, a hash of it). The
 * next call follows on the stream at once. Nothing but stream order and the
 * kernel's own handshakes keeps the ranks apart, which is the contract of a
 * collective call: when it ends on a rank, that rank's input may be
 * rewritten and its output read (collective.h).
 *
 * The rounds live in a device word advanced at the end of the chain, so a
 * graph of the chain replayed many times reads fresh data every time. */
#include "checked_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "error.h"
#include "gpu.h"

typedef struct {
  cb_rank_state *st;
  cb_checked_call *calls;
  int ncalls;
} chain;

static void enqueue_call(cb_rank_state *st, cb_checked_call *k, int slot, cudaStream_t s) {
  cb_check_words *w = st->bufs.check;
  const cb_call *call = &k->launch.call;
  /* Round slot + 1 past the device word: round 0 is the timed data. */
  cb_data_spec spec = cb_spec_for(st, call, &k->counts, (uint64_t)slot + 1);
  spec.round = &w->round;
  cb_enqueue_inputs(st, &spec, call, &k->counts, s);
  if (k->launch.kernel->prepare) k->launch.kernel->prepare(k->launch.ctx, call);
  for (int r = 0; r < k->reps; r++) cb_enqueue_kernel(&k->launch, s);
  unsigned long long *hash = st->run->coll->shape->outputs_agree ? &w->hash[slot] : NULL;
  cb_data_check(&spec, call->recv, k->counts.recv_count, &w->wrong[slot], hash, s);
  cb_data_check_guard(
      cb_buffers_output_end(&st->bufs, call, &k->counts, cb_dtype_size(call->dtype)),
      CB_GUARD_BYTES, &w->wrong[slot], s);
}

static void enqueue_chain(void *p, cudaStream_t s) {
  chain *c = p;
  for (int i = 0; i < c->ncalls; i++) enqueue_call(c->st, &c->calls[i], i, s);
  cb_data_advance_round(&c->st->bufs.check->round, (uint64_t)c->ncalls, s);
}

/* Per call: wrong elements over ranks, and which ranks' hashes differ from
 * rank 0's. Over every group (nccl-tests counts wrong elements over the
 * world): groups are of one size and run the same calls, so every rank's
 * output must agree with world rank 0's wherever a group's ranks agree. */
static void gather_results(cb_rank_state *st, int n, cb_chain_result *out) {
  int nranks = st->me->world_nranks;
  size_t per_rank = 2 * (size_t)n * sizeof(unsigned long long);
  unsigned long long *mine = malloc(per_rank), *all = malloc(per_rank * (size_t)nranks);
  if (!mine || !all) cb_fatal("out of host memory");
  /* The stream is idle (waited for): plain copies cannot block. */
  CB_CUDA(cudaMemcpy(mine, st->bufs.check->wrong, n * sizeof *mine, cudaMemcpyDeviceToHost));
  CB_CUDA(cudaMemcpy(mine + n, st->bufs.check->hash, n * sizeof *mine, cudaMemcpyDeviceToHost));
  cb_world_allgather_all(st->me, mine, per_rank, all);
  memset(out, 0, sizeof *out);
  for (int i = 0; i < n; i++)
    for (int r = 0; r < nranks; r++) {
      const unsigned long long *theirs = all + (size_t)r * 2 * n;
      out->wrong[i] += (long long)theirs[i];
      if (st->run->coll->shape->outputs_agree && theirs[n + i] != all[n + i]) {
        cb_disagreement *d = &out->disagree[i];
        if (d->count < CB_NAMED_RANKS) d->ranks[d->count] = r;
        d->count++;
      }
    }
  free(mine);
  free(all);
}

void cb_run_checked_calls(cb_rank_state *st, cb_checked_call *calls, int ncalls, int replays,
                          const char *what, cb_chain_result *out) {
  if (ncalls < 1 || ncalls > CB_CHECK_SLOTS)
    cb_fatal("%d calls in one validated chain (1 to %d)", ncalls, CB_CHECK_SLOTS);
  cb_check_words *w = st->bufs.check;
  CB_CUDA(cudaMemsetAsync(w->wrong, 0, sizeof w->wrong, st->stream));
  CB_CUDA(cudaMemsetAsync(w->hash, 0, sizeof w->hash, st->stream));
  chain c = {st, calls, ncalls};
  cb_run_replayed(st->me, st->stream, enqueue_chain, &c, replays, &st->timing, what);
  gather_results(st, ncalls, out);
}

long long cb_chain_wrong(const cb_chain_result *r, int i) {
  return r->wrong[i] + r->disagree[i].count;
}

void cb_print_disagreement(const cb_rank_state *st, const char *what, const cb_disagreement *d) {
  if (!d->count || st->me->world_rank != 0) return;
  char ranks[128] = "";
  size_t len = 0;
  for (int k = 0; k < d->count && k < CB_NAMED_RANKS; k++)
    len += (size_t)snprintf(ranks + len, sizeof ranks - len, "%s%d", k ? ", " : "", d->ranks[k]);
  printf("# rank agreement: %s: %d rank%s (%s%s) hold%s other bits than rank 0, each counted as "
         "one wrong value\n",
         what, d->count, d->count > 1 ? "s" : "", ranks, d->count > CB_NAMED_RANKS ? ", ..." : "",
         d->count > 1 ? "" : "s");
  fflush(stdout);
}
