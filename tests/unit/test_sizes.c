/* cb_parse_size, cb_format_bytes, cb_sweep_count and cb_sweep_size. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sizes.h"

static void check_size(const char *text, uint64_t want) {
  uint64_t v = 0xdeadbeef;
  int rc = cb_parse_size(text, &v);
  CHECKF(rc == 0 && v == want, "cb_parse_size(\"%s\") = %d, %llu; expected 0, %llu", text, rc,
         (unsigned long long)v, (unsigned long long)want);
}

static void check_bad_size(const char *text) {
  uint64_t v = 12345;
  int rc = cb_parse_size(text, &v);
  CHECKF(rc == CB_SIZE_BAD, "cb_parse_size(\"%s\") should fail, returned %d (%llu)",
         text ? text : "NULL", rc, (unsigned long long)v);
  CHECKF(v == 12345, "cb_parse_size(\"%s\") wrote %llu on failure", text ? text : "NULL",
         (unsigned long long)v);
}

/* A byte count, but one whose buffers could overflow: above CB_SIZE_MAX. */
static void check_too_large(const char *text) {
  uint64_t v = 12345;
  int rc = cb_parse_size(text, &v);
  CHECKF(rc == CB_SIZE_TOO_LARGE, "cb_parse_size(\"%s\") should be too large, returned %d (%llu)",
         text, rc, (unsigned long long)v);
  CHECKF(v == 12345, "cb_parse_size(\"%s\") wrote %llu on failure", text, (unsigned long long)v);
}

/* A fraction that makes no whole number of bytes: refused, not cut as
 * nccl-tests cuts it (1.3K would be 1331 there). */
static void check_fraction(const char *text) {
  uint64_t v = 12345;
  int rc = cb_parse_size(text, &v);
  CHECKF(rc == CB_SIZE_FRACTION, "cb_parse_size(\"%s\") should be no whole byte count, returned %d",
         text, rc);
  CHECKF(v == 12345, "cb_parse_size(\"%s\") wrote %llu on failure", text, (unsigned long long)v);
}

