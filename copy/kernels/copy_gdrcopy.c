/* -k 3 gdrcopy: the CPU copies through a GDRCopy mapping of device memory
 * (the GPU's BAR1 aperture, mapped write-combined into this process): h2d
 * is CPU stores (gdr_copy_to_mapping), d2h CPU loads (gdr_copy_from_mapping).
 * No stream, no launch, no wait: a copy is complete when the call returns
 * (gdr_copy_to_mapping ends with a store fence, and PCIe keeps posted
 * writes in order, so later GPU work sees the bytes).
 *
 * libgdrapi is opened at run time (copy/gdrcopy.c); where it or the
 * gdrdrv driver is missing the kernel is unavailable, with the reason.
 * GDRCopy's rules, honoured here even where it cannot run:
 *  - pin whole 64 KiB GPU pages from a page boundary: the run's device
 *    buffer starts on one (copy_runner.c) and cb_gdrcopy_pin_range rounds
 *    the length;
 *  - set CU_POINTER_ATTRIBUTE_SYNC_MEMOPS on the buffer before pinning, so
 *    that synchronous CUDA memory operations on it are ordered with the
 *    mapping's accesses. cuPointerSetAttribute comes from the driver entry
 *    point table (common/peer/cu_driver.h): no link-time dependency on
 *    libcuda either. */
#include <cuda.h> /* CUpointer_attribute, CUdeviceptr, CUresult: types only */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_kernels.h"
#include "cu_driver.h"
#include "cuda_check.h"
#include "error.h"
#include "gdrcopy.h"
#include "sizes.h"

static cb_gdrcopy gdr;
static int gdr_tried;
static char gdr_why[256];

const char *cb_copy_gdr_unavailable(void) {
  if (!gdr_tried) { /* once, from the main thread, before the rank threads start */
    gdr_tried = 1;
    if (cb_gdrcopy_load(&gdr, gdr_why, sizeof gdr_why) == 0) gdr_why[0] = '\0';
  }
  return gdr_why[0] ? gdr_why : NULL;
}

typedef struct {
  cb_gdr_mh_t mh;
  void *map;         /* the mapping of the pinned range */
  uint64_t pin_addr; /* start of the pinned range (a GPU page) */
  size_t pin_size;
  char *map_dev; /* where ctx->dev is in the mapping */
} gdr_state;

/* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS on the allocation holding ptr. */
static const char *set_sync_memops(void *ptr, char *why, size_t len) {
  const char *no_driver;
  const cb_cu_api *cu = cb_cu_load(&no_driver);
  if (!cu) {
    snprintf(why, len, "%s", no_driver);
    return why;
  }
  unsigned int one = 1;
  CUresult rc = cu->cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
                                          (CUdeviceptr)(uintptr_t)ptr);
  if (rc != CUDA_SUCCESS) {
    snprintf(why, len, "cuPointerSetAttribute(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS): %s (CUresult %d)",
             cb_cu_error_string(rc), (int)rc);
    return why;
  }
  return NULL;
}

const char *cb_copy_gdr_setup(cb_copy_ctx *ctx) {
  static char why[256];
  if (cb_copy_gdr_unavailable()) return gdr_why;
  if (set_sync_memops(ctx->dev, why, sizeof why)) return why;
  gdr_state *st = calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  size_t bytes = ctx->max_bytes ? (size_t)ctx->max_bytes : 1;
  cb_gdrcopy_pin_range((uint64_t)(uintptr_t)ctx->dev, bytes, &st->pin_addr, &st->pin_size);
  char size_s[32];
  cb_format_bytes(st->pin_size, size_s, sizeof size_s);
  int rc = gdr.pin_buffer(gdr.g, (unsigned long)st->pin_addr, st->pin_size, 0, 0, &st->mh);
  if (rc != 0) {
    snprintf(why, sizeof why,
             "gdr_pin_buffer of %s on device %d failed (%d): the GPU's BAR1 aperture may be "
             "smaller than -e",
             size_s, ctx->device, rc);
    free(st);
    return why;
  }
  rc = gdr.map(gdr.g, st->mh, &st->map, st->pin_size);
  if (rc != 0) {
    snprintf(why, sizeof why, "gdr_map of %s on device %d failed (%d)", size_s, ctx->device, rc);
    gdr.unpin_buffer(gdr.g, st->mh);
    free(st);
    return why;
  }
  /* The mapping starts at the pinned range's first byte. */
  st->map_dev = (char *)st->map + ((uint64_t)(uintptr_t)ctx->dev - st->pin_addr);
  ctx->state = st;
  return NULL;
}

void cb_copy_gdr_teardown(cb_copy_ctx *ctx) {
  gdr_state *st = ctx->state;
  if (gdr.unmap(gdr.g, st->mh, st->map, st->pin_size) != 0)
    cb_fatal("kernel %d (%s): gdr_unmap failed", ctx->kernel_id, ctx->kernel_name);
  if (gdr.unpin_buffer(gdr.g, st->mh) != 0)
    cb_fatal("kernel %d (%s): gdr_unpin_buffer failed", ctx->kernel_id, ctx->kernel_name);
  free(st);
  ctx->state = NULL;
}

void cb_copy_gdr_post(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s) {
  (void)s;
  gdr_state *st = ctx->state;
  int h2d = ctx->dir == CB_H2D;
  const char *dev = h2d ? (const char *)call->dst : (const char *)call->src;
  char *mapped = st->map_dev + (dev - (const char *)ctx->dev);
  for (int i = 0; i < copies; i++) {
    int rc = h2d ? gdr.copy_to_mapping(st->mh, mapped, call->src, call->bytes)
                 : gdr.copy_from_mapping(st->mh, call->dst, mapped, call->bytes);
    if (rc != 0)
      cb_fatal("kernel %d (%s): %s of %zu B failed (%d)", ctx->kernel_id, ctx->kernel_name,
               h2d ? "gdr_copy_to_mapping" : "gdr_copy_from_mapping", call->bytes, rc);
  }
}
