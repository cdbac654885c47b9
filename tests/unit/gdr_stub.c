/* A stand-in for libgdrapi, built several ways to drive every failure path
 * of the loader (copy/gdrcopy.c):
 *   STUB_NO_VERSION   no gdr_runtime_get_version (GDRCopy 1.x)
 *   STUB_MAJOR=N      the version it reports (default 2)
 *   STUB_OPEN_FAILS   gdr_open() returns NULL (driver not loaded)
 *   STUB_NO_MAP       no gdr_map symbol */
#include <stddef.h>
#include <stdint.h>

#ifndef STUB_MAJOR
#define STUB_MAJOR 2
#endif

static int handle;

void *gdr_open(void) {
#ifdef STUB_OPEN_FAILS
  return NULL;
#else
  return &handle;
#endif
}
int gdr_close(void *g) {
  return g == &handle ? 0 : -1;
}
int gdr_pin_buffer(void *g, unsigned long a, size_t s, uint64_t t, uint32_t v, void *h) {
  (void)g, (void)a, (void)s, (void)t, (void)v, (void)h;
  return 0;
}
int gdr_unpin_buffer(void *g, unsigned long h) {
  (void)g, (void)h;
  return 0;
}
#ifndef STUB_NO_MAP
int gdr_map(void *g, unsigned long h, void **va, size_t s) {
  (void)g, (void)h, (void)va, (void)s;
  return 0;
}
#endif
int gdr_unmap(void *g, unsigned long h, void *va, size_t s) {
  (void)g, (void)h, (void)va, (void)s;
  return 0;
}
int gdr_copy_to_mapping(unsigned long h, void *d, const void *s, size_t n) {
  (void)h, (void)d, (void)s, (void)n;
  return 0;
}
int gdr_copy_from_mapping(unsigned long h, void *d, const void *s, size_t n) {
  (void)h, (void)d, (void)s, (void)n;
  return 0;
}
#ifndef STUB_NO_VERSION
void gdr_runtime_get_version(int *major, int *minor) {
  *major = STUB_MAJOR;
  *minor = 4;
}
#endif
