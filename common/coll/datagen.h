/* Test data and its validation, on the GPU.
 *
 * Input element i of rank r in round s is drawn from a hash of (s, r, i),
 * so shifted, stale or misrouted data never matches by accident. Two kinds:
 *
 *   exact (the default, --data exact): small integers whose every partial
 *     reduction is exact in every datatype (bfloat16 and fp8 included), so
 *     any reduction order gives the same bits and outputs are compared bit
 *     for bit. The ranges per type, op and rank count are exact_data.h's:
 *     sums stay within 127 (int8 and the wider types), 16 (f8e4m3) or 8
 *     (f8e5m2), products within 2^8 (f8e4m3) or 2^15 (f8e5m2). The one
 *     exception to bit for bit: avg on floating types with a rank count
 *     that is not a power of two, where NCCL multiplies each input by 1/n
 *     before summing; there n units in the last place are allowed.
 *   random (--data random): floating types take random values of the type
 *     (magnitudes in [2^-6, 1), or [0.5, 2) for prod; some +0 and -0, many
 *     for min and max so that the order of a reduction shows in the sign of
 *     a zero); a reduction is compared with its float64 reference, computed
 *     from the same inputs in rank order, within cb_tolerance (tolerance.h).
 *     Integer types take random integers over a range no sum of the ranks
 *     overflows, and stay exact. Moved data (gather, broadcast, ...) is
 *     compared bit for bit. fp8 has so few significand bits that this check
 *     is weak for it: from 3 ranks on, the rounding bound of a sum exceeds
 *     almost every single input, so a lost or stale contribution passes
 *     (tests/unit/test_tolerance.c prints the rates); exact data is fp8's
 *     real check.
 *
 *   mulsum: rank r's input times cb_mulsum_scalar(r) (1 or 2, as
 *     nccl-tests), then summed; expected values and the reference scale
 *     the inputs the same way.
 *
 * The round of a call can live on the device (cb_data_spec.round): a graph
 * replayed many times then fills, and checks, fresh data on every replay. */
#ifndef CB_DATAGEN_H
#define CB_DATAGEN_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "coll_shape.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CB_DATA_EXACT, CB_DATA_RANDOM } cb_data_kind;

/* "exact" or "random"; cb_data_kind_parse returns -1 for another name. */
const char *cb_data_kind_name(cb_data_kind k);
int cb_data_kind_parse(const char *name);

typedef struct {
  cb_dtype dtype;
  cb_redop op; /* CB_SUM for collectives that do not reduce */
  cb_expect expect;
  int reduces;
  int rank, nranks, root;
  size_t param_count;
  /* Rooted collectives whose output is the root's alone: what the other
   * ranks' output must still hold (coll_shape.h, "untouched"). In place,
   * their input lies at elements [input_offset, input_offset + input_count)
   * of the output. */
  int in_place;
  size_t input_offset, input_count;
  double spread; /* alltoallv's pattern (alltoallv_pattern.h) */
  cb_data_kind kind;
  uint64_t seed;         /* the round; 0 is the timed data */
  const uint64_t *round; /* NULL, or a device word the GPU adds to seed when it runs */
} cb_data_spec;

/* Enqueues this rank's input (count elements) into buf. */
void cb_data_fill_input(const cb_data_spec *s, void *buf, size_t count, cudaStream_t stream);
/* Enqueues 0xFF into every byte, a value no expected output takes, so an
 * element the kernel never wrote is counted wrong. */
void cb_data_poison(void *buf, size_t bytes, cudaStream_t stream);
/* Enqueues the check of count output elements in buf: adds to *wrong the
 * number that differ from the expected values and, when hash is not NULL,
 * adds to *hash a hash of buf's bits (equal outputs give equal hashes, on
 * any rank). Both are device words; nothing here waits. */
void cb_data_check(const cb_data_spec *s, const void *buf, size_t count, unsigned long long *wrong,
                   unsigned long long *hash, cudaStream_t stream);
/* Enqueues the check of the guard of bytes at buf, poisoned with the
 * output (cb_data_poison) and never the call's to write: adds to *wrong
 * the bytes that no longer hold the poison. */
void cb_data_check_guard(const void *buf, size_t bytes, unsigned long long *wrong,
                         cudaStream_t stream);
/* Enqueues *round += by. */
void cb_data_advance_round(uint64_t *round, uint64_t by, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
