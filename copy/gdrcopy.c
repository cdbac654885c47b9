#define _GNU_SOURCE /* RTLD_* */
#include "gdrcopy.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GDRDRV_NODE "/dev/gdrdrv"

/* Names tried in order when $CB_GDRAPI_LIB is not set: the 2.x soname, then
 * the development link. */
static const char *const lib_names[] = {"libgdrapi.so.2", "libgdrapi.so"};

/* Opens the library; *name says which one it was. */
static void *open_library(const char **name, char *why, size_t len) {
  const char *forced = getenv("CB_GDRAPI_LIB");
  if (forced) {
    void *lib = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      snprintf(why, len, "GDRCopy library not found (CB_GDRAPI_LIB=%s: %s)", forced, dlerror());
    *name = forced;
    return lib;
  }
  for (size_t i = 0; i < sizeof lib_names / sizeof lib_names[0]; i++) {
    void *lib = dlopen(lib_names[i], RTLD_NOW | RTLD_LOCAL);
    *name = lib_names[i];
    if (lib) return lib;
  }
  snprintf(why, len, "GDRCopy library not found (neither libgdrapi.so.2 nor libgdrapi.so loads)");
  return NULL;
}

/* Every symbol collbench calls, by name, with where it goes. */
#define SYM(name)                                                                                  \
  { "gdr_" #name, offsetof(cb_gdrcopy, name) }
static const struct {
  const char *name;
  size_t offset;
} symbols[] = {
    SYM(open), SYM(close), SYM(pin_buffer),      SYM(unpin_buffer),
    SYM(map),  SYM(unmap), SYM(copy_to_mapping), SYM(copy_from_mapping),
};
#undef SYM

static int fail(cb_gdrcopy *gc, char *why, size_t len, const char *fmt, const char *arg) {
  snprintf(why, len, fmt, arg);
  cb_gdrcopy_unload(gc);
  return -1;
}

int cb_gdrcopy_load(cb_gdrcopy *gc, char *why, size_t len) {
  const char *name;
  memset(gc, 0, sizeof *gc);
  if (!(gc->lib = open_library(&name, why, len))) return -1;
  /* gdr_runtime_get_version arrived in 2.0: without it the library is 1.x. */
  void *version = dlsym(gc->lib, "gdr_runtime_get_version");
  if (!version)
    return fail(gc, why, len,
                "GDRCopy 1.x found (%s has no gdr_runtime_get_version): need 2.0 or later", name);
  memcpy(&gc->runtime_get_version, &version, sizeof version);
  gc->runtime_get_version(&gc->major, &gc->minor);
  if (gc->major < 2) {
    char v[32];
    snprintf(v, sizeof v, "%d.%d", gc->major, gc->minor);
    return fail(gc, why, len, "GDRCopy %s found: need 2.0 or later", v);
  }
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
    void *f = dlsym(gc->lib, symbols[i].name);
    if (!f) return fail(gc, why, len, "libgdrapi lacks %s", symbols[i].name);
    memcpy((char *)gc + symbols[i].offset, &f, sizeof f);
  }
  if (!(gc->g = gc->open())) {
    if (access(GDRDRV_NODE, F_OK) != 0)
      return fail(gc, why, len, "gdrdrv not loaded: %s missing", GDRDRV_NODE);
    return fail(gc, why, len, "gdr_open() failed although %s exists (permissions?)", GDRDRV_NODE);
  }
  return 0;
}

void cb_gdrcopy_unload(cb_gdrcopy *gc) {
  if (gc->g && gc->close) gc->close(gc->g);
  if (gc->lib) dlclose(gc->lib);
  memset(gc, 0, sizeof *gc);
}

void cb_gdrcopy_pin_range(uint64_t addr, size_t size, uint64_t *pin_addr, size_t *pin_size) {
  uint64_t mask = CB_GPU_PAGE_SIZE - 1;
  uint64_t start = addr & ~mask;
  uint64_t end = (addr + size + mask) & ~mask;
  *pin_addr = start;
  *pin_size = (size_t)(end - start);
}
