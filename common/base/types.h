/* Datatypes and reduction ops: names, sizes and parsing. No CUDA here, so
 * the CPU tests and option parsing can use it on a machine without a GPU. */
#ifndef CB_TYPES_H
#define CB_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CB_INT8,
  CB_UINT8,
  CB_INT32,
  CB_UINT32,
  CB_INT64,
  CB_UINT64,
  CB_HALF,
  CB_FLOAT,
  CB_DOUBLE,
  CB_BFLOAT16,
  CB_F8E4M3, /* fp8, 4 exponent and 3 mantissa bits (__nv_fp8_e4m3, ncclFloat8e4m3) */
  CB_F8E5M2, /* fp8, 5 exponent and 2 mantissa bits (__nv_fp8_e5m2, ncclFloat8e5m2) */
  CB_NUM_DTYPES
} cb_dtype;

/* The ops, in nccl-tests' order but for min before max. CB_MULSUM is
 * nccl-tests' "mulsum": NCCL's ncclRedOpCreatePreMulSum, a sum in which each
 * rank's input is first multiplied by that rank's own scalar (in the
 * datatype, as NCCL does). As in nccl-tests, the scalar of rank r is
 * cb_mulsum_scalar(r), the same for every call; our kernels apply it to
 * each rank's input as it enters the reduction. */
typedef enum { CB_SUM, CB_PROD, CB_MIN, CB_MAX, CB_AVG, CB_MULSUM, CB_NUM_OPS } cb_redop;

#ifdef __CUDACC__
#define CB_TYPES_HOST_DEVICE __host__ __device__
#else
#define CB_TYPES_HOST_DEVICE
#endif

/* Rank r's mulsum scalar: nccl-tests' ncclVerifiablePremulScalar (1 on even
 * ranks, 2 on odd ones; both exact in every datatype). */
static inline CB_TYPES_HOST_DEVICE int cb_mulsum_scalar(int rank) {
  return rank % 2 ? 2 : 1;
}

/* Bit masks over the enums above, used by kernels to declare support. */
#define CB_DTYPE_BIT(t) (1u << (t))
#define CB_ALL_DTYPES   ((1u << CB_NUM_DTYPES) - 1u)
#define CB_OP_BIT(o)    (1u << (o))
#define CB_ALL_OPS      ((1u << CB_NUM_OPS) - 1u)

const char *cb_dtype_name(cb_dtype t);
size_t cb_dtype_size(cb_dtype t);
int cb_dtype_is_float(cb_dtype t);
/* A floating type's machine epsilon and smallest normal value; 0 for the
 * integer types. */
double cb_dtype_epsilon(cb_dtype t);
double cb_dtype_min_normal(cb_dtype t);
/* Returns the dtype for a name (nccl-tests spellings and common aliases), or -1. */
int cb_dtype_parse(const char *name);

const char *cb_redop_name(cb_redop op);
int cb_redop_parse(const char *name);

/* Every datatype's (op's) name, space-separated, into buf: what -d (-o)
 * takes, for messages and usage. Returns buf. */
const char *cb_dtype_names(char *buf, size_t len);
const char *cb_redop_names(char *buf, size_t len);

/* Parses "all" or a comma list of names into a bit mask; 0 on an unknown
 * name, or one named twice (*twice set), whose text is copied into bad (size
 * bad_len). */
uint32_t cb_dtype_mask_parse(const char *list, char *bad, size_t bad_len, int *twice);
uint32_t cb_redop_mask_parse(const char *list, char *bad, size_t bad_len, int *twice);

#ifdef __cplusplus
}
#endif

#endif
