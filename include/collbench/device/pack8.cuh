/* 8-byte pieces of a run of bytes, as LL16 packets carry them: piece i is
 * bytes [8i, 8i+8) of the run. The last piece may be partial (read as
 * zero-filled, written only as far as the run goes), and a piece whose
 * address is not 8-byte aligned (a run at an odd offset) is moved byte by
 * byte, so any count and offset works; the harness's runs take the aligned
 * 8-byte path everywhere. */
#ifndef CB_DEVICE_PACK8_CUH
#define CB_DEVICE_PACK8_CUH

#include <stddef.h>
#include <stdint.h>

__device__ __forceinline__ uint2 cb_load_pack8(const void *run, size_t i, size_t bytes) {
  const size_t off = i * 8;
  const unsigned char *c = (const unsigned char *)run + off;
  if (off + 8 <= bytes && ((uintptr_t)c & 7) == 0) return *(const uint2 *)c;
  uint2 v = make_uint2(0, 0);
  const size_t len = bytes - off < 8 ? bytes - off : 8;
  for (size_t k = 0; k < len; k++) ((unsigned char *)&v)[k] = c[k];
  return v;
}

__device__ __forceinline__ void cb_store_pack8(void *run, size_t i, size_t bytes, uint2 v) {
  const size_t off = i * 8;
  unsigned char *c = (unsigned char *)run + off;
  if (off + 8 <= bytes && ((uintptr_t)c & 7) == 0) {
    *(uint2 *)c = v;
    return;
  }
  const size_t len = bytes - off < 8 ? bytes - off : 8;
  for (size_t k = 0; k < len; k++) c[k] = ((const unsigned char *)&v)[k];
}

#endif
