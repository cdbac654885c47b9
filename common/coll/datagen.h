/* Deterministic, exactly reducible test data and its validation on the GPU.
 *
 * Input element i of rank r, round s, is a small integer drawn from a hash
 * of (r, i, s), so shifted or misrouted blocks never match by accident.
 * For reductions the values are small enough that every partial result is
 * exact in every datatype (bfloat16 included), so any reduction order gives
 * the same bits and outputs are compared bit for bit. The one exception:
 * avg on floating types with a rank count that is not a power of two, where
 * NCCL multiplies each input by 1/n before summing; there the result may
 * differ from sum/n by rounding, and is allowed n units in the last place. */
#ifndef CB_DATAGEN_H
#define CB_DATAGEN_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "coll_shape.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  cb_dtype dtype;
  cb_redop op; /* CB_SUM for collectives that do not reduce */
  cb_expect expect;
  int reduces;
  int rank, nranks, root;
  size_t param_count;
  int seed; /* validation round */
} cb_data_spec;

/* Writes this rank's input (count elements) into buf. */
void cb_data_fill_input(const cb_data_spec *s, void *buf, size_t count, cudaStream_t stream);
/* Fills bytes with 0xFF, a value no expected output takes, so an element
 * the kernel never wrote is counted wrong. */
void cb_data_poison(void *buf, size_t bytes, cudaStream_t stream);
/* Counts output elements (count of them in buf) that differ from the
 * expected values. counter: a device word for the result. Synchronises stream. */
long long cb_data_check(const cb_data_spec *s, const void *buf, size_t count,
                        unsigned long long *counter, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
