/* cb_warmup_sizes: nccl-tests 2.19.6's warm-up sizes (TimeTest: minbytes,
 * doubled while <= maxbytes), as collbench calls them: the shape's counts
 * and a kernel's size limit. No CUDA call is made. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "collective.h"
#include "collectives.h"
#include "sizes.h"
#include "types.h"
#include "warmup.h"

static cb_warmup_size got[CB_WARMUP_MAX_SIZES + 1];

/* The warm-up of sweep for a shape, rank 0 of nranks, no size limit. */
static size_t sizes_of(cb_sweep sweep, const cb_coll_shape *shape, size_t elem, int nranks) {
  memset(got, 0, sizeof got);
  return cb_warmup_sizes(&sweep, shape, elem, nranks, 0, 0, got, CB_WARMUP_MAX_SIZES);
}

/* Checks the bytes of the n sizes against want (n entries). */
static void check_bytes(size_t n, const uint64_t *want, size_t nwant, const char *what) {
  CHECKF(n == nwant, "%s: %zu sizes, expected %zu", what, n, nwant);
  for (size_t i = 0; i < n && i < nwant; i++)
    CHECKF(got[i].bytes == want[i], "%s: size %zu is %llu, expected %llu", what, i,
           (unsigned long long)got[i].bytes, (unsigned long long)want[i]);
}

/* nccl-tests' loop, whatever -f or -i the sweep has. */
static void test_nccl_tests_sizes(void) {
  const size_t n = sizes_of((cb_sweep){32, 64 << 10, 2, 0}, &cb_shape_all_reduce, 4, 2);
  CHECK_EQ_INT(n, 12); /* 32 B .. 64 KiB */
  for (size_t i = 0; i < n; i++) {
    CHECK_EQ_U64(got[i].bytes, 32ull << i);
    CHECK_EQ_U64(got[i].counts.param_count, (32ull << i) / 4);
    CHECK_EQ_U64(got[i].table_bytes, 32ull << i);
  }
  /* -f 4: the warm-up still doubles, so the sizes between the sweep's are
   * warmed up too, as nccl-tests does ("using a stepfactor of 2"). */
  const uint64_t by4[] = {8, 16, 32, 64, 128, 256, 512, 1024};
  check_bytes(sizes_of((cb_sweep){8, 1024, 4, 0}, &cb_shape_all_reduce, 4, 2), by4, 8, "-f 4");
  /* A linear sweep (-f 1 -i 1M): doublings of -b up to -e, not -e itself
   * when it is none of them. */
  const uint64_t lin[] = {1 << 20, 2 << 20};
  check_bytes(sizes_of((cb_sweep){1 << 20, 3 << 20, 1, 1 << 20}, &cb_shape_all_reduce, 4, 2), lin,
              2, "-b 1M -e 3M -i 1M");
  /* -b no power of two. */
  const uint64_t odd[] = {3, 6, 12, 24, 48, 96};
  check_bytes(sizes_of((cb_sweep){3, 100, 2, 0}, &cb_shape_all_reduce, 1, 2), odd, 6, "-b 3");
  /* One size. */
  const uint64_t one[] = {1 << 30};
  check_bytes(sizes_of((cb_sweep){1 << 30, 1 << 30, 1, 1 << 20}, &cb_shape_all_reduce, 4, 2), one,
              1, "-b 1G -e 1G");
}

/* A sweep by a factor of 2 is warmed up at exactly its own sizes. */
static void test_same_as_a_doubling_sweep(void) {
  const cb_sweep s = {8, 1 << 30, 2, 0};
  size_t n = sizes_of(s, &cb_shape_all_gather, 4, 2);
  CHECK_EQ_INT(n, cb_sweep_count(&s));
  for (size_t i = 0; i < n; i++) CHECK_EQ_U64(got[i].bytes, cb_sweep_size(&s, i));
}

/* The counts are the shape's, rounded to the datatype and rank count as the
 * sweep rounds them; sizes that round to no element are kept (nccl-tests
 * calls them with count 0 too). */
static void test_rounding(void) {
  /* all_reduce float: whole elements only. */
  size_t n = sizes_of((cb_sweep){6, 48, 2, 0}, &cb_shape_all_reduce, 4, 2);
  const size_t reduce_counts[] = {1, 3, 6, 12}; /* 6, 12, 24, 48 B */
  CHECK_EQ_INT(n, 4);
  for (size_t i = 0; i < n && i < 4; i++) {
    CHECK_EQ_U64(got[i].counts.param_count, reduce_counts[i]);
    CHECK_EQ_U64(got[i].table_bytes, reduce_counts[i] * 4);
  }
  /* gather float on 2 ranks: each rank's block a whole 16 bytes. */
  n = sizes_of((cb_sweep){8, 64, 2, 0}, &cb_shape_gather, 4, 2);
  const size_t block[] = {0, 0, 4, 8}; /* 8, 16, 32, 64 B */
  CHECK_EQ_INT(n, 4);
  for (size_t i = 0; i < n && i < 4; i++) {
    CHECK_EQ_U64(got[i].counts.param_count, block[i]);
    CHECK_EQ_U64(got[i].counts.recv_count, block[i] * 2);
    CHECK_EQ_U64(got[i].table_bytes, block[i] * 2 * 4);
  }
  /* int8 on 8 ranks: blocks of 16 elements, so 64 B is 0 and 128 B is 16. */
  n = sizes_of((cb_sweep){64, 128, 2, 0}, &cb_shape_all_gather, 1, 8);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_U64(got[0].counts.param_count, 0);
  CHECK_EQ_U64(got[1].counts.param_count, 16);
  /* The counts are this rank's: all_gather's in-place block is rank 3's. */
  cb_sweep s = {1024, 1024, 1, 0};
  CHECK_EQ_INT(cb_warmup_sizes(&s, &cb_shape_all_gather, 4, 4, 3, 0, got, 1), 1);
  CHECK_EQ_U64(got[0].counts.param_count, 64);
  CHECK_EQ_U64(got[0].counts.send_inplace_offset, 3 * 64);
}

