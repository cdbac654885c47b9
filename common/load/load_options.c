#define _GNU_SOURCE /* getopt_long, setenv */
#include "load_options.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sizes.h"

static const char *const names[CB_NUM_LOADS] = {"none", "gemm", "fma", "mem"};

const char *cb_load_name(int kind) {
  return kind >= 0 && kind < CB_NUM_LOADS ? names[kind] : "?";
}

int cb_load_parse(const char *name) {
  for (int k = 0; k < CB_NUM_LOADS; k++)
    if (strcasecmp(name, names[k]) == 0) return k; /* names: any case (options.md) */
  return -1;
}

const char *cb_load_unavailable(int kind) {
  return kind == CB_LOAD_GEMM ? cb_load_gemm_unavailable() : NULL;
}

int cb_load_named_in_args(int argc, char *const *argv) {
  static const struct option opts[] = {{"overlap", required_argument, NULL, 'o'},
                                       {"overlap_size", required_argument, NULL, 's'},
                                       {NULL, 0, NULL, 0}};
  char **copy = malloc(((size_t)argc + 1) * sizeof *copy);
  if (!copy) return 0;
  memcpy(copy, argv, (size_t)argc * sizeof *copy);
  copy[argc] = NULL;
  const int quiet = opterr;
  opterr = 0;
  optind = 0; /* glibc's full re-initialisation, as the programs' parsers do */
  int named = 0, c;
  /* "-": every other word comes back in order as 1, so nothing is permuted
   * and the last --overlap wins, as in the programs' parsers. */
  while ((c = getopt_long(argc, copy, "-", opts, NULL)) != -1)
    if (c == 'o') named = cb_load_parse(optarg) > CB_LOAD_NONE;
  optind = 0;
  opterr = quiet;
  free(copy);
  return named;
}

void cb_load_env_defaults(int argc, char *const *argv) {
  if (cb_load_named_in_args(argc, argv)) setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
}

/* Units long against a launch and short against a large message's timed
 * window (docs/overlap.md, "Sizing the load"): a GEMM of 8192^3 (1.1 TFLOP),
 * 16 Ki FMAs a thread over CB_LOAD_WAVES grids' worth of blocks, 512 MiB
 * copied (1 GiB moved). */
uint64_t cb_load_default_size(int kind) {
  switch (kind) {
  case CB_LOAD_GEMM:
    return 8192;
  case CB_LOAD_FMA:
    return 16u << 10;
  case CB_LOAD_MEM:
    return 512ull << 20;
  default:
    return 0;
  }
}

const char *cb_load_size_problem(int kind, uint64_t size, char *buf, size_t len) {
  switch (kind) {
  case CB_LOAD_GEMM:
    if (size < 128 || size > 32768 || size % 8)
      snprintf(buf, len,
               "--overlap_size %" PRIu64 " for gemm: M = N = K must be a multiple of 8 from "
               "128 to 32768",
               size);
    else
      return NULL;
    return buf;
  case CB_LOAD_FMA:
    /* 16M: a unit of some 1000 times the default's, a second or so. */
    if (size < CB_LOAD_FMA_CHAINS || size > (16u << 20) || size % CB_LOAD_FMA_CHAINS)
      snprintf(buf, len,
               "--overlap_size %" PRIu64 " for fma: FMAs a thread must be a multiple of %d from "
               "%d to 16M",
               size, CB_LOAD_FMA_CHAINS, CB_LOAD_FMA_CHAINS);
    else
      return NULL;
    return buf;
  case CB_LOAD_MEM:
    if (size < (1u << 20) || size > (64ull << 30) || size % 16)
      snprintf(buf, len,
               "--overlap_size %" PRIu64 " for mem: the bytes copied must be a multiple of 16 "
               "from 1M to 64G",
               size);
    else
      return NULL;
    return buf;
  default:
    snprintf(buf, len, "--overlap_size needs a load (--overlap gemm, fma or mem)");
    return buf;
  }
}

int cb_load_option_kind(const char *word, int *kind, char *err, size_t len) {
  int k = cb_load_parse(word);
  if (k < 0) {
    snprintf(err, len, "unknown --overlap '%s' (it takes " CB_LOAD_NAMES ")", word);
    return -1;
  }
  *kind = k;
  return 0;
}

int cb_load_options_check(int kind, uint64_t *size, char *err, size_t len) {
  if (kind == CB_LOAD_NONE) {
    if (!*size) return 0;
    snprintf(err, len, "--overlap_size %" PRIu64 " sizes a load, and --overlap gives none", *size);
    return -1;
  }
  const char *why = cb_load_unavailable(kind);
  if (why) {
    snprintf(err, len, "--overlap %s is unavailable: %s", cb_load_name(kind), why);
    return -1;
  }
  if (!*size) *size = cb_load_default_size(kind);
  return cb_load_size_problem(kind, *size, err, len) ? -1 : 0;
}

const char *cb_load_rate_unit(int kind) {
  return kind == CB_LOAD_MEM ? "GB/s" : "TFLOP/s";
}

double cb_load_rate_scale(int kind) {
  return kind == CB_LOAD_MEM ? 1e9 : 1e12;
}

void cb_load_describe(int kind, uint64_t size, char *buf, size_t len) {
  char bytes[32];
  switch (kind) {
  case CB_LOAD_GEMM:
    snprintf(buf, len, "cuBLAS bf16 GEMM, M=N=K=%" PRIu64 " (%.3g TFLOP a unit)", size,
             2.0 * (double)size * (double)size * (double)size / 1e12);
    return;
  case CB_LOAD_FMA:
    snprintf(buf, len,
             "fp32 FMA kernel, %" PRIu64 " FMAs a thread, %d times the blocks that fill the GPU",
             size, CB_LOAD_WAVES);
    return;
  case CB_LOAD_MEM:
    cb_format_bytes(size, bytes, sizeof bytes);
    snprintf(buf, len, "copy kernel, %s copied within the GPU's memory a unit", bytes);
    return;
  default:
    snprintf(buf, len, "none");
  }
}
