/* --data exact's promise (common/coll/exact_data.h), for every datatype,
 * reducing op and rank count from 1 to 128: every partial result of a
 * reduction of the exact inputs, in any order, is a value of the type, so
 * outputs compare bit for bit. Each type is modelled by its largest value
 * and, for floating types, its significand bits and smallest normal value;
 * a sum's partial results are at most the sum of the largest inputs of the
 * contributing ranks (inputs are not negative), products are powers of two,
 * avg divides by n (checked where n is a power of two: other rank counts
 * get the validation's n-ulp allowance). And every rank's input is checked:
 * each rank contributes to some element. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "exact_data.h"

typedef struct {
  cb_dtype t;
  double max;      /* largest finite value */
  int bits;        /* significand bits, the implicit one included; 0: integer */
  double min_norm; /* smallest normal value (floating types) */
} type_model;

static const type_model models[] = {
    {CB_INT8, 127, 0, 0},
    {CB_UINT8, 255, 0, 0},
    {CB_INT32, 2147483647.0, 0, 0},
    {CB_UINT32, 4294967295.0, 0, 0},
    {CB_INT64, 9.2e18, 0, 0},
    {CB_UINT64, 1.8e19, 0, 0},
    {CB_HALF, 65504, 11, 0x1p-14},
    {CB_FLOAT, 0x1.fffffep127, 24, 0x1p-126},
    {CB_DOUBLE, 1.7e308, 53, 0x1p-1022},
    {CB_BFLOAT16, 0x1.fep127, 8, 0x1p-126},
    {CB_F8E4M3, 448, 4, 0x1p-6},
    {CB_F8E5M2, 57344, 3, 0x1p-14},
};

/* Whether v (not negative) is a value of the type. */
static int representable(const type_model *m, double v) {
  if (v > m->max) return 0;
  if (m->bits == 0) return v == floor(v);
  if (v == 0) return 1;
  if (v < m->min_norm) { /* subnormal: a multiple of the spacing there */
    double q = ldexp(m->min_norm, 1 - m->bits);
    return v / q == floor(v / q);
  }
  int e;
  double frac = frexp(v, &e);
  double scaled = ldexp(frac, m->bits);
  return scaled == floor(scaled);
}

static int is_pow2(int n) {
  return (n & (n - 1)) == 0;
}

/* The largest sum over element i's contributing ranks, each input at most
 * range - 1, mulsum's odd ranks doubled. */
static double largest_sum(const type_model *m, cb_redop op, int n, size_t i) {
  const int range = cb_exact_range(m->t, op, 1, n);
  const int a = cb_exact_contributors(m->t, op, 1, n);
  double sum = 0;
  for (int r = 0; r < n; r++)
    if (cb_exact_contributes(a, n, r, i))
      sum += (range - 1) * (op == CB_MULSUM ? cb_mulsum_scalar(r) : 1);
  return sum;
}

static void check_sums(const type_model *m, cb_redop op, int n) {
  const char *name = cb_dtype_name(m->t);
  if (op == CB_MIN || op == CB_MAX) { /* every partial result is an input */
    double top = cb_exact_range(m->t, op, 1, n) - 1;
    CHECKF(representable(m, top), "%s %s n=%d: input %g is not exact", name, cb_redop_name(op), n,
           top);
    return;
  }
  for (size_t i = 0; i < (size_t)n; i++) {
    double top = largest_sum(m, op, n, i);
    /* Every integer up to the largest partial sum, so every order's. */
    int ok = 1;
    for (double k = 0; k <= top && ok; k++) ok = representable(m, k);
    CHECKF(ok, "%s %s n=%d element %zu: a partial sum up to %g is not exact", name,
           cb_redop_name(op), n, i, top);
    if (op == CB_AVG && is_pow2(n) && m->bits) /* integers divide as integers */
      for (double k = 0; k <= top && ok; k++) ok = representable(m, k / n);
    CHECKF(ok, "%s avg n=%d element %zu: a partial sum / n is not exact", name, n, i);
  }
}

static void check_products(const type_model *m, int n) {
  const int a = cb_exact_contributors(m->t, CB_PROD, 1, n);
  /* Contributing ranks give 1 or 2: partial products 2^0 .. 2^a. */
  CHECKF(m->bits == 0 || representable(m, ldexp(1, a)), "%s prod n=%d: 2^%d is not exact",
         cb_dtype_name(m->t), n, a);
}

/* Every rank contributes to some element (of the first n), and every
 * element has at least one contributor. */
