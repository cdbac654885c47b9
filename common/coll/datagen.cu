#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "alltoallv_pattern.h"
#include "cuda_check.h"
#include "datagen.h"
#include "collbench/device/dispatch.cuh"
#include "exact_data.h"
#include "tolerance.h"

namespace {

/* A 64-bit mixer (splitmix64's finaliser): neighbouring indices and ranks
 * give unrelated values. */
__device__ uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/* The hash behind input element i of rank `rank` in round `seed`. */
__device__ uint64_t input_hash(uint64_t seed, int rank, size_t i) {
  uint64_t key = mix(seed * 0x9e3779b97f4a7c15ull + (uint64_t)rank + 1);
  return mix(key ^ ((uint64_t)i * 0xd1b54a32d192ed03ull));
}

/* The round the GPU sees now: the spec's, plus the device word's. */
__device__ uint64_t round_of(const cb_data_spec &s) {
  return s.seed + (s.round ? *s.round : 0);
}

template <typename T> struct is_float_type { static const bool value = false; };
template <> struct is_float_type<__half> { static const bool value = true; };
template <> struct is_float_type<__nv_bfloat16> { static const bool value = true; };
template <> struct is_float_type<float> { static const bool value = true; };
template <> struct is_float_type<double> { static const bool value = true; };
template <> struct is_float_type<__nv_fp8_e4m3> { static const bool value = true; };
template <> struct is_float_type<__nv_fp8_e5m2> { static const bool value = true; };

/* Conversions: every exact value here is a small integer, so nothing
 * rounds; random floating values are rounded once, to the type. */
template <typename T> __device__ T from_int(long long v) {
  return (T)v;
}
template <> __device__ __half from_int<__half>(long long v) {
  return __ll2half_rn(v);
}
template <> __device__ __nv_bfloat16 from_int<__nv_bfloat16>(long long v) {
  return __ll2bfloat16_rn(v);
}
template <> __device__ __nv_fp8_e4m3 from_int<__nv_fp8_e4m3>(long long v) {
  return __nv_fp8_e4m3((float)v);
}
template <> __device__ __nv_fp8_e5m2 from_int<__nv_fp8_e5m2>(long long v) {
  return __nv_fp8_e5m2((float)v);
}
template <typename T> __device__ T from_double(double v) {
  return (T)v;
}
template <> __device__ __half from_double<__half>(double v) {
  return __double2half(v);
}
template <> __device__ __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
  return __double2bfloat16(v);
}
template <typename T> __device__ double to_double(T v) {
  return (double)v;
}
template <> __device__ double to_double<__half>(__half v) {
  return (double)__half2float(v);
}
template <> __device__ double to_double<__nv_bfloat16>(__nv_bfloat16 v) {
  return (double)__bfloat162float(v);
}
/* fp8 from and to double: the __nv_fp8 conversions (round to nearest even,
 * saturating to the largest finite value; exact the other way). */
template <> __device__ double to_double<__nv_fp8_e4m3>(__nv_fp8_e4m3 v) {
  return (double)float(v);
}
template <> __device__ double to_double<__nv_fp8_e5m2>(__nv_fp8_e5m2 v) {
  return (double)float(v);
}

/* ---- exact data ------------------------------------------------------------ */

/* The arithmetic is exact_data.h's. */
__device__ int exact_range(const cb_data_spec &s) {
  return cb_exact_range(s.dtype, s.op, s.reduces, s.nranks);
}
__device__ int sum_weight(const cb_data_spec &s) {
  return s.reduces ? cb_sum_weight(s.op, s.nranks) : s.nranks;
}

__device__ long long exact_value(const cb_data_spec &s, uint64_t h, int r, size_t i) {
  const bool prod = s.reduces && s.op == CB_PROD;
  const int contributors = cb_exact_contributors(s.dtype, s.op, s.reduces, s.nranks);
  if (!cb_exact_contributes(contributors, s.nranks, r, i)) return prod ? 1 : 0;
  if (prod) return (h & 3) == 0 ? 2 : 1; /* products are powers of two */
  return (long long)(h % (uint64_t)exact_range(s));
}