static void test_parse_size(void) {
  check_size("8", 8);
  check_size("1", 1);
  check_size("1000", 1000);
  check_size("1K", 1024);
  check_size("1k", 1024);
  check_size("64k", 64 * 1024);
  check_size("64K", 64 * 1024);
  check_size("64KB", 64 * 1024);
  check_size("1M", 1ull << 20);
  check_size("32m", 32ull << 20);
  check_size("1MB", 1ull << 20);
  check_size("1G", 1ull << 30);
  check_size("1GB", 1ull << 30);
  check_size("1Gb", 1ull << 30);
  check_size("16G", 16ull << 30);
  check_size("0", 0); /* -i 0 needs it; -b/-e refuse 0 themselves */
  /* The largest byte count, in each unit. */
  check_size("4611686018427387904", CB_SIZE_MAX);
  check_size("4503599627370496K", CB_SIZE_MAX);
  check_size("4398046511104M", CB_SIZE_MAX);
  check_size(CB_SIZE_MAX_TEXT, CB_SIZE_MAX);
  CHECK_EQ_U64(CB_SIZE_MAX, 4294967296ull << 30);
  /* Fractions, as nccl-tests' -b 1.5M: taken where they make whole bytes. */
  check_size("1.5M", 3ull << 19);
  check_size("1.5K", 1536);
  check_size(".5K", 512);
  check_size("0.25G", 1ull << 28);
  check_size("2.0", 2);
  check_size("3.", 3);
  check_size("1.500000000000000000M", 3ull << 19);
  check_size("0.0009765625M", 1024);
  check_size("4294967295.75G", CB_SIZE_MAX - (1ull << 28));

  /* One unit rule (docs/options.md, Case and units): K, M, G in either case,
   * written alone, with B or with iB; B alone is bytes. */
  check_size("1B", 1);
  check_size("8b", 8);
  check_size("1KiB", 1024);
  check_size("2mib", 2ull << 20);
  check_size("1.5GiB", 3ull << 29);
  check_bad_size("1iB");
  check_bad_size("KiB");
  check_bad_size("1BB");
  check_bad_size("1KiBB");
  check_bad_size("1Ki");
  check_bad_size("B");

  check_bad_size("");
  check_bad_size(NULL);
  check_bad_size("-1");
  check_bad_size("+1");
  check_bad_size(" 1");
  check_bad_size("1 ");
  check_bad_size("1Q");
  check_bad_size("K");
  check_bad_size("KB");
  check_bad_size("1KK");
  check_bad_size("1KBB");
  check_bad_size(".");
  check_bad_size(".K");
  check_bad_size("1.5.5K");
  check_bad_size("1e3");
  check_bad_size("1,5K");
  check_bad_size("0.0000000000000000001K"); /* more decimals than are kept */
  check_bad_size("0x10");
  check_bad_size("12X");
  /* No T: as nccl-tests, K, M and G only. */
  check_bad_size("1T");
  check_bad_size("100T");
  check_bad_size("8388608T");
  check_bad_size("1TB");

  check_fraction("1.5");
  check_fraction("1.3K");
  check_fraction("0.1M");
  check_fraction("0.0000000001G");

  check_too_large("4611686018427387905");      /* 2^62 + 1 */
  check_too_large("4294967296.5G");            /* 2^62 + 0.5 GiB */
  check_too_large("4294967297G");              /* 2^62 + 1 GiB */
  check_too_large("8589934592G");              /* 2^63: send + receive buffers wrap to 0 */
  check_too_large("99999999999G");             /* above 2^64 after the unit */
  check_too_large("17179869184G");             /* exactly 2^64 */
  check_too_large("18446744073709551615");     /* 2^64 - 1 */
  check_too_large("18446744073709551616");     /* 2^64 */
  check_too_large("999999999999999999999999"); /* strtoull overflow */
  check_too_large("999999999999999999999999K");
}

static void check_format(uint64_t bytes, const char *want) {
  char buf[64];
  cb_format_bytes(bytes, buf, sizeof buf);
  CHECKF(strcmp(buf, want) == 0, "cb_format_bytes(%llu) = \"%s\", expected \"%s\"",
         (unsigned long long)bytes, buf, want);
}

static void test_format_bytes(void) {
  check_format(0, "0 B");
  check_format(512, "512 B");
  check_format(1023, "1023 B");
  check_format(1024, "1 KiB");
  check_format(64 * 1024, "64 KiB");
  check_format(1ull << 20, "1 MiB");
  check_format(1ull << 30, "1 GiB");
  check_format(1ull << 40, "1 TiB");
  check_format(3ull << 40, "3 TiB");
  char buf[64];
  cb_format_bytes(3ull << 19, buf, sizeof buf); /* 1.5 MiB */
  CHECKF(strncmp(buf, "1.5", 3) == 0 && strstr(buf, " MiB") != NULL, "1.5 MiB formats as '%s'",
         buf);
}

/* Every size of a sweep, checked against an independent walk. */
static void check_sweep(cb_sweep s, size_t want_count, uint64_t first, uint64_t last) {
  size_t n = cb_sweep_count(&s);
  CHECKF(n == want_count, "sweep b=%llu e=%llu f=%llu i=%llu: %zu sizes, expected %zu",
         (unsigned long long)s.min_bytes, (unsigned long long)s.max_bytes,
         (unsigned long long)s.step_factor, (unsigned long long)s.step_bytes, n, want_count);
  if (n == 0 || n != want_count) return;
  CHECK_EQ_U64(cb_sweep_size(&s, 0), first);
  CHECK_EQ_U64(cb_sweep_size(&s, n - 1), last);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = cb_sweep_size(&s, i);
    CHECKF(v >= s.min_bytes && v <= s.max_bytes, "size %zu = %llu outside the sweep", i,
           (unsigned long long)v);
    if (i > 0) {
      uint64_t prev = cb_sweep_size(&s, i - 1);
      uint64_t want = s.step_factor > 1 ? prev * s.step_factor : prev + s.step_bytes;
      CHECKF(v == want, "size %zu = %llu, expected %llu", i, (unsigned long long)v,
             (unsigned long long)want);
    }
  }
}