static void check_coverage(const type_model *m, cb_redop op, int n) {
  const int a = cb_exact_contributors(m->t, op, 1, n);
  CHECKF(a >= 1 && a <= n, "%s %s n=%d: %d contributors", cb_dtype_name(m->t), cb_redop_name(op), n,
         a);
  for (int r = 0; r < n; r++) {
    int seen = 0;
    for (size_t i = 0; i < (size_t)n; i++) seen |= cb_exact_contributes(a, n, r, i);
    CHECKF(seen, "%s %s n=%d: rank %d never contributes", cb_dtype_name(m->t), cb_redop_name(op), n,
           r);
  }
}

static void test_every_type_op_and_rank_count(void) {
  for (size_t k = 0; k < sizeof models / sizeof models[0]; k++)
    for (int n = 1; n <= 128; n++) {
      for (int op = 0; op < CB_NUM_OPS; op++) {
        if (op == CB_PROD) continue;
        check_sums(&models[k], (cb_redop)op, n);
        check_coverage(&models[k], (cb_redop)op, n);
      }
      check_products(&models[k], n);
      check_coverage(&models[k], CB_PROD, n);
    }
}

/* The ranges themselves: nothing changed for the types that were here
 * before fp8 (the same data: 128 / n values, 2 to 16), fp8's as
 * documented, and the windows where they apply. */
static void test_ranges(void) {
  CHECK_EQ_INT(cb_exact_range(CB_FLOAT, CB_SUM, 1, 2), 16);
  CHECK_EQ_INT(cb_exact_range(CB_FLOAT, CB_SUM, 1, 8), 16);
  CHECK_EQ_INT(cb_exact_range(CB_FLOAT, CB_SUM, 1, 16), 8);
  CHECK_EQ_INT(cb_exact_range(CB_INT8, CB_SUM, 1, 9), 14);
  CHECK_EQ_INT(cb_exact_range(CB_BFLOAT16, CB_MAX, 1, 100), 2);
  CHECK_EQ_INT(cb_exact_range(CB_F8E4M3, CB_SUM, 1, 2), 8);      /* 0..7, sums to 14 */
  CHECK_EQ_INT(cb_exact_range(CB_F8E4M3, CB_SUM, 1, 8), 2);      /* 0..1, sums to 8 */
  CHECK_EQ_INT(cb_exact_range(CB_F8E5M2, CB_SUM, 1, 2), 4);      /* 0..3, sums to 6 */
  CHECK_EQ_INT(cb_exact_range(CB_F8E5M2, CB_MULSUM, 1, 2), 3);   /* 0..2: 2 + 2*2 */
  CHECK_EQ_INT(cb_exact_range(CB_FLOAT, CB_SUM, 0, 8), 1 << 20); /* moved data */
  CHECK_EQ_INT(cb_exact_range(CB_F8E4M3, CB_SUM, 0, 8), 17);
  CHECK_EQ_INT(cb_exact_range(CB_F8E5M2, CB_SUM, 0, 8), 9);
  /* All ranks contribute up to 8 ranks, the node's most, but for mulsum in
   * e5m2 from 6 ranks (weights 1 2 1 2 1 2: 9 > 8). */
  for (int n = 1; n <= 8; n++)
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++)
      for (int op = 0; op < CB_NUM_OPS; op++) {
        int a = cb_exact_contributors(models[k].t, (cb_redop)op, 1, n);
        int windowed = models[k].t == CB_F8E5M2 && op == CB_MULSUM && n >= 6;
        CHECKF((a < n) == windowed, "%s %s n=%d: %d contributors", cb_dtype_name(models[k].t),
               cb_redop_name((cb_redop)op), n, a);
      }
  CHECK_EQ_INT(cb_exact_contributors(CB_F8E5M2, CB_MULSUM, 1, 6), 5);
  CHECK_EQ_INT(cb_exact_contributors(CB_F8E4M3, CB_SUM, 1, 32), 16);
  CHECK_EQ_INT(cb_exact_contributors(CB_F8E4M3, CB_PROD, 1, 32), 8);
  CHECK_EQ_INT(cb_exact_contributors(CB_FLOAT, CB_PROD, 1, 32), 32);
  CHECK_EQ_INT(cb_exact_contributors(CB_F8E4M3, CB_SUM, 0, 32), 32); /* moved: all */
  CHECK_EQ_INT(cb_sum_weight(CB_MULSUM, 5), 7);                      /* 1 2 1 2 1 */
  CHECK_EQ_INT(cb_sum_weight(CB_AVG, 5), 5);
}

int main(void) {
  test_every_type_op_and_rank_count();
  test_ranges();
  return check_summary();
}
