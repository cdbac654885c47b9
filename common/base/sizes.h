/* Message sizes: parsing "8", "64K", "1G" and generating the -b..-e sweep. */
#ifndef CB_SIZES_H
#define CB_SIZES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest byte count a size option takes: 2^62 (4294967296G). Every
 * buffer of a message of n bytes holds at most n bytes, and the harness adds
 * send and receive buffers, so no byte count derived from a size can wrap
 * (2^63, say, would: its two buffers add up to 2^64, which is 0). */
#define CB_SIZE_MAX      (UINT64_C(1) << 62)
#define CB_SIZE_MAX_TEXT "4294967296G"

/* What cb_parse_size found. */
typedef enum {
  CB_SIZE_OK = 0,
  CB_SIZE_BAD = -1,       /* not a byte count */
  CB_SIZE_TOO_LARGE = -2, /* a byte count above CB_SIZE_MAX */
  CB_SIZE_FRACTION = -3,  /* a fraction that is no whole number of bytes: 1.3K */
} cb_size_parse;

/* Parses a byte count (0 included: -i may be 0) with an optional K, M or G
 * suffix (binary units; as nccl-tests, no T: no GPU holds a TiB buffer) and,
 * as nccl-tests, an optional fraction ("1.5M", ".5K") where it makes whole
 * bytes (nccl-tests truncates 1.3K to 1331; that is refused here). Sets
 * *out only on CB_SIZE_OK. */
cb_size_parse cb_parse_size(const char *text, uint64_t *out);

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