/* ---- random data ----------------------------------------------------------- */

/* A random value of a floating type: a magnitude in [2^-6, 1) (never
 * subnormal) or [0.5, 2) for prod, a random sign; some zeros of either
 * sign, a quarter of the elements for min and max. */
template <typename T> __device__ T random_float(const cb_data_spec &s, uint64_t h) {
  const bool prod = s.reduces && s.op == CB_PROD;
  const bool minmax = s.reduces && (s.op == CB_MIN || s.op == CB_MAX);
  const double sign = (h >> 7) & 1 ? -1.0 : 1.0;
  const unsigned zero_pick = (unsigned)(h & 63);
  if (!prod && (minmax ? zero_pick < 16 : zero_pick == 0)) return from_double<T>(sign * 0.0);
  const double u = (double)(h >> 11) * 0x1p-53; /* [0, 1) */
  const double mag = prod ? exp2(2.0 * u - 1.0) : 0x1p-6 + (1.0 - 0x1p-6) * u;
  return from_double<T>(sign * mag);
}

/* The largest magnitude of a random integer of T: inputs of this total
 * weight (sum_weight) never overflow a sum (and prod draws from {-1, 1, 2},
 * which wrap alike in any order). */
template <typename T> __device__ long long random_int_limit(int weight) {
  const bool is_signed = (T)-1 < (T)0;
  unsigned bits = 8 * sizeof(T) - (is_signed ? 1 : 0);
  long long top = bits >= 41 ? 1ll << 40 : (long long)((1ull << bits) - 1);
  return top / weight;
}

template <typename T> __device__ T random_int(const cb_data_spec &s, uint64_t h) {
  const bool is_signed = (T)-1 < (T)0;
  if (s.reduces && s.op == CB_PROD) {
    int pick = (int)(h & 3);
    return (T)(pick == 0 ? 2 : pick == 1 && is_signed ? -1 : 1);
  }
  long long lim = random_int_limit<T>(sum_weight(s));
  if (!is_signed) return (T)(h % (uint64_t)(lim + 1));
  return (T)((long long)(h % (uint64_t)(2 * lim + 1)) - lim);
}

template <typename T> __device__ T random_value(const cb_data_spec &s, uint64_t h) {
  if constexpr (is_float_type<T>::value)
    return random_float<T>(s, h);
  else
    return random_int<T>(s, h);
}

/* Input element i of rank r in round seed. */
template <typename T>
__device__ T input_value(const cb_data_spec &s, uint64_t seed, int r, size_t i) {
  uint64_t h = input_hash(seed, r, i);
  return s.kind == CB_DATA_RANDOM ? random_value<T>(s, h) : from_int<T>(exact_value(s, h, r, i));
}

/* ---- expected values -------------------------------------------------------- */

template <typename T> __device__ T apply(T a, T b, cb_redop op) {
  switch (op) {
  case CB_PROD:
    return (T)(a * b);
  case CB_MIN:
    return a < b ? a : b;
  case CB_MAX:
    return a > b ? a : b;
  default:
    return (T)(a + b); /* sum, mulsum, and avg before its division */
  }
}
template <typename T> __device__ T apply_via_float(T a, T b, cb_redop op) {
  return T(apply<float>(float(a), float(b), op));
}
template <> __device__ __half apply<__half>(__half a, __half b, cb_redop op) {
  return apply_via_float(a, b, op);
}
template <>
__device__ __nv_bfloat16 apply<__nv_bfloat16>(__nv_bfloat16 a, __nv_bfloat16 b, cb_redop op) {
  return apply_via_float(a, b, op);
}
template <>
__device__ __nv_fp8_e4m3 apply<__nv_fp8_e4m3>(__nv_fp8_e4m3 a, __nv_fp8_e4m3 b, cb_redop op) {
  return apply_via_float(a, b, op);
}
template <>
__device__ __nv_fp8_e5m2 apply<__nv_fp8_e5m2>(__nv_fp8_e5m2 a, __nv_fp8_e5m2 b, cb_redop op) {
  return apply_via_float(a, b, op);
}

