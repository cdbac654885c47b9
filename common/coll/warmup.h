/* nccl-tests' "warm-up for all sizes" (its TimeTest, 2.19.6): before the
 * first size of a (datatype, op, root) is timed, -w calls at every size
 * from -b to -e by a factor of 2, whatever the sweep's own step, each size
 * waited for. The sizes are computed without a GPU (cb_warmup_sizes), and
 * cb_warm_up_sizes makes the calls. */
#ifndef CB_WARMUP_H
#define CB_WARMUP_H

#include <stddef.h>
#include <stdint.h>

#include "coll_shape.h"
#include "placed_call.h"
#include "run_state.h"
#include "sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most sizes a warm-up has: -b 1 to -e 2^62 (CB_SIZE_MAX), 63 powers of two. */
#define CB_WARMUP_MAX_SIZES 63

/* One size of the warm-up, as one rank calls it. */
typedef struct {
  uint64_t bytes;     /* nccl-tests' size argument: -b times a power of two */
  cb_counts counts;   /* the call there: the shape's counts, rounded to the datatype and ranks */
  size_t table_bytes; /* the size column the call would have, which a kernel's limit is against */
} cb_warmup_size;

/* The warm-up's sizes for one rank (rank of nranks, elem-byte elements):
 * sweep->min_bytes, twice that, ... while <= sweep->max_bytes (the sweep's
 * step factor and step bytes play no part, as in nccl-tests), each with its
 * counts from shape; a size whose table bytes are above max_table_bytes (a
 * kernel's limit, cb_kernel_limits.max_bytes; 0 = none) is left out, as the
 * sweep skips it. Writes at most cap entries to out; returns how many there
 * are. A sweep from 0 bytes has none (nccl-tests would double 0 forever). */
size_t cb_warmup_sizes(const cb_sweep *sweep, const cb_coll_shape *shape, size_t elem, int nranks,
                       int rank, uint64_t max_table_bytes, cb_warmup_size *out, size_t cap);

/* Collective: nccl-tests' warm-up for all sizes of proto's kernel,
 * datatype, op and root: -w single calls at every size from -b to -e by a
 * factor of 2, each size placed and skipped as the sweep places and skips
 * it, then waited for (-T). Leaves the buffers' contents undefined: every
 * measurement writes its inputs afterwards. */
void cb_warm_up_sizes(cb_rank_state *st, const cb_launch *proto);

#ifdef __cplusplus
}
#endif

#endif
