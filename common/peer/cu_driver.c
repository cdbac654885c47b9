#include "cu_driver.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "error.h"

static cb_cu_api api;
static const char *api_why; /* NULL once loaded */
static char api_why_buf[160];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

/* One entry point at the ABI of the given CUDA version (the one its PFN
 * typedef names). 0 on success. */
static int entry(const char *name, int version, void *slot, size_t slot_size) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  cudaError_t rc =
      cudaGetDriverEntryPointByVersion(name, &fn, (unsigned)version, cudaEnableDefault, &found);
#else
  (void)version;
  cudaError_t rc = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &found);
#endif
  if (rc != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn) {
    (void)cudaGetLastError(); /* not sticky: clear it for later checks */
    snprintf(api_why_buf, sizeof api_why_buf, "the CUDA driver has no %s entry point (%s)", name,
             rc != cudaSuccess ? cudaGetErrorString(rc) : "symbol not found");
    return -1;
  }
  memcpy(slot, &fn, slot_size); /* a data pointer to a function pointer: POSIX allows it */
  return 0;
}

#define ENTRY(fn, version) entry(#fn, version, &api.fn, sizeof api.fn)

static void load_once(void) {
  if (ENTRY(cuGetErrorString, 6000) || ENTRY(cuDeviceGet, 2000) ||
      ENTRY(cuDeviceGetAttribute, 2000) || ENTRY(cuMemGetAllocationGranularity, 10020) ||
      ENTRY(cuMemCreate, 10020) || ENTRY(cuMemRelease, 10020) ||
      ENTRY(cuMemAddressReserve, 10020) || ENTRY(cuMemAddressFree, 10020) ||
      ENTRY(cuMemMap, 10020) || ENTRY(cuMemUnmap, 10020) || ENTRY(cuMemSetAccess, 10020) ||
      ENTRY(cuMemExportToShareableHandle, 10020) || ENTRY(cuMemImportFromShareableHandle, 10020) ||
      ENTRY(cuMemRetainAllocationHandle, 11000) || ENTRY(cuPointerSetAttribute, 6000)) {
    api_why = api_why_buf;
    return;
  }
  api_why = NULL;
}

const cb_cu_api *cb_cu_load(const char **why) {
  pthread_once(&api_once, load_once);
  if (why) *why = api_why;
  return api_why ? NULL : &api;
}

const cb_cu_api *cb_cu(void) {
  const char *why;
  const cb_cu_api *a = cb_cu_load(&why);
  if (!a) cb_fatal("%s", why);
  return a;
}

const char *cb_cu_error_string(CUresult rc) {
  const char *text = NULL;
  if (!api_why && api.cuGetErrorString && api.cuGetErrorString(rc, &text) != CUDA_SUCCESS)
    text = NULL;
  return text ? text : "unknown error";
}

void cb_cu_die(const char *file, int line, const char *call, CUresult rc) {
  char what[256];
  snprintf(what, sizeof what, "%s (CUresult %d)", cb_cu_error_string(rc), (int)rc);
  cb_die(file, line, call, what);
}

CUmemAllocationProp cb_cu_device_prop(int device, unsigned handle_types) {
  CUmemAllocationProp prop = {0};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = (CUmemAllocationHandleType)handle_types;
  return prop;
}
