/* Message sizes: parsing "8", "64K", "1G" and generating the -b..-e sweep. */
#ifndef CB_SIZES_H
#define CB_SIZES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parses a byte count (0 included: -i may be 0) with an optional K/M/G suffix (binary units,
 * as nccl-tests). Returns 0 and sets *out on success, -1 on bad text. */
int cb_parse_size(const char *text, uint64_t *out);

/* Formats bytes compactly for messages: "512 B", "64 KiB", "1 GiB", "1.50 MiB". */
void cb_format_bytes(uint64_t bytes, char *buf, size_t len);

typedef struct {
  uint64_t min_bytes, max_bytes;
  uint64_t step_factor; /* > 1: geometric sweep */
  uint64_t step_bytes;  /* used when step_factor <= 1 */
} cb_sweep;

/* Number of sizes in the sweep (min, then *factor or +step while <= max). */
size_t cb_sweep_count(const cb_sweep *s);
/* The i-th size of the sweep; i < cb_sweep_count(s). */
uint64_t cb_sweep_size(const cb_sweep *s, size_t i);

#ifdef __cplusplus
}
#endif

#endif