template <typename T> __device__ T divide(T sum, int n) {
  return (T)(sum / (T)n);
}
template <> __device__ __half divide<__half>(__half sum, int n) {
  return __float2half_rn(__half2float(sum) / (float)n);
}
template <> __device__ __nv_bfloat16 divide<__nv_bfloat16>(__nv_bfloat16 sum, int n) {
  return __float2bfloat16_rn(__bfloat162float(sum) / (float)n);
}
template <> __device__ __nv_fp8_e4m3 divide<__nv_fp8_e4m3>(__nv_fp8_e4m3 sum, int n) {
  return __nv_fp8_e4m3(float(sum) / (float)n);
}
template <> __device__ __nv_fp8_e5m2 divide<__nv_fp8_e5m2>(__nv_fp8_e5m2 sum, int n) {
  return __nv_fp8_e5m2(float(sum) / (float)n);
}

/* Rank r's input as it enters the reduction: mulsum multiplies it by r's
 * scalar, in the type (exact for exact data: 1 or 2 times a small value). */
template <typename T> __device__ T entering(const cb_data_spec &s, T x, int r) {
  return s.op == CB_MULSUM ? apply<T>(x, from_int<T>(cb_mulsum_scalar(r)), CB_PROD) : x;
}

/* The reduction over ranks 0..n-1 of input element i, in the type itself. */
template <typename T> __device__ T reduce_in_type(const cb_data_spec &s, uint64_t seed, size_t i) {
  T acc = entering<T>(s, input_value<T>(s, seed, 0, i), 0);
  for (int r = 1; r < s.nranks; r++)
    acc = apply<T>(acc, entering<T>(s, input_value<T>(s, seed, r, i), r), s.op);
  return s.op == CB_AVG ? divide<T>(acc, s.nranks) : acc;
}

/* The output of this rank is not the call's to write: a rooted collective
 * whose output is the root's alone, on another rank. */
__device__ bool untouched_rank(const cb_data_spec &s) {
  return (s.expect == CB_EXPECT_REDUCE_ROOT || s.expect == CB_EXPECT_GATHER_ROOT) &&
         s.rank != s.root;
}

/* Every byte 0xFF: the poison cb_data_poison writes. */
template <typename T> __device__ uint64_t poison_bits() {
  return sizeof(T) >= 8 ? ~0ull : (1ull << (8 * sizeof(T))) - 1;
}

/* alltoallv: output element j is element k of the piece from rank *src. The
 * pieces sit in rank order; a piece starts in its sender's input after the
 * sender's pieces for the ranks before us. */
template <typename T>
__device__ size_t alltoallv_source(const cb_data_spec &s, size_t j, int *src) {
  const size_t total = s.param_count * (size_t)s.nranks * sizeof(T);
  size_t at = 0;
  for (int from = 0; from < s.nranks; from++) {
    size_t len = cb_a2av_peer_bytes(from, s.rank, s.nranks, total, s.spread) / sizeof(T);
    if (j < at + len) {
      size_t start = 0;
      for (int to = 0; to < s.rank; to++)
        start += cb_a2av_peer_bytes(from, to, s.nranks, total, s.spread) / sizeof(T);
      *src = from;
      return start + (j - at);
    }
    at += len;
  }
  *src = 0; /* past every piece: no element of the output, never asked for */
  return j;
}

/* The input index a reduced output element j comes from. */
__device__ size_t reduced_index(const cb_data_spec &s, size_t j) {
  size_t p = s.param_count ? s.param_count : 1;
  return s.expect == CB_EXPECT_REDUCE_BLOCK ? (size_t)s.rank * p + j : j;
}

