#define _POSIX_C_SOURCE 200809L /* setenv */
/* The GDRCopy loader's every path, with stub libraries built beside this
 * test: no library, a 1.x library (no version call, and a version call that
 * says 1), a missing entry point, gdr_open failing, and success. Also the
 * 64 KiB pinning range. argv: ok, no_version, major1, open_fails, no_map. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gdrcopy.h"

static int load_with(const char *lib, char *why, size_t len, cb_gdrcopy *gc) {
  if (lib)
    setenv("CB_GDRAPI_LIB", lib, 1);
  else
    unsetenv("CB_GDRAPI_LIB");
  why[0] = '\0';
  return cb_gdrcopy_load(gc, why, len);
}

static void expect_failure(const char *lib, const char *want) {
  cb_gdrcopy gc;
  char why[256];
  CHECK_EQ_INT(load_with(lib, why, sizeof why, &gc), -1);
  CHECK_CONTAINS(why, want);
  CHECK(gc.lib == NULL && gc.g == NULL); /* nothing left open */
}

static void test_paths(char **stub) {
  const char *ok = stub[1], *no_version = stub[2], *major1 = stub[3], *open_fails = stub[4],
             *no_map = stub[5];
  expect_failure("/nonexistent/libgdrapi.so", "GDRCopy library not found (CB_GDRAPI_LIB=");
  expect_failure(no_version, "GDRCopy 1.x found");
  expect_failure(no_version, "need 2.0 or later");
  expect_failure(major1, "GDRCopy 1.4 found: need 2.0 or later");
  expect_failure(no_map, "libgdrapi lacks gdr_map");
  /* gdr_open failing: the reason depends on whether the driver node exists. */
  expect_failure(open_fails, access("/dev/gdrdrv", F_OK) == 0
                                 ? "gdr_open() failed although /dev/gdrdrv exists"
                                 : "gdrdrv not loaded: /dev/gdrdrv missing");

  cb_gdrcopy gc;
  char why[256];
  CHECK_EQ_INT(load_with(ok, why, sizeof why, &gc), 0);
  CHECK_EQ_INT(gc.major, 2);
  CHECK_EQ_INT(gc.minor, 4);
  CHECK(gc.g != NULL && gc.map != NULL && gc.copy_to_mapping != NULL && gc.close != NULL);
  cb_gdrcopy_unload(&gc);
  CHECK(gc.lib == NULL);

  /* No override: the standard names; on a machine without GDRCopy, "not found". */
  void *real = dlopen("libgdrapi.so.2", RTLD_NOW);
  if (!real) real = dlopen("libgdrapi.so", RTLD_NOW);
  if (!real) {
    expect_failure(NULL, "neither libgdrapi.so.2 nor libgdrapi.so loads");
  } else {
    dlclose(real);
    int rc = load_with(NULL, why, sizeof why, &gc);
    CHECKF(rc == 0 || strstr(why, "gdrdrv") || strstr(why, "gdr_open"), "unexpected: %s", why);
    if (rc == 0) cb_gdrcopy_unload(&gc);
  }
}

static void test_pin_range(void) {
  uint64_t a;
  size_t s;
  cb_gdrcopy_pin_range(0x10000, 1, &a, &s);
  CHECK_EQ_U64(a, 0x10000);
  CHECK_EQ_U64(s, 0x10000);
  cb_gdrcopy_pin_range(0x10001, 0x10000, &a, &s); /* straddles two pages */
  CHECK_EQ_U64(a, 0x10000);
  CHECK_EQ_U64(s, 0x20000);
  cb_gdrcopy_pin_range(0x2ffff, 2, &a, &s);
  CHECK_EQ_U64(a, 0x20000);
  CHECK_EQ_U64(s, 0x20000);
  cb_gdrcopy_pin_range(0x7f0000000000ull, 0x30000, &a, &s); /* already aligned */
  CHECK_EQ_U64(a, 0x7f0000000000ull);
  CHECK_EQ_U64(s, 0x30000);
  CHECK_EQ_U64(CB_GPU_PAGE_SIZE, 65536);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s OK NO_VERSION MAJOR1 OPEN_FAILS NO_MAP (stub libraries)\n", argv[0]);
    return 2;
  }
  test_paths(argv);
  test_pin_range();
  return check_summary();
}
