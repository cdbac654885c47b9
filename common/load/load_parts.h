/* The parts of a load (load.h) that load.c puts together: our two kernels
 * (load_kernels.cu) and the cuBLAS GEMM (load_gemm.c). Internal to
 * common/load/. */
#ifndef CB_LOAD_PARTS_H
#define CB_LOAD_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "load_options.h" /* CB_LOAD_FMA_CHAINS */

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of our load kernels. */
#define CB_LOAD_THREADS 256

/* Blocks of the fma (fma 1) or mem (fma 0) kernel one SM holds at once. */
int cb_load_kernel_per_sm(int fma);
/* n values that are not zero (a hash of the index, in [-1, 1)), as bf16
 * (bf16 1) or as fp32 words (bf16 0), on s. */
void cb_load_fill(void *p, size_t n, int bf16, cudaStream_t s);
/* One unit of the fma kernel: every thread runs fmas FMAs (a multiple of
 * CB_LOAD_FMA_CHAINS) and stores one word into sink (blocks x
 * CB_LOAD_THREADS words) so none is optimised away. */
void cb_load_fma_launch(float *sink, unsigned blocks, uint64_t fmas, cudaStream_t s);
/* One unit of the mem kernel: bytes (a multiple of 16) from src to dst. */
void cb_load_mem_launch(const void *src, void *dst, size_t bytes, unsigned blocks, cudaStream_t s);

/* The GEMM (load_gemm.c; cb_load_gemm_unavailable, load_options.h, says
 * whether it can run here). */
typedef struct cb_load_gemm cb_load_gemm;
/* C = A B, n x n bf16 matrices (filled), on stream s. */
cb_load_gemm *cb_load_gemm_create(int n, cudaStream_t s);
void cb_load_gemm_run(cb_load_gemm *g);
void cb_load_gemm_destroy(cb_load_gemm *g);

#ifdef __cplusplus
}
#endif

#endif