static void test_sweeps(void) {
  /* -b 8 -e 1G -f 2: 8, 16, ... 1G. */
  cb_sweep f2 = {8, 1ull << 30, 2, 1ull << 20};
  check_sweep(f2, 28, 8, 1073741824);
  for (size_t i = 0; i < 28; i++) CHECK_EQ_U64(cb_sweep_size(&f2, i), 8ull << i);

  /* -b 8 -e 1G -f 4: nccl-tests' reference rows 8, 32, 128, ... 536870912. */
  cb_sweep f4 = {8, 1ull << 30, 4, 1ull << 20};
  static const uint64_t f4_rows[] = {8,       32,       128,       512,      2048,
                                     8192,    32768,    131072,    524288,   2097152,
                                     8388608, 33554432, 134217728, 536870912};
  check_sweep(f4, 14, 8, 536870912);
  for (size_t i = 0; i < 14; i++) CHECK_EQ_U64(cb_sweep_size(&f4, i), f4_rows[i]);

  /* -b 8 -e 128M -f 2 (the graph reference run): 25 sizes. */
  cb_sweep g = {8, 128ull << 20, 2, 0};
  check_sweep(g, 25, 8, 134217728);

  /* Linear steps. */
  cb_sweep lin = {1ull << 20, 4ull << 20, 1, 1ull << 20};
  check_sweep(lin, 4, 1ull << 20, 4ull << 20);
  cb_sweep lin2 = {10, 35, 1, 10}; /* 10 20 30: 40 passes the end */
  check_sweep(lin2, 3, 10, 30);
  cb_sweep lin0 = {10, 35, 0, 10}; /* factor 0 means linear too */
  check_sweep(lin0, 3, 10, 30);

  /* One size. */
  cb_sweep one = {4096, 4096, 2, 0};
  check_sweep(one, 1, 4096, 4096);
  cb_sweep one_lin = {4096, 4096, 1, 0};
  check_sweep(one_lin, 1, 4096, 4096);
  cb_sweep one_f = {1, 1, 1, 1};
  check_sweep(one_f, 1, 1, 1);

  /* The end is not a multiple of the steps. */
  cb_sweep odd = {3, 100, 3, 0}; /* 3 9 27 81 */
  check_sweep(odd, 4, 3, 81);

  /* Sweeps that reach the top of uint64_t stop instead of wrapping around. */
  cb_sweep top_f = {1, UINT64_MAX, 2, 0};
  check_sweep(top_f, 64, 1, 1ull << 63);
  cb_sweep top_lin = {UINT64_MAX - 5, UINT64_MAX, 1, 4};
  check_sweep(top_lin, 2, UINT64_MAX - 5, UINT64_MAX - 1);
  cb_sweep top_one = {1ull << 63, UINT64_MAX, 2, 0};
  check_sweep(top_one, 1, 1ull << 63, 1ull << 63);

  /* Empty: min above max, and a zero minimum. */
  cb_sweep empty = {64, 32, 2, 0};
  CHECK_EQ_U64(cb_sweep_count(&empty), 0);
  cb_sweep zero = {0, 32, 2, 0};
  CHECK_EQ_U64(cb_sweep_count(&zero), 0);
  /* A linear sweep that cannot advance counts its first size once, not forever. */
  cb_sweep stuck = {8, 64, 1, 0};
  CHECK_EQ_U64(cb_sweep_count(&stuck), 1);
}

int main(void) {
  test_parse_size();
  test_format_bytes();
  test_sweeps();
  return check_summary();
}
