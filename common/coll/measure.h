/* One measurement of a placed call, as the table shows it. Internal to
 * common/coll/. */
#ifndef CB_MEASURE_H
#define CB_MEASURE_H

#include "placed_call.h"
#include "report.h"
#include "run_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective: times and validates one (kernel, call) as the table shows it. */
void cb_measure_call(cb_rank_state *st, cb_launch *l, const cb_counts *c, cb_measure *m);

#ifdef __cplusplus
}
#endif

#endif
