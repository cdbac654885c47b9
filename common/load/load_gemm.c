/* The gemm load (load.h): C = A B of n x n bf16 matrices through cuBLAS,
 * fp32 accumulation, the GEMM of a transformer's layers. cuBLAS is opened
 * at run time (load_cublas.c); where it cannot run, the gemm load is
 * refused as unavailable, with the reason, before any GPU work, and these
 * are never called. */
#include <stdlib.h>

#include "cuda_check.h"
#include "error.h"
#include "load_cublas.h"
#include "load_parts.h"

#ifdef CB_HAVE_CUBLAS

/* A cuBLAS call of the load g, which fails with cuBLAS's words for it. */
#define CB_CUBLAS(call)                                                                            \
  do {                                                                                             \
    cublasStatus_t cb_cublas_rc_ = (call);                                                         \
    if (cb_cublas_rc_ != CUBLAS_STATUS_SUCCESS)                                                    \
      cb_die(__FILE__, __LINE__, #call, g->api->status_string(cb_cublas_rc_));                     \
  } while (0)

struct cb_load_gemm {
  const cb_cublas_api *api;
  cublasHandle_t handle;
  void *a, *b, *c;
  int n;
};

cb_load_gemm *cb_load_gemm_create(int n, cudaStream_t s) {
  const cb_cublas_api *api = cb_cublas();
  if (!api) cb_fatal("the gemm load cannot run: %s", cb_load_gemm_unavailable());
  cb_load_gemm *g = calloc(1, sizeof *g);
  if (!g) cb_fatal("out of host memory");
  const size_t elems = (size_t)n * (size_t)n, bytes = elems * 2;
  g->n = n;
  g->api = api;
  CB_CUDA(cudaMalloc(&g->a, bytes));
  CB_CUDA(cudaMalloc(&g->b, bytes));
  CB_CUDA(cudaMalloc(&g->c, bytes));
  cb_load_fill(g->a, elems, 1, s);
  cb_load_fill(g->b, elems, 1, s);
  CB_CUBLAS(g->api->create(&g->handle));
  CB_CUBLAS(g->api->set_stream(g->handle, s));
  return g;
}

void cb_load_gemm_run(cb_load_gemm *g) {
  const float alpha = 1.0f, beta = 0.0f;
  CB_CUBLAS(g->api->gemm_ex(g->handle, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->n, g->n, &alpha, g->a,
                            CUDA_R_16BF, g->n, g->b, CUDA_R_16BF, g->n, &beta, g->c, CUDA_R_16BF,
                            g->n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void cb_load_gemm_destroy(cb_load_gemm *g) {
  CB_CUBLAS(g->api->destroy(g->handle));
  CB_CUDA(cudaFree(g->a));
  CB_CUDA(cudaFree(g->b));
  CB_CUDA(cudaFree(g->c));
  free(g);
}

#else

struct cb_load_gemm {
  int unused;
};

cb_load_gemm *cb_load_gemm_create(int n, cudaStream_t s) {
  (void)n, (void)s;
  cb_fatal("the gemm load was asked for in a build without cuBLAS");
}

void cb_load_gemm_run(cb_load_gemm *g) {
  (void)g;
}

void cb_load_gemm_destroy(cb_load_gemm *g) {
  (void)g;
}

#endif
