/* The ranks of a run, as a kernel's setup sees them: its own rank is in its
 * context (kernel.h); these exchange data with every rank of its group, on
 * every rank together. */
#ifndef COLLBENCH_WORLD_H
#define COLLBENCH_WORLD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One rank's handle (cb_kernel_ctx.world); the harness's. */
typedef struct cb_rank_info cb_rank_info;

/* Collective over the ranks: every rank's `bytes` bytes at mine, in rank
 * order, into all (nranks * bytes). */
void cb_world_allgather(cb_rank_info *me, const void *mine, size_t bytes, void *all);
/* Collective over the ranks: returns once every rank has called it. */
void cb_world_barrier(cb_rank_info *me);

#ifdef __cplusplus
}
#endif

#endif
