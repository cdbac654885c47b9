/* --stress N (stress.c says how). Internal to common/coll/. */
#ifndef CB_STRESS_H
#define CB_STRESS_H

#include "run_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective: --stress N random calls of one kernel, validated back to back.
 * Returns the wrong values found. */
long long cb_stress_kernel(cb_rank_state *st, int kidx, cb_kernel_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
