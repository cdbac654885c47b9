#include "copy_pattern.h"

#include <string.h>

/* A word at a time (memcpy: buf need not be aligned, and compiles to one
 * 8-byte access), then the tail byte by byte. Little-endian, as x86 and
 * the GPU: the word's low byte is the lowest address. */
void cb_copy_pattern_fill(void *buf, size_t bytes, uint32_t seed, int invert) {
  unsigned char *p = buf;
  uint64_t flip = invert ? ~0ull : 0;
  size_t words = bytes / 8;
  for (size_t w = 0; w < words; w++) {
    uint64_t v = cb_copy_pattern_word(w, seed) ^ flip;
    memcpy(p + 8 * w, &v, 8);
  }
  for (size_t i = 8 * words; i < bytes; i++) p[i] = cb_copy_pattern_byte(i, seed) ^ (uint8_t)flip;
}

long long cb_copy_pattern_check(const void *buf, size_t bytes, uint32_t seed) {
  const unsigned char *p = buf;
  long long wrong = 0;
  size_t words = bytes / 8;
  for (size_t w = 0; w < words; w++) {
    uint64_t v, want = cb_copy_pattern_word(w, seed);
    memcpy(&v, p + 8 * w, 8);
    if (v == want) continue;
    for (int b = 0; b < 8; b++) wrong += (uint8_t)(v >> (8 * b)) != (uint8_t)(want >> (8 * b));
  }
  for (size_t i = 8 * words; i < bytes; i++) wrong += p[i] != cb_copy_pattern_byte(i, seed);
  return wrong;
}

long long cb_copy_pattern_check_guard(const void *buf, size_t bytes, uint32_t seed) {
  const unsigned char *p = buf;
  long long changed = 0;
  for (size_t i = bytes; i < bytes + CB_COPY_GUARD_BYTES; i++) {
    const uint8_t poison = (uint8_t)(0xFFu - cb_copy_pattern_byte(i, seed));
    changed += p[i] != poison;
  }
  return changed;
}
