/* What each collective moves: element counts per rank, in-place offsets,
 * the bus-bandwidth factor and how its expected output follows from the
 * inputs. One const struct per collective, in its program's file
 * (src/<program>.c), as nccl-tests defines them, so collbench's busbw is
 * comparable with nccl-tests'. */
#ifndef CB_COLL_SHAPE_H
#define CB_COLL_SHAPE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element counts of one call on one rank. */
typedef struct {
  size_t send_count;  /* elements in the send buffer */
  size_t recv_count;  /* elements in the receive buffer */
  size_t param_count; /* the count argument of the call (NCCL's meaning) */
  /* In place, both buffers live in one region of max(send, recv) elements:
   * send = region + send_offset, recv = region + recv_offset (this rank). */
  size_t send_inplace_offset;
  size_t recv_inplace_offset;
} cb_counts;

/* How output element j of rank `me` is formed from inputs in(r, i), read by
 * the validation kernel. p = param_count, n = ranks. "Untouched" (the rooted
 * collectives whose output is the root's alone): what the rank's output held
 * before the call, the poison the harness writes there, and in place its own
 * input where the input lies, as nccl-tests checks it. */
typedef enum {
  CB_EXPECT_REDUCE,       /* op over all r of in(r, j)                (all_reduce) */
  CB_EXPECT_REDUCE_BLOCK, /* op over all r of in(r, me*p + j)         (reduce_scatter) */
  CB_EXPECT_GATHER,       /* in(j / p, j % p)                         (all_gather, hypercube) */
  CB_EXPECT_ALLTOALL,     /* in(j / p, me*p + j % p)                  (alltoall) */
  CB_EXPECT_FROM_PREV,    /* in((me - 1 + n) % n, j)                  (sendrecv) */
  CB_EXPECT_FROM_ROOT,    /* in(root, j)                              (broadcast) */
  CB_EXPECT_REDUCE_ROOT,  /* root: op over all r of in(r, j); others untouched      (reduce) */
  CB_EXPECT_GATHER_ROOT,  /* root: in(j / p, j % p); others untouched               (gather) */
  CB_EXPECT_SCATTER,      /* in(root, me*p + j)                                     (scatter) */
  CB_EXPECT_ALLTOALLV     /* the run from rank s, at the end of the runs of ranks before s: the
                             piece of s's input for me (alltoallv_pattern.h)        (alltoallv) */
} cb_expect;

typedef struct cb_coll_shape {
  const char *name;  /* "all_reduce": the program is <name>_perf */
  int reduces;       /* the op (-o) matters */
  int op_column;     /* the table names the op even so (nccl-tests' sendrecv loops over -o) */
  int rooted;        /* the root (-r) matters */
  int outputs_agree; /* every rank's output must be the same bits (all_reduce, all_gather,
                        broadcast): the validation compares a hash of them across ranks */
  cb_expect expect;
  /* Counts for a message of `bytes` bytes (nccl-tests' size argument). */
  void (*counts)(size_t bytes, size_t elem_size, int nranks, int rank, cb_counts *out);
  /* busbw = algbw * bus_factor(n). */
  double (*bus_factor)(int nranks);
  /* Bytes that algbw divides by time (nccl-tests' choice per collective). */
  size_t (*algbw_bytes)(const cb_counts *c, size_t elem_size, int nranks);
  /* The text table's redop column of a collective without an op: "none"
   * when NULL (hypercube_perf prints an empty word there, as nccl-tests
   * does; its JSON and CSV still say "none"). */
  const char *no_op_column;
  int pow2_ranks; /* runs only on a power-of-two rank count (hypercube) */
  /* The collective's own environment, read once before any rank starts:
   * NULL when usable, else why not (err, len bytes). Optional. */
  const char *(*environment)(char *err, size_t len);
} cb_coll_shape;

/* What the shapes are made of. Each collective's own shape is in its
 * program's file (src/<program>.c); these are the pieces several share. */

/* Per-rank block of the gather/scatter-like collectives: whole 16-byte
 * multiples, as nccl-tests rounds them, so every rank's block is aligned. */
size_t cb_block_count(size_t bytes, size_t elem_size, int nranks);
/* Counts: send and receive both hold the message (all_reduce, sendrecv,
 * broadcast, reduce). */
void cb_counts_same(size_t bytes, size_t elem_size, int nranks, int rank, cb_counts *out);
/* Counts: one block sent, n received, a rank's own block of the output its
 * in-place input (all_gather, gather, hypercube). */
void cb_counts_gathered(size_t bytes, size_t elem_size, int nranks, int rank, cb_counts *out);
/* Counts: n blocks sent, one received, a rank's block of the input its
 * in-place output (reduce_scatter, scatter). */
void cb_counts_scattered(size_t bytes, size_t elem_size, int nranks, int rank, cb_counts *out);
/* Bus factors: (n - 1) / n, and 1. */
double cb_bus_factor_n_minus_1_over_n(int nranks);
double cb_bus_factor_one(int nranks);
/* algbw's bytes: the count argument's, and n times them. */
size_t cb_algbw_param(const cb_counts *c, size_t elem_size, int nranks);
size_t cb_algbw_param_times_n(const cb_counts *c, size_t elem_size, int nranks);

/* The traffic several collectives share: a shape's counts, bus_factor and
 * algbw_bytes together, as designated initializers of a cb_coll_shape, so a
 * shape names nccl-tests' choice once. The whole message in both buffers,
 * busbw = algbw (broadcast, reduce, sendrecv): */
#define CB_TRAFFIC_MESSAGE                                                                         \
  .counts = cb_counts_same, .bus_factor = cb_bus_factor_one, .algbw_bytes = cb_algbw_param
/* A block per rank, laid out by counts_ (cb_counts_gathered: all_gather,
 * gather; cb_counts_scattered: reduce_scatter, scatter; alltoall's own):
 * (n - 1) / n of the n blocks cross links, algbw counts all n. */
#define CB_TRAFFIC_BLOCKS(counts_)                                                                 \
  .counts = counts_, .bus_factor = cb_bus_factor_n_minus_1_over_n,                                 \
  .algbw_bytes = cb_algbw_param_times_n

/* The redop of a row (JSON, CSV, messages): the op's name, or "none" for
 * collectives without one. */
const char *cb_shape_op_name(const cb_coll_shape *s, int op);
/* The same in the text table's redop column (no_op_column where set). */
const char *cb_shape_op_column(const cb_coll_shape *s, int op);
/* Whether the sweep runs once per op of -o. */
static inline int cb_shape_loops_ops(const cb_coll_shape *s) {
  return s->reduces || s->op_column;
}

/* The size column of the table: the larger of the send and receive bytes. */
size_t cb_counts_table_bytes(const cb_counts *c, size_t elem_size);

#ifdef __cplusplus
}
#endif

#endif
