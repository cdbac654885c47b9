#include "cumem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "cu_driver.h"
#include "cuda_check.h"
#include "error.h"

size_t cb_cumem_round_up(size_t bytes, size_t granularity) {
  if (granularity == 0) cb_fatal("cuMem allocation granularity of 0 bytes");
  if (bytes == 0) return granularity;
  size_t units = bytes / granularity + (bytes % granularity != 0);
  if (units > SIZE_MAX / granularity)
    cb_fatal("%zu bytes cannot be rounded to %zu", bytes, granularity);
  return units * granularity;
}

/* ---- the registry: every live allocation of this process ---------------- */

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static cb_cumem_region *reg;
static size_t reg_n, reg_cap;

void cb_cumem_register(const cb_cumem_region *r) {
  pthread_mutex_lock(&reg_lock);
  if (reg_n == reg_cap) {
    size_t cap = reg_cap ? 2 * reg_cap : 16;
    cb_cumem_region *grown = realloc(reg, cap * sizeof *grown);
    if (!grown) cb_fatal("out of host memory");
    reg = grown;
    reg_cap = cap;
  }
  reg[reg_n++] = *r;
  pthread_mutex_unlock(&reg_lock);
}

void cb_cumem_unregister(const void *base) {
  pthread_mutex_lock(&reg_lock);
  for (size_t i = 0; i < reg_n; i++)
    if (reg[i].base == base) {
      reg[i] = reg[--reg_n];
      break;
    }
  pthread_mutex_unlock(&reg_lock);
}

int cb_cumem_find(const void *ptr, cb_cumem_region *out) {
  int found = -1;
  uintptr_t p = (uintptr_t)ptr;
  pthread_mutex_lock(&reg_lock);
  for (size_t i = 0; i < reg_n && found < 0; i++) {
    uintptr_t b = (uintptr_t)reg[i].base;
    if (p >= b && p - b < reg[i].size) {
      *out = reg[i];
      found = 0;
    }
  }
  pthread_mutex_unlock(&reg_lock);
  return found;
}

/* ---- allocation ----------------------------------------------------------- */

/* Read and write for device and every device that can reach it peer to
 * peer: the ranks of this process on other GPUs use the pointer as it is
 * (the importers in other processes set their own access). */
static void grant_access(CUdeviceptr va, size_t size, int device) {
  int ndev = 0;
  CB_CUDA(cudaGetDeviceCount(&ndev));
  CUmemAccessDesc *desc = calloc((size_t)ndev, sizeof *desc);
  if (!desc) cb_fatal("out of host memory");
  size_t n = 0;
  for (int d = 0; d < ndev; d++) {
    int can = d == device;
    if (!can) CB_CUDA(cudaDeviceCanAccessPeer(&can, d, device));
    if (!can) continue;
    desc[n].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc[n].location.id = d;
    desc[n].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    n++;
  }
  CB_CU(cuMemSetAccess, (va, size, desc, n));
  free(desc);
}

void *cb_cumem_alloc(size_t bytes, int device, unsigned handle_types) {
  CUmemAllocationProp prop = cb_cu_device_prop(device, handle_types);
  size_t gran = 0;
  CB_CU(cuMemGetAllocationGranularity, (&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  size_t size = cb_cumem_round_up(bytes, gran);
  CUmemGenericAllocationHandle h;
  CB_CU(cuMemCreate, (&h, size, &prop, 0));
  CUdeviceptr va = 0;
  CB_CU(cuMemAddressReserve, (&va, size, gran, 0, 0));
  CB_CU(cuMemMap, (va, size, 0, h, 0));
  /* The mapping holds the memory from here on; cb_peer_share takes the
   * handle back with cuMemRetainAllocationHandle when it exports it. */
  CB_CU(cuMemRelease, (h));
  grant_access(va, size, device);
  cb_cumem_region r = {(void *)(uintptr_t)va, size, device, handle_types};
  cb_cumem_register(&r);
  return r.base;
}

void cb_cumem_free(void *base) {
  cb_cumem_region r;
  if (cb_cumem_find(base, &r) != 0 || r.base != base)
    cb_fatal("cb_cumem_free(%p): not the base of a cuMem allocation of this process", base);
  cb_cumem_unregister(base);
  /* Work queued on the memory must be done before it goes. */
  CB_CUDA(cudaDeviceSynchronize());
  CB_CU(cuMemUnmap, ((CUdeviceptr)(uintptr_t)base, r.size));
  CB_CU(cuMemAddressFree, ((CUdeviceptr)(uintptr_t)base, r.size));
}
