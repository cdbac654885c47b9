/* copy_perf's command line: nccl-tests' size, iteration and output options,
 * plus the copy's own: -D direction, -W window, --pageable, --osu. Parsed
 * and checked without touching a GPU. No CUDA here, so CPU tests use it. */
#ifndef CB_COPY_OPTIONS_H
#define CB_COPY_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "option_parse.h" /* CB_PATH_MAX, cb_opts_result */
#include "sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a copy goes: host to this GPU, this GPU to host, this GPU to its peer. */
typedef enum { CB_H2D, CB_D2H, CB_D2D, CB_NUM_DIRS } cb_copy_dir;

#define CB_DIR_BIT(d) (1u << (d))
#define CB_ALL_DIRS   ((1u << CB_NUM_DIRS) - 1u)

const char *cb_copy_dir_name(cb_copy_dir d);
/* Parses "all" or a comma list of h2d, d2h, d2d into a mask; 0 on an
 * unknown or empty word, or one named twice (*twice set), whose text is
 * copied into bad (bad_len bytes). */
unsigned cb_copy_dir_mask_parse(const char *list, char *bad, size_t bad_len, int *twice);

#define CB_COPY_WINDOW_DEFAULT 64 /* osu_bw's window */
#define CB_COPY_WINDOW_MAX     65536

typedef struct {
  cb_sweep sweep;        /* -b -e -i -f */
  int iters;             /* -n: timed iterations per size (latency samples, bandwidth windows) */
  int warmup;            /* -w: warm-up iterations per size */
  int check;             /* -c: validation rounds after timing (0 = off) */
  int gpus;              /* -g: GPUs driven by this process, one host thread each */
  int timeout_s;         /* -T: bound on any wait for a GPU or the CPU side of a copy */
  unsigned dirs;         /* -D: mask of CB_DIR_BIT */
  int dirs_named;        /* -D named directions (not "all"): one that cannot run is an error */
  int window;            /* -W: copies in flight per bandwidth iteration */
  int post_gap_ns;       /* --post_gap: latency copies posted after a random 0..N ns (post_gap.h) */
  int pageable;          /* --pageable: host buffers from malloc instead of cudaHostAlloc */
  int osu;               /* --osu: print osu_bw's and osu_latency's layout instead of the table */
  int overlap;           /* --overlap: a cb_load_kind beside every bandwidth measurement (load.h) */
  uint64_t overlap_size; /* --overlap_size: the load's size (its default when not given) */
  char kernels[256];     /* -k: as typed */
  char json_path[CB_PATH_MAX]; /* -J */
  char csv_path[CB_PATH_MAX];  /* --csv */
} cb_copy_options;

void cb_copy_options_defaults(cb_copy_options *o);

/* Parses argv into o; on CB_OPTS_ERROR, err (err_len bytes) holds one line
 * saying what is wrong. */
cb_opts_result cb_copy_options_parse(int argc, char **argv, cb_copy_options *o, char *err,
                                     size_t err_len);

void cb_copy_options_usage(FILE *out, const char *prog);

/* Every option that changes what is run, on one line, as the user types them
 * ("-b 8; -e 8; ...; -D h2d,d2h; ..."): processes compare it. */
void cb_copy_options_canonical(const cb_copy_options *o, char *buf, size_t len);

/* Bytes one bandwidth iteration moves: window copies of bytes each. */
static inline uint64_t cb_copy_window_bytes(uint64_t bytes, int window) {
  return bytes * (uint64_t)window;
}

/* GB/s (10^9 B/s) for copies of bytes each taking us microseconds per copy. */
static inline double cb_copy_gbps(uint64_t bytes, double us) {
  return us > 0 ? (double)bytes / 1e3 / us : 0.0;
}

#ifdef __cplusplus
}
#endif

#endif