/* A kernel's limit leaves out the sizes the sweep skips, judged on the
 * table bytes as cb_kernel_why_not judges them. */
static void test_kernel_limit(void) {
  const cb_kernel ll = {.id = 2,
                        .name = "ll",
                        .limits = {.placements = CB_BOTH_PLACEMENTS,
                                   .dtypes = CB_ALL_DTYPES,
                                   .ops = CB_ALL_OPS,
                                   .max_bytes = 4096}};
  const cb_sweep s = {8, 1 << 20, 2, 0};
  size_t n = cb_warmup_sizes(&s, &cb_shape_all_reduce, 4, 2, 0, ll.limits.max_bytes, got,
                             CB_WARMUP_MAX_SIZES);
  CHECK_EQ_INT(n, 10); /* 8 B .. 4 KiB */
  CHECK_EQ_U64(got[n - 1].bytes, 4096);
  /* Every size kept is one the kernel serves; the next one it skips. */
  char why[128];
  cb_call call = {.dtype = CB_FLOAT, .op = CB_SUM};
  cb_serve_question q = {.shape = &cb_shape_all_reduce, .call = &call};
  for (size_t i = 0; i < n; i++) {
    q.table_bytes = got[i].table_bytes;
    CHECK(cb_kernel_why_not(&ll, &q, why, sizeof why) == NULL);
  }
  q.table_bytes = 8192;
  CHECK(cb_kernel_why_not(&ll, &q, why, sizeof why) != NULL);
  /* all_gather: the limit is on the output, n blocks; reduce_scatter: on
   * the input. */
  n = cb_warmup_sizes(&s, &cb_shape_all_gather, 4, 2, 0, 4096, got, CB_WARMUP_MAX_SIZES);
  CHECK_EQ_INT(n, 10);
  CHECK_EQ_U64(got[n - 1].table_bytes, 4096);
  n = cb_warmup_sizes(&s, &cb_shape_reduce_scatter, 4, 2, 0, 4096, got, CB_WARMUP_MAX_SIZES);
  CHECK_EQ_U64(got[n - 1].table_bytes, 4096);
  /* A limit below the first size: nothing to warm up. */
  CHECK_EQ_INT(cb_warmup_sizes(&s, &cb_shape_all_reduce, 4, 2, 0, 4, got, CB_WARMUP_MAX_SIZES), 0);
}

/* The largest sweeps: no doubling wraps, and CB_WARMUP_MAX_SIZES holds them. */
static void test_extremes(void) {
  size_t n = sizes_of((cb_sweep){1, CB_SIZE_MAX, 2, 0}, &cb_shape_all_reduce, 1, 2);
  CHECK_EQ_INT(n, CB_WARMUP_MAX_SIZES);
  CHECK_EQ_U64(got[n - 1].bytes, CB_SIZE_MAX);
  n = sizes_of((cb_sweep){3, CB_SIZE_MAX, 2, 0}, &cb_shape_all_reduce, 1, 2);
  CHECK_EQ_INT(n, 61);
  CHECK_EQ_U64(got[n - 1].bytes, 3ull << 60);
  n = sizes_of((cb_sweep){CB_SIZE_MAX, CB_SIZE_MAX, 2, 0}, &cb_shape_all_reduce, 8, 2);
  CHECK_EQ_INT(n, 1);
  /* 0 bytes: none (nccl-tests would double 0 forever; -b 0 is refused). */
  CHECK_EQ_INT(sizes_of((cb_sweep){0, 64, 2, 0}, &cb_shape_all_reduce, 4, 2), 0);
}

/* cap bounds what is written, not what is counted. */
static void test_cap(void) {
  const cb_sweep s = {32, 64 << 10, 2, 0};
  memset(got, 0xab, sizeof got);
  CHECK_EQ_INT(cb_warmup_sizes(&s, &cb_shape_all_reduce, 4, 2, 0, 0, got, 2), 12);
  CHECK_EQ_U64(got[1].bytes, 64);
  CHECK_EQ_U64(got[2].bytes, 0xababababababababull);
  CHECK_EQ_INT(cb_warmup_sizes(&s, &cb_shape_all_reduce, 4, 2, 0, 0, NULL, 0), 12);
}

int main(void) {
  test_nccl_tests_sizes();
  test_same_as_a_doubling_sweep();
  test_rounding();
  test_kernel_limit();
  test_extremes();
  test_cap();
  return check_summary();
}
