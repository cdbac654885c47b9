/* cuBLAS for the gemm load, opened at run time, as NVML and GDRCopy are: no
 * program needs it to start, and where it is missing the gemm load is
 * refused as unavailable with the reason (cb_load_gemm_unavailable,
 * load_options.h). The build needs only its header (CB_HAVE_CUBLAS).
 * Internal to common/load/; no CUDA runtime calls here, so the CPU tests
 * that read the options link it. */
#ifndef CB_LOAD_CUBLAS_H
#define CB_LOAD_CUBLAS_H

#ifdef CB_HAVE_CUBLAS
#include <cublas_v2.h> /* types and constants; the library is opened, not linked */

#ifdef __cplusplus
extern "C" {
#endif

/* The functions the gemm load calls, by their exported names (cublas_v2.h
 * maps cublasCreate and the others to their _v2 symbols). */
typedef struct {
  cublasStatus_t (*create)(cublasHandle_t *);
  cublasStatus_t (*destroy)(cublasHandle_t);
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void *, const void *, cudaDataType, int, const void *,
                            cudaDataType, int, const void *, void *, cudaDataType, int,
                            cublasComputeType_t, cublasGemmAlgo_t);
  const char *(*status_string)(cublasStatus_t);
} cb_cublas_api;

/* The first call opens cuBLAS ($CB_CUBLAS_LIB, else libcublas.so.N of the
 * headers' major version N, else libcublas.so) and finds every function;
 * NULL where that failed (cb_load_gemm_unavailable says why). Thread-safe. */
const cb_cublas_api *cb_cublas(void);

#ifdef __cplusplus
}
#endif

#endif

#endif
