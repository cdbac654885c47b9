/* The loads' kinds, names and sizes, and --overlap's and --overlap_size's
 * checks (load.h says what each load is): no CUDA here, so the programs'
 * option parsers and their CPU tests use it before any GPU work. */
#ifndef CB_LOAD_OPTIONS_H
#define CB_LOAD_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Independent FMA chains a thread of the fma load runs (a size is a
 * multiple of them): enough to keep the FMA pipes busy through their
 * latency. */
#define CB_LOAD_FMA_CHAINS 8

/* Blocks of a unit of our kernels: this many times what the GPU holds at
 * once, each doing its share, so a unit is many short blocks, as a GEMM's
 * tiles are. Blocks that fill the GPU exactly would make one wave of long
 * ones: a collective holding one block slot would push its block into a
 * second wave and double the unit's time, and every collective launched
 * behind a unit would wait for all of it. With short blocks the scheduler
 * gives each freed slot to whichever grid waits. */
#define CB_LOAD_WAVES 8

typedef enum {
  CB_LOAD_NONE = 0,
  CB_LOAD_GEMM,
  CB_LOAD_FMA,
  CB_LOAD_MEM,
  CB_NUM_LOADS
} cb_load_kind;

/* "none", "gemm", "fma", "mem". */
const char *cb_load_name(int kind);
/* The kind named, or -1. */
int cb_load_parse(const char *name);
/* "gemm, fma, mem or none", for messages. */
#define CB_LOAD_NAMES "gemm, fma, mem or none"
/* Why the kind cannot run here (gemm: no cuBLAS in the build, or none
 * loads at run time), or NULL. */
const char *cb_load_unavailable(int kind);
/* gemm's part of it (load_gemm.c): its first call opens cuBLAS
 * ($CB_CUBLAS_LIB, else the soname of the build's headers). */
const char *cb_load_gemm_unavailable(void);
/* The size a kind takes when --overlap_size is not given (docs/overlap.md,
 * "Sizing the load"). */
uint64_t cb_load_default_size(int kind);
/* Why size cannot serve the kind (the text in buf, len bytes), or NULL. */
const char *cb_load_size_problem(int kind, uint64_t size, char *buf, size_t len);
/* "TFLOP/s" or "GB/s", and what divides work per second into it. */
const char *cb_load_rate_unit(int kind);
double cb_load_rate_scale(int kind);
/* One phrase: "cuBLAS bf16 GEMM, M=N=K=8192 (1.1 TFLOP a unit)". */
void cb_load_describe(int kind, uint64_t size, char *buf, size_t len);

/* Whether argv names a load (--overlap gemm, fma or mem; the last
 * --overlap wins), read before anything starts CUDA. */
int cb_load_named_in_args(int argc, char *const *argv);
/* Before anything starts CUDA: with a load named, CUDA_DEVICE_MAX_CONNECTIONS
 * 32 where the user has not set it. A stream shares one of the device's
 * hardware queues (8 by default) with the streams created 8, 16, ... after
 * it, and work on a shared queue runs in its order: the call's side streams,
 * NCCL's, or the stream whose events mark a host time, would wait behind the
 * load's queued units, and the time beside it would be the two one after the
 * other. */
void cb_load_env_defaults(int argc, char *const *argv);

/* --overlap's and --overlap_size's checks, shared by the programs' option
 * parsers (no GPU needed): cb_load_option_kind takes --overlap's word into
 * *kind; cb_load_options_check settles the size (size 0: not given, the
 * kind's default then) and refuses a size without a load, a size the kind
 * cannot take, and a kind this build cannot run. Each returns 0, or -1
 * with one line in err. */
int cb_load_option_kind(const char *word, int *kind, char *err, size_t len);
int cb_load_options_check(int kind, uint64_t *size, char *err, size_t len);

#ifdef __cplusplus
}
#endif

#endif
