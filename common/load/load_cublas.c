/* cuBLAS, opened at run time (load_cublas.h). */
#define _GNU_SOURCE /* RTLD_* */
#include "load_cublas.h"

#include "load_options.h"

#ifdef CB_HAVE_CUBLAS
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CB_STR_(x) #x
#define CB_STR(x)  CB_STR_(x)

static void *lib;
static cb_cublas_api api;
static char why[320];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

/* The names tried when $CB_CUBLAS_LIB is not set: the soname of the
 * headers' major version (the ABI they describe), then the development link. */
static const char *const lib_names[] = {"libcublas.so." CB_STR(CUBLAS_VER_MAJOR), "libcublas.so"};

static void *open_library(void) {
  const char *forced = getenv("CB_CUBLAS_LIB");
  if (forced) {
    void *l = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    if (!l)
      snprintf(why, sizeof why, "cuBLAS not loaded (CB_CUBLAS_LIB=%s: %s)", forced, dlerror());
    return l;
  }
  for (size_t i = 0; i < sizeof lib_names / sizeof lib_names[0]; i++) {
    void *l = dlopen(lib_names[i], RTLD_NOW | RTLD_LOCAL);
    if (l) return l;
  }
  snprintf(why, sizeof why,
           "cuBLAS not found at run time (neither %s nor %s loads; CB_CUBLAS_LIB names "
           "another path); fma and mem are our own kernels",
           lib_names[0], lib_names[1]);
  return NULL;
}

static int take(void *dst, const char *name) {
  void *f = dlsym(lib, name);
  if (!f) snprintf(why, sizeof why, "cuBLAS lacks %s", name);
  memcpy(dst, &f, sizeof f);
  return f != NULL;
}

static void load_api(void) {
  if (!(lib = open_library())) return;
  if (take(&api.create, "cublasCreate_v2") && take(&api.destroy, "cublasDestroy_v2") &&
      take(&api.set_stream, "cublasSetStream_v2") && take(&api.gemm_ex, "cublasGemmEx") &&
      take(&api.status_string, "cublasGetStatusString"))
    return;
  dlclose(lib);
  lib = NULL;
}

const cb_cublas_api *cb_cublas(void) {
  pthread_once(&api_once, load_api);
  return lib ? &api : NULL;
}

const char *cb_load_gemm_unavailable(void) {
  return cb_cublas() ? NULL : why;
}

#else

const char *cb_load_gemm_unavailable(void) {
  return "this build has no cuBLAS (CMake found no cublas_v2.h in the CUDA toolkit); fma and mem "
         "are our own kernels";
}

#endif
