/* One kernel call placed in a rank's buffers: the unit that the timer, the
 * validation, the warm-up and the stress all launch. Placing it, writing
 * its inputs and naming it live here, below every part that runs one.
 * Internal to common/coll/. */
#ifndef CB_PLACED_CALL_H
#define CB_PLACED_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "datagen.h"
#include "run_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel call as the timer and the validation enqueue it. */
typedef struct {
  const cb_kernel *kernel;
  cb_kernel_ctx *ctx;
  cb_call call;
  int skip; /* fault injection: enqueue nothing, so the peers must time out */
} cb_launch;

/* cb_enqueue_fn for a cb_launch. */
void cb_enqueue_kernel(void *launch, cudaStream_t s);

/* cb_bracket_fn for a cb_launch: the kernel's own bracket of -m calls
 * (NCCL's group). */
void cb_bracket_kernel(void *launch, int begin);

/* Points send and receive at this rank's buffers for one placement. */
void cb_place_call(cb_rank_state *st, const cb_counts *c, size_t elem, int in_place, cb_call *call);

/* The validation data of a call on this rank, round seed. */
cb_data_spec cb_spec_for(const cb_rank_state *st, const cb_call *call, const cb_counts *c,
                         uint64_t seed);

/* Enqueues a call's fresh inputs (spec's round) after poisoning its output. */
void cb_enqueue_inputs(cb_rank_state *st, const cb_data_spec *spec, const cb_call *call,
                       const cb_counts *c, cudaStream_t s);

/* Names a placed call in waits' timeout messages: "kernel 1 (ring) gather
 * float sum 32 B out-of-place root 0", then tail (may be ""). */
void cb_call_what(const cb_rank_state *st, const cb_launch *l, const cb_counts *c, const char *tail,
                  char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
