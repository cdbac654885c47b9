/* How far a floating-point reduction of random inputs (--data random) may
 * lie from its float64 reference, from the datatype, the op and the rank
 * count alone. Host and device: the validation kernel uses it, and
 * tests/unit/test_tolerance.c checks it against reductions in every order.
 *
 * With u = eps / 2 the unit roundoff of the type (eps: machine epsilon),
 * n inputs x_i and S = sum |x_i|:
 *   sum   any order of n - 1 additions is within (n - 1) u S of the exact
 *         sum (Higham, "Accuracy and Stability of Numerical Algorithms",
 *         sec. 4.2), and NCCL's avg multiplies each input by 1/n first (one
 *         more rounding per input, and 1/n itself rounded): within (n + 1) u S.
 *         Bound: n eps S, doubled for the float64 reference's own rounding
 *         (which matters for double) and any accumulation the kernel adds.
 *   avg   the same, on S / n (the result's scale).
 *   prod  n - 1 multiplications, each a relative error of u: n eps |ref|, doubled.
 *   min, max   exact in every order (inputs are values of the type; the
 *         compare is by value, so +0 and -0 are equal): no tolerance.
 * Plus n times the type's smallest normal value, for a kernel or NCCL that
 * flushes subnormal results to zero. */
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
static inline CB_HOST_DEVICE double cb_tolerance(double eps, double tiny, cb_redop op, int nranks,
                                                 double abs_sum, double ref) {
  const double n = (double)nranks, floor = n * tiny;
  switch (op) {
  case CB_MIN:
  case CB_MAX:
    return 0.0;
  case CB_PROD:
    return 2.0 * n * eps * (ref < 0 ? -ref : ref) + floor;
  case CB_AVG:
    return 2.0 * n * eps * (abs_sum / n) + floor;
  default:
    return 2.0 * n * eps * abs_sum + floor;
  }
}

#endif
