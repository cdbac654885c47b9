/* GDRCopy (libgdrapi), loaded at run time: collbench has no link-time
 * dependency on it. copy_perf's gdrcopy kernel uses it where it loads;
 * everywhere else the kernel lists itself unavailable with the reason. */
#ifndef CB_GDRCOPY_H
#define CB_GDRCOPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* GDRCopy maps GPU memory in GPU pages of 64 KiB: a pinned range must start
 * on a GPU page, and a mapping covers whole pages. */
#define CB_GPU_PAGE_SHIFT 16
#define CB_GPU_PAGE_SIZE  (1ul << CB_GPU_PAGE_SHIFT)

/* The library's opaque types, as its ABI passes them. */
typedef struct cb_gdr *cb_gdr_t;
typedef struct {
  unsigned long h;
} cb_gdr_mh_t;

/* The entry points collbench uses, and the open handle. */
typedef struct {
  void *lib; /* dlopen handle */
  int major, minor;
  cb_gdr_t g; /* from gdr_open() */
  cb_gdr_t (*open)(void);
  int (*close)(cb_gdr_t);
  int (*pin_buffer)(cb_gdr_t, unsigned long addr, size_t size, uint64_t p2p_token,
                    uint32_t va_space, cb_gdr_mh_t *handle);
  int (*unpin_buffer)(cb_gdr_t, cb_gdr_mh_t);
  int (*map)(cb_gdr_t, cb_gdr_mh_t, void **va, size_t size);
  int (*unmap)(cb_gdr_t, cb_gdr_mh_t, void *va, size_t size);
  int (*copy_to_mapping)(cb_gdr_mh_t, void *map_d_ptr, const void *h_ptr, size_t size);
  int (*copy_from_mapping)(cb_gdr_mh_t, void *h_ptr, const void *map_d_ptr, size_t size);
  void (*runtime_get_version)(int *major, int *minor);
} cb_gdrcopy;

/* Loads libgdrapi ($CB_GDRAPI_LIB if set, else libgdrapi.so.2, then
 * libgdrapi.so), checks that it is 2.x or later and opens the driver.
 * Returns 0, or -1 with why (why_len bytes) saying precisely what is
 * missing: the library, a 1.x version, or the gdrdrv driver. */
int cb_gdrcopy_load(cb_gdrcopy *gc, char *why, size_t why_len);
void cb_gdrcopy_unload(cb_gdrcopy *gc);

/* The GPU-page-aligned range to pin for [addr, addr + size): GDRCopy pins
 * whole 64 KiB pages, starting on one. */
void cb_gdrcopy_pin_range(uint64_t addr, size_t size, uint64_t *pin_addr, size_t *pin_size);

#ifdef __cplusplus
}
#endif

#endif
