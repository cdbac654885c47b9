/* nccl-tests' environment variables: NCCL_TESTS_SPLIT(_MASK), NCCL_TESTS_DEVICE
 * and NCCL_TESTS_MIN_BW, read as nccl-tests 2.19.6 reads them, and what
 * nccl-tests would misread or crash on refused with one line. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "nccl_tests_env.h"

static char buf[256];

/* The color of each of procs 0..7 under split/mask, as nccl-tests computes it. */
static void check_colors(const char *split, const char *mask, const int want[8]) {
  for (int p = 0; p < 8; p++) {
    int color = -99;
    const char *why = cb_env_split_color(split, mask, p, &color, buf, sizeof buf);
    CHECKF(why == NULL, "SPLIT='%s' MASK='%s': refused: %s", split ? split : "(unset)",
           mask ? mask : "(unset)", why ? why : "");
    CHECKF(color == want[p], "SPLIT='%s' MASK='%s', process %d: color %d, expected %d",
           split ? split : "(unset)", mask ? mask : "(unset)", p, color, want[p]);
  }
}

static void check_split_refused(const char *split, const char *mask, const char *mention) {
  int color = -99;
  const char *why = cb_env_split_color(split, mask, 5, &color, buf, sizeof buf);
  CHECKF(why != NULL, "SPLIT='%s' MASK='%s' should be refused (color %d)",
         split ? split : "(unset)", mask ? mask : "(unset)", color);
  if (!why) return;
  CHECKF(strchr(why, '\n') == NULL, "more than one line: %s", why);
  CHECKF(strstr(why, mention) != NULL, "'%s' should mention '%s'", why, mention);
}

static void test_split(void) {
  static const int zero[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  static const int mod2[8] = {0, 1, 0, 1, 0, 1, 0, 1};
  static const int and7[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  static const int or7[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  static const int div4[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  static const int and1[8] = {0, 1, 0, 1, 0, 1, 0, 1};
  static const int and6[8] = {0, 0, 2, 2, 4, 4, 6, 6};
  check_colors(NULL, NULL, zero);
  /* Examples of NCCL_TESTS_SPLIT (docs/options.md), in every spelling nccl-tests takes. */
  check_colors("AND 0x7", NULL, and7);
  check_colors("MOD 8", NULL, and7);
  check_colors("OR 0x7", NULL, or7);
  check_colors("DIV 8", NULL, zero);
  check_colors("DIV 4", NULL, div4);
  check_colors("AND 0x1", NULL, and1);
  check_colors("MOD 2", NULL, mod2);
  check_colors("and 1", NULL, and1);
  check_colors("Mod 2", NULL, mod2);
  check_colors("&1", NULL, and1);
  check_colors("%2", NULL, mod2);
  check_colors("|7", NULL, or7);
  check_colors("/4", NULL, div4);
  check_colors("AND0b110", NULL, and6);
  check_colors("& 0B110", NULL, and6);
  check_colors("AND 06", NULL, and6); /* C's rules: a leading 0 is octal */
  check_colors("MOD\t2", NULL, mod2);
  /* NCCL_TESTS_SPLIT_MASK is hexadecimal, and wins over NCCL_TESTS_SPLIT. */
  check_colors(NULL, "0x7", and7);
  check_colors(NULL, "7", and7);
  check_colors(NULL, "6", and6);
  check_colors("MOD 2", "0x1", and1);
  check_colors("bogus", "1", and1);
  static const int and16[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  check_colors(NULL, "10", and16); /* sixteen: no process below 16 has the bit */

  /* What nccl-tests would read as color 0 (or divide by zero on). */
  check_split_refused("XOR 3", NULL, "AND, OR, MOD or DIV");
  check_split_refused("MOD", NULL, "'MOD'");
  check_split_refused("MOD ", NULL, "MOD");
  check_split_refused("MOD 2x", NULL, "2x");
  check_split_refused("MOD -2", NULL, "-2");
  check_split_refused("MOD 0", NULL, "modulo by 0");
  check_split_refused("DIV 0", NULL, "division by 0");
  check_split_refused("/0x0", NULL, "division by 0");
  check_split_refused("AND 08", NULL, "08");
  check_split_refused("AND 0b", NULL, "0b");
  check_split_refused("", NULL, "NCCL_TESTS_SPLIT");
  check_split_refused("AND 99999999999", NULL, "99999999999");
  check_split_refused(NULL, "", "NCCL_TESTS_SPLIT_MASK");
  check_split_refused(NULL, "0x", "NCCL_TESTS_SPLIT_MASK");
  check_split_refused(NULL, "7g", "7g");
  check_split_refused(NULL, "-1", "-1");
  check_split_refused(NULL, " 7", "hexadecimal");
}

static void test_device(void) {
  int d = 99;
  CHECK(cb_env_first_device(NULL, &d, buf, sizeof buf) == NULL && d == -1);
  CHECK(cb_env_first_device("-1", &d, buf, sizeof buf) == NULL && d == -1);
  CHECK(cb_env_first_device("0", &d, buf, sizeof buf) == NULL && d == 0);
  CHECK(cb_env_first_device("3", &d, buf, sizeof buf) == NULL && d == 3);
  static const char *const bad[] = {"", "x", "1x", " 1", "-2", "1.5", "0x1", "99999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *why = cb_env_first_device(bad[i], &d, buf, sizeof buf);
    CHECKF(why && strstr(why, "NCCL_TESTS_DEVICE") && d == -1,
           "NCCL_TESTS_DEVICE='%s' should be refused (device %d)", bad[i], d);
  }
}

static void test_min_bw(void) {
  double g = 99;
  CHECK(cb_env_min_bw(NULL, &g, buf, sizeof buf) == NULL && g == -1);
  CHECK(cb_env_min_bw("-1", &g, buf, sizeof buf) == NULL && g == -1);
  CHECK(cb_env_min_bw("300", &g, buf, sizeof buf) == NULL && g == 300);
  CHECK(cb_env_min_bw("0.5", &g, buf, sizeof buf) == NULL && g == 0.5);
  CHECK(cb_env_min_bw("0", &g, buf, sizeof buf) == NULL && g == 0);
  static const char *const bad[] = {"", "fast", "300GB", "-5", " 3", "nan", "inf", "1e999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *why = cb_env_min_bw(bad[i], &g, buf, sizeof buf);
    CHECKF(why && strstr(why, "NCCL_TESTS_MIN_BW"), "NCCL_TESTS_MIN_BW='%s' should be refused",
           bad[i]);
  }
  /* nccl-tests: FAILED below 90% of the threshold, OK from 90% on. */
  CHECK(!cb_min_bw_failed(100.0, -1));
  CHECK(!cb_min_bw_failed(NAN, -1));
  CHECK(!cb_min_bw_failed(90.0, 100.0));
  CHECK(cb_min_bw_failed(89.99, 100.0));
  CHECK(!cb_min_bw_failed(400.0, 100.0));
  CHECK(!cb_min_bw_failed(0.0, 0.0));
  CHECK(cb_min_bw_failed(NAN, 0.0)); /* nothing measured meets no threshold */
}

int main(void) {
  test_split();
  test_device();
  test_min_bw();
  return check_summary();
}
