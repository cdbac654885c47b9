/* The bytes copy_perf moves and checks. Byte i of validation round `seed`
 * is byte i % 8 (little-endian) of a 64-bit hash of (i / 8, seed), so a
 * shifted, repeated or truncated copy never matches by accident. The
 * destination is poisoned first with the complement of what it must
 * receive, so every byte a copy fails to write is counted wrong; so are
 * the CB_COPY_GUARD_BYTES after its end, which no copy may write (the
 * source holds the pattern there: a copy that runs past its end changes
 * them), and their check counts every byte that changed. Usable from
 * C (host buffers, copy_pattern.c) and CUDA (device buffers,
 * copy_pattern_dev.cu). */
#ifndef CB_COPY_PATTERN_H
#define CB_COPY_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __CUDACC__
#define CB_HOST_DEVICE __host__ __device__
#else
#define CB_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The 8 bytes at word index w (bytes 8w .. 8w+7) of round seed: splitmix64's finaliser. */
static inline CB_HOST_DEVICE uint64_t cb_copy_pattern_word(uint64_t w, uint32_t seed) {
  uint64_t x = w * 0x9e3779b97f4a7c15ull + ((uint64_t)seed << 32 | (uint64_t)(seed ^ 0x5bd1e995u));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/* Byte i of round seed. */
static inline CB_HOST_DEVICE uint8_t cb_copy_pattern_byte(uint64_t i, uint32_t seed) {
  return (uint8_t)(cb_copy_pattern_word(i >> 3, seed) >> (8 * (i & 7)));
}

/* Bytes every buffer of copy_perf holds beyond the largest copy: the guard
 * a validation poisons after a copy's end and checks. */
#define CB_COPY_GUARD_BYTES 4096

/* Host memory: writes the pattern (its complement when invert) into buf. */
void cb_copy_pattern_fill(void *buf, size_t bytes, uint32_t seed, int invert);
/* Host memory: bytes of buf that differ from the pattern. */
long long cb_copy_pattern_check(const void *buf, size_t bytes, uint32_t seed);
/* Host memory: bytes of the guard after a copy of bytes into buf
 * ([bytes, bytes + CB_COPY_GUARD_BYTES), poisoned by a fill of bytes +
 * CB_COPY_GUARD_BYTES with invert) that no longer hold the poison. */
long long cb_copy_pattern_check_guard(const void *buf, size_t bytes, uint32_t seed);

/* Device memory (this GPU's, or a peer's it can address): the same, as
 * kernels on stream. counter: a device word for the result; the check
 * synchronises stream. */
void cb_copy_pattern_fill_device(void *buf, size_t bytes, uint32_t seed, int invert,
                                 cudaStream_t stream);
long long cb_copy_pattern_check_device(const void *buf, size_t bytes, uint32_t seed,
                                       unsigned long long *counter, cudaStream_t stream);
long long cb_copy_pattern_check_guard_device(const void *buf, size_t bytes, uint32_t seed,
                                             unsigned long long *counter, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
