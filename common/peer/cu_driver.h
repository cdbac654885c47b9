/* The few CUDA driver API calls that peer memory through cuMem needs (and
 * copy_perf's gdrcopy kernel, cuPointerSetAttribute), taken from the
 * runtime's driver entry point table (cudaGetDriverEntryPoint): the programs do not
 * link libcuda, so they still start, list their kernels and refuse bad
 * options on a machine without a driver (CI, this suite's CPU tests), where a
 * libcuda linked at build time (even the toolkit's stub) cannot be loaded.
 *
 * CB_CU(fn, (args)) calls the entry point fn and, on failure, stops with one
 * line naming the call and the driver's own error string (cuGetErrorString). */
#ifndef CB_CU_DRIVER_H
#define CB_CU_DRIVER_H

#include <stddef.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The entry points, each named after its driver call. */
typedef struct {
  PFN_cuGetErrorString_v6000 cuGetErrorString;
  PFN_cuDeviceGet_v2000 cuDeviceGet;
  PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute;
  PFN_cuMemGetAllocationGranularity_v10020 cuMemGetAllocationGranularity;
  PFN_cuMemCreate_v10020 cuMemCreate;
  PFN_cuMemRelease_v10020 cuMemRelease;
  PFN_cuMemAddressReserve_v10020 cuMemAddressReserve;
  PFN_cuMemAddressFree_v10020 cuMemAddressFree;
  PFN_cuMemMap_v10020 cuMemMap;
  PFN_cuMemUnmap_v10020 cuMemUnmap;
  PFN_cuMemSetAccess_v10020 cuMemSetAccess;
  PFN_cuMemExportToShareableHandle_v10020 cuMemExportToShareableHandle;
  PFN_cuMemImportFromShareableHandle_v10020 cuMemImportFromShareableHandle;
  PFN_cuMemRetainAllocationHandle_v11000 cuMemRetainAllocationHandle;
  PFN_cuPointerSetAttribute_v6000 cuPointerSetAttribute; /* copy_perf -k gdrcopy */
} cb_cu_api;

/* The table, loaded once per process (thread safe); NULL when the driver
 * lacks one of the calls, with why set (the first missing call). */
const cb_cu_api *cb_cu_load(const char **why);
/* The table; stops the program when it cannot be loaded. */
const cb_cu_api *cb_cu(void);

/* The properties of pinned device memory on device, exportable as
 * handle_types (a CUmemAllocationHandleType mask): what every cuMem call of
 * peer memory (allocation, granularity, import, the trial of a mapping)
 * describes its memory with. */
CUmemAllocationProp cb_cu_device_prop(int device, unsigned handle_types);

/* The driver's own text for rc ("unknown error" where it has none, or the
 * table is not loaded). */
const char *cb_cu_error_string(CUresult rc);

/* Stops with "call: <the driver's error string> (CUresult N)". */
__attribute__((noreturn)) void cb_cu_die(const char *file, int line, const char *call, CUresult rc);

#define CB_CU(fn, args)                                                                            \
  do {                                                                                             \
    CUresult cb_cu_rc_ = cb_cu()->fn args;                                                         \
    if (cb_cu_rc_ != CUDA_SUCCESS) cb_cu_die(__FILE__, __LINE__, #fn #args, cb_cu_rc_);            \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif
