/* The arithmetic of --data exact (datagen.cu), host and device, so the CPU
 * tests can check its promise: every partial reduction of the exact inputs
 * is exact in the datatype, in every order, so outputs compare bit for bit.
 *
 * Inputs are 0 .. range-1 (products: 1 or 2). The range is chosen from the
 * largest sum the type holds exactly and the inputs' total weight (one per
 * rank; mulsum doubles the odd ranks'). Where even the smallest range (0
 * and 1) would pass it, only a window of consecutive ranks gives an element
 * a value, the others the op's identity, the window moving with the
 * element so that every rank's data is checked. */
#ifndef CB_EXACT_DATA_H
#define CB_EXACT_DATA_H

#include <stddef.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest sum exact data may reach in the type: every integer up to it
 * is exact there (fp8 e4m3 holds every integer up to 16, e5m2 up to 8) and
 * int8 does not overflow; 127 for the wider types as well, to keep their
 * values small. */
static inline CB_TYPES_HOST_DEVICE int cb_exact_sum_limit(cb_dtype t) {
  return t == CB_F8E4M3 ? 16 : t == CB_F8E5M2 ? 8 : 127;
}

/* How many factors of 2 a product of exact data may have: the largest
 * power of two the type holds (e4m3's largest value is 448, e5m2's 57344,
 * half's 65504); integer products wrap alike in every order: no limit. */
static inline CB_TYPES_HOST_DEVICE int cb_exact_prod_twos(cb_dtype t) {
  switch (t) {
  case CB_F8E4M3:
    return 8;
  case CB_F8E5M2:
  case CB_HALF:
    return 15;
  case CB_FLOAT:
  case CB_BFLOAT16:
    return 127;
  case CB_DOUBLE:
    return 1023;
  default:
    return 1 << 30;
  }
}

/* What n ranks' inputs weigh in a sum: one each, but mulsum scales rank r's
 * by cb_mulsum_scalar(r) (2 on the n / 2 odd ranks). */
static inline CB_TYPES_HOST_DEVICE int cb_sum_weight(cb_redop op, int nranks) {
  return op == CB_MULSUM ? nranks + nranks / 2 : nranks;
}

/* Exact inputs are 0 .. range-1: for a reduction, the most values (up to
 * 16, at least 2) whose sum over the ranks stays within cb_exact_sum_limit;
 * for data that is only moved, the widest range the type holds exactly. */
static inline CB_TYPES_HOST_DEVICE int cb_exact_range(cb_dtype t, cb_redop op, int reduces,
                                                      int nranks) {
  if (reduces) {
    int m = (cb_exact_sum_limit(t) + 1) / cb_sum_weight(op, nranks);
    return m < 2 ? 2 : (m > 16 ? 16 : m);
  }
  switch (t) {
  case CB_INT8:
  case CB_UINT8:
    return 128;
  case CB_BFLOAT16:
    return 256;
  case CB_HALF:
    return 2048;
  case CB_F8E4M3:
    return 17;
  case CB_F8E5M2:
    return 9;
  default:
    return 1 << 20;
  }
}

/* How many consecutive ranks give an element of a reduction a value: all
 * of them, unless that would take a sum past cb_exact_sum_limit or a
 * product past cb_exact_prod_twos (fp8 from 9 or 17 ranks, mulsum in e5m2
 * from 6). A sum of a consecutive ranks' inputs is at most (range - 1)
 * times their weight: a, or under mulsum (weights 1, 2, 1, 2, ...) at most
 * a + ceil(a / 2). */
static inline CB_TYPES_HOST_DEVICE int cb_exact_contributors(cb_dtype t, cb_redop op, int reduces,
                                                             int nranks) {
  int a = nranks;
  if (!reduces || op == CB_MIN || op == CB_MAX) return a;
  if (op == CB_PROD) {
    a = cb_exact_prod_twos(t);
  } else {
    /* The most the contributors' inputs may weigh. */
    const int budget = cb_exact_sum_limit(t) / (cb_exact_range(t, op, reduces, nranks) - 1);
    if (cb_sum_weight(op, nranks) <= budget) return nranks;
    a = op == CB_MULSUM ? 2 * budget / 3 : budget;
  }
  return a < nranks ? a : nranks;
}

/* Whether rank r gives element i a value, of `contributors` (the count
 * above) out of n: the window of element i is ranks i, i+1, ... (mod n). */
static inline CB_TYPES_HOST_DEVICE int cb_exact_contributes(int contributors, int nranks, int r,
                                                            size_t i) {
  return contributors >= nranks || (r - (int)(i % (size_t)nranks) + nranks) % nranks < contributors;
}

#ifdef __cplusplus
}
#endif

#endif
