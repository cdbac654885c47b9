/* copy_perf's validation pattern on host memory: a copy of the pattern
 * checks clean at every size and alignment, the poison (its complement)
 * makes every byte wrong, single wrong bytes are counted one by one, and
 * a copy that runs past its end changes its guard. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "copy_pattern.h"

static void test_roundtrip(void) {
  const size_t sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 4095, 4096, 4097, 65537};
  unsigned char *a = malloc(65537 + CB_COPY_GUARD_BYTES), *b = malloc(65537 + CB_COPY_GUARD_BYTES);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    for (size_t off = 0; off < 3; off++) { /* host buffers need not be aligned */
      size_t n = sizes[s];
      cb_copy_pattern_fill(a + off, n, 7, 0);
      CHECKF(cb_copy_pattern_check(a + off, n, 7) == 0, "size %zu offset %zu: fill then check", n,
             off);
      cb_copy_pattern_fill(b, n, 7, 1); /* poisoned: every byte differs */
      CHECKF(cb_copy_pattern_check(b, n, 7) == (long long)n, "size %zu: poison is all wrong", n);
      memcpy(b, a + off, n);
      CHECK(cb_copy_pattern_check(b, n, 7) == 0);
      /* Byte i of the pattern does not depend on where the buffer is. */
      CHECK_EQ_INT(a[off + n - 1], cb_copy_pattern_byte(n - 1, 7));
    }
  }
  /* The guard after a copy: the poison holds until a copy runs past its
   * end, and every byte it wrote there counts. */
  for (size_t n = 0; n < 40; n += 13) {
    cb_copy_pattern_fill(b, n + CB_COPY_GUARD_BYTES, 5, 1);
    cb_copy_pattern_fill(a, n + CB_COPY_GUARD_BYTES, 5, 0); /* the source, past the copy too */
    memcpy(b, a, n);
    CHECKF(cb_copy_pattern_check_guard(b, n, 5) == 0, "size %zu: a sound copy changed its guard",
           n);
    memcpy(b, a, n + 3); /* three bytes too many */
    CHECKF(cb_copy_pattern_check_guard(b, n, 5) == 3, "size %zu: an overrun of 3 counts %lld", n,
           cb_copy_pattern_check_guard(b, n, 5));
  }
  /* One wrong byte at the start, in a word, and in the tail. */
  cb_copy_pattern_fill(a, 4097, 3, 0);
  a[0] ^= 1;
  a[100] ^= 0x80;
  a[4096] ^= 0xff;
  CHECK_EQ_INT(cb_copy_pattern_check(a, 4097, 3), 3);
  /* Rounds differ, and a shifted copy does not match. */
  CHECK(cb_copy_pattern_check(a, 4096, 4) > 4000);
  cb_copy_pattern_fill(a, 4097, 3, 0);
  CHECK(cb_copy_pattern_check(a + 1, 4096, 3) > 4000);
  /* No byte value is favoured much: 4096 bytes hit most of 256 values. */
  int seen[256] = {0}, distinct = 0;
  for (int i = 0; i < 4096; i++) seen[a[i]] = 1;
  for (int v = 0; v < 256; v++) distinct += seen[v];
  CHECK(distinct > 240);
  free(a);
  free(b);
}

int main(void) {
  test_roundtrip();
  return check_summary();
}