template <typename T> __device__ T expected(const cb_data_spec &s, uint64_t seed, size_t j) {
  size_t p = s.param_count ? s.param_count : 1;
  switch (s.expect) {
  case CB_EXPECT_REDUCE:
  case CB_EXPECT_REDUCE_BLOCK:
  case CB_EXPECT_REDUCE_ROOT:
    return reduce_in_type<T>(s, seed, reduced_index(s, j));
  case CB_EXPECT_GATHER:
  case CB_EXPECT_GATHER_ROOT:
    return input_value<T>(s, seed, (int)(j / p), j % p);
  case CB_EXPECT_SCATTER:
    return input_value<T>(s, seed, s.root, (size_t)s.rank * p + j);
  case CB_EXPECT_ALLTOALLV: {
    int src;
    size_t i = alltoallv_source<T>(s, j, &src);
    return input_value<T>(s, seed, src, i);
  }
  case CB_EXPECT_ALLTOALL:
    return input_value<T>(s, seed, (int)(j / p), (size_t)s.rank * p + j % p);
  case CB_EXPECT_FROM_PREV:
    return input_value<T>(s, seed, (s.rank - 1 + s.nranks) % s.nranks, j);
  default:
    return input_value<T>(s, seed, s.root, j);
  }
}

/* The float64 reference of a reduced element, in rank order, and the sum of
 * the inputs' magnitudes (the scale of a sum's rounding error; mulsum's
 * inputs scaled, which is exact). */
template <typename T>
__device__ double reference(const cb_data_spec &s, uint64_t seed, size_t i, double *abs_sum) {
  double acc = 0, mags = 0;
  for (int r = 0; r < s.nranks; r++) {
    double x = to_double<T>(input_value<T>(s, seed, r, i));
    if (s.op == CB_MULSUM) x *= cb_mulsum_scalar(r);
    mags += fabs(x);
    if (r == 0)
      acc = x;
    else if (s.op == CB_PROD)
      acc *= x;
    else if (s.op == CB_MIN)
      acc = x < acc ? x : acc;
    else if (s.op == CB_MAX)
      acc = x > acc ? x : acc;
    else
      acc += x;
  }
  *abs_sum = mags;
  return s.op == CB_AVG ? acc / s.nranks : acc;
}

template <typename T> __device__ uint64_t bits_of(T v) {
  uint64_t b = 0;
  memcpy(&b, &v, sizeof v);
  return b;
}

/* Machine epsilon and smallest normal value of the floating type checked
 * (0 for the integer types): types.c's. */
struct float_limits {
  double eps, tiny;
};
float_limits limits_of(cb_dtype t) {
  return {cb_dtype_epsilon(t), cb_dtype_min_normal(t)};
}

/* Whether output element j (got) is right. */
template <typename T>
__device__ bool element_ok(const cb_data_spec &s, uint64_t seed, size_t j, T got,
                           float_limits lim) {
  if (untouched_rank(s)) {
    if (s.in_place && j >= s.input_offset && j - s.input_offset < s.input_count)
      return bits_of<T>(got) == bits_of<T>(input_value<T>(s, seed, s.rank, j - s.input_offset));
    return bits_of<T>(got) == poison_bits<T>();
  }
  if (s.reduces && s.kind == CB_DATA_RANDOM && is_float_type<T>::value) {
    double abs_sum, ref = reference<T>(s, seed, reduced_index(s, j), &abs_sum);
    return fabs(to_double<T>(got) - ref) <=
           cb_tolerance(lim.eps, lim.tiny, s.op, s.nranks, abs_sum, ref);
  }
  T want = expected<T>(s, seed, j);
  bool loose = s.reduces && s.op == CB_AVG && lim.eps > 0 && (s.nranks & (s.nranks - 1)) != 0;
  if (!loose) return bits_of<T>(want) == bits_of<T>(got);
  double w = to_double<T>(want), g = to_double<T>(got);
  return fabs(g - w) <= s.nranks * lim.eps * (fabs(w) > 1.0 ? fabs(w) : 1.0);
}

template <typename T> __global__ void fill_kernel(cb_data_spec s, T *buf, size_t count) {
  const uint64_t seed = round_of(s);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
       i += (size_t)gridDim.x * blockDim.x)
    buf[i] = input_value<T>(s, seed, s.rank, i);
}

