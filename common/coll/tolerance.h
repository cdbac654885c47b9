/* How far a floating-point reduction of random inputs (--data random) may
 * lie from its float64 reference, from the datatype, the op and the rank
 * count alone. Host and device: the validation kernel uses it, and
 * tests/unit/test_tolerance.c checks it against reductions in every order.
 *
 * With u = eps / 2 the unit roundoff of the type (eps: machine epsilon),
 * n inputs x_i and S = sum |x_i|:
 *   sum   any order of n - 1 additions is within ((1 + u)^(n-1) - 1) S of
 *         the exact sum, about (n - 1) u S (Higham, "Accuracy and Stability
 *         of Numerical Algorithms", sec. 4.2), and NCCL's avg multiplies
 *         each input by 1/n first (one more rounding per input, and 1/n
 *         itself rounded): within ((1 + u)^(n+1) - 1) S. Bound: the larger of
 *         n eps and (1 + u)^(n+1) - 1 (the same for the 16-bit and wider
 *         types, where the first is larger; the second for fp8, whose u of
 *         1/16 or 1/8 compounds), times S, doubled for the float64
 *         reference's own rounding (which matters for double) and any
 *         accumulation the kernel adds.
 *   mulsum  a sum of the scaled inputs (scaling by 1 or 2 is exact), S their
 *         magnitudes.
 *   avg   the same, on S / n (the result's scale).
 *   prod  n - 1 multiplications, each a relative error of u: the same
 *         factor times |ref|, doubled.
 *   min, max   exact in every order (inputs are values of the type; the
 *         compare is by value, so +0 and -0 are equal): no tolerance.
 * Plus n times the type's smallest normal value, for a kernel or NCCL that
 * flushes subnormal results to zero (and for fp8's subnormals, whose
 * spacing is eps times it). */
#ifndef CB_TOLERANCE_H
#define CB_TOLERANCE_H

#include "types.h"

#ifdef __CUDACC__
#define CB_HOST_DEVICE __host__ __device__
#else
#define CB_HOST_DEVICE
#endif

/* eps: the type's machine epsilon; tiny: its smallest normal value;
 * abs_sum: the sum of the inputs' magnitudes; ref: the float64 result. */
/* The relative error bound of n inputs' reduction: the larger of n eps and
 * (1 + eps/2)^(n+1) - 1. */
static inline CB_HOST_DEVICE double cb_tolerance_growth(double eps, int nranks) {
  double compound = 1.0;
  for (int k = 0; k <= nranks; k++) compound *= 1.0 + eps / 2;
  const double linear = nranks * eps;
  return compound - 1.0 > linear ? compound - 1.0 : linear;
}

static inline CB_HOST_DEVICE double cb_tolerance(double eps, double tiny, cb_redop op, int nranks,
                                                 double abs_sum, double ref) {
  const double n = (double)nranks, floor = n * tiny;
  const double growth = cb_tolerance_growth(eps, nranks);
  switch (op) {
  case CB_MIN:
  case CB_MAX:
    return 0.0;
  case CB_PROD:
    return 2.0 * growth * (ref < 0 ? -ref : ref) + floor;
  case CB_AVG:
    return 2.0 * growth * (abs_sum / n) + floor;
  default: /* sum, mulsum */
    return 2.0 * growth * abs_sum + floor;
  }
}

#endif