/* Sums v over the warp into lane 0. */
__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

template <typename T>
__global__ void check_kernel(cb_data_spec s, const T *buf, size_t count, float_limits lim,
                             unsigned long long *wrong, unsigned long long *hash) {
  const uint64_t seed = round_of(s);
  unsigned long long bad = 0, h = 0;
  for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < count;
       j += (size_t)gridDim.x * blockDim.x) {
    T got = buf[j];
    bad += !element_ok<T>(s, seed, j, got, lim);
    /* Position and bits: equal outputs give equal sums, whatever the grid. */
    if (hash) h += mix(bits_of<T>(got) ^ mix((uint64_t)j + 0x632be59bd9b4e019ull));
  }
  bad = warp_sum(bad);
  h = warp_sum(h);
  if ((threadIdx.x & 31) == 0) {
    if (bad) atomicAdd(wrong, bad);
    if (hash && h) atomicAdd(hash, h);
  }
}

__global__ void check_guard_kernel(const unsigned char *p, size_t bytes,
                                   unsigned long long *wrong) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < bytes && p[i] != 0xFF) atomicAdd(wrong, 1ull);
}

__global__ void advance_kernel(uint64_t *round, uint64_t by) {
  *round += by;
}

unsigned grid_for(size_t count) {
  size_t blocks = (count + 255) / 256;
  return (unsigned)(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
}

template <typename T>
void fill_typed(const cb_data_spec *s, void *buf, size_t count, cudaStream_t st) {
  fill_kernel<T><<<grid_for(count), 256, 0, st>>>(*s, (T *)buf, count);
}

template <typename T>
void check_typed(const cb_data_spec *s, const void *buf, size_t count, unsigned long long *w,
                 unsigned long long *h, cudaStream_t st) {
  check_kernel<T>
      <<<grid_for(count), 256, 0, st>>>(*s, (const T *)buf, count, limits_of(s->dtype), w, h);
}

} // namespace

extern "C" const char *cb_data_kind_name(cb_data_kind k) {
  return k == CB_DATA_RANDOM ? "random" : "exact";
}

extern "C" int cb_data_kind_parse(const char *name) {
  if (strcasecmp(name, "exact") == 0) return CB_DATA_EXACT; /* names: any case (options.md) */
  if (strcasecmp(name, "random") == 0) return CB_DATA_RANDOM;
  return -1;
}

extern "C" void cb_data_fill_input(const cb_data_spec *s, void *buf, size_t count,
                                   cudaStream_t stream) {
  if (count == 0) return;
  CB_DISPATCH_TYPE(s->dtype, fill_typed, s, buf, count, stream);
  CB_CUDA(cudaGetLastError());
}

extern "C" void cb_data_poison(void *buf, size_t bytes, cudaStream_t stream) {
  if (bytes) CB_CUDA(cudaMemsetAsync(buf, 0xFF, bytes, stream));
}

extern "C" void cb_data_check(const cb_data_spec *s, const void *buf, size_t count,
                              unsigned long long *wrong, unsigned long long *hash,
                              cudaStream_t stream) {
  if (count == 0) return;
  CB_DISPATCH_TYPE(s->dtype, check_typed, s, buf, count, wrong, hash, stream);
  CB_CUDA(cudaGetLastError());
}

extern "C" void cb_data_check_guard(const void *buf, size_t bytes, unsigned long long *wrong,
                                    cudaStream_t stream) {
  if (bytes == 0) return;
  check_guard_kernel<<<(unsigned)((bytes + 255) / 256), 256, 0, stream>>>(
      (const unsigned char *)buf, bytes, wrong);
  CB_CUDA(cudaGetLastError());
}

extern "C" void cb_data_advance_round(uint64_t *round, uint64_t by, cudaStream_t stream) {
  advance_kernel<<<1, 1, 0, stream>>>(round, by);
  CB_CUDA(cudaGetLastError());
}
