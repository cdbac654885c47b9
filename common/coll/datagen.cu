#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "cuda_check.h"
#include "datagen.h"
#include "device/dispatch.cuh"

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

/* Range of input values for the spec: every partial reduction stays exact. */
__host__ __device__ int value_range(const cb_data_spec &s) {
  if (s.reduces) {
    int m = 128 / s.nranks; /* sums of n ranks stay below 128: exact in int8 and bfloat16 */
    return m < 2 ? 2 : (m > 16 ? 16 : m);
  }
  switch (s.dtype) { /* data is only moved: the widest range each type holds exactly */
  case CB_INT8:
  case CB_UINT8:
    return 128;
  case CB_BFLOAT16:
    return 256;
  case CB_HALF:
    return 2048;
  default:
    return 1 << 20;
  }
}

__device__ int input_int(const cb_data_spec &s, int rank, size_t i) {
  uint64_t h = mix(((uint64_t)i << 16) ^ ((uint64_t)rank << 4) ^ (uint64_t)s.seed ^
                   0x9e3779b97f4a7c15ull * (uint64_t)(s.seed + 1));
  if (s.reduces && s.op == CB_PROD) return (h & 3) == 0 ? 2 : 1; /* products are powers of two */
  return (int)(h % (uint64_t)value_range(s));
}

/* Conversions and arithmetic through float for the 16-bit types; every
 * value here is a small integer, so nothing rounds. */
template <typename T> __device__ T from_int(int v) {
  return (T)v;
}
template <> __device__ __half from_int<__half>(int v) {
  return __int2half_rn(v);
}
template <> __device__ __nv_bfloat16 from_int<__nv_bfloat16>(int v) {
  return __int2bfloat16_rn(v);
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

template <typename T> __device__ T apply(T a, T b, cb_redop op) {
  switch (op) {
  case CB_PROD:
    return (T)(a * b);
  case CB_MIN:
    return a < b ? a : b;
  case CB_MAX:
    return a > b ? a : b;
  default:
    return (T)(a + b); /* sum, and avg before its division */
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

template <typename T> __device__ T divide(T sum, int n) {
  return (T)(sum / (T)n);
}
template <> __device__ __half divide<__half>(__half sum, int n) {
  return __float2half_rn(__half2float(sum) / (float)n);
}
template <> __device__ __nv_bfloat16 divide<__nv_bfloat16>(__nv_bfloat16 sum, int n) {
  return __float2bfloat16_rn(__bfloat162float(sum) / (float)n);
}

template <typename T> __device__ T reduce_over_ranks(const cb_data_spec &s, size_t i) {
  T acc = from_int<T>(input_int(s, 0, i));
  for (int r = 1; r < s.nranks; r++) acc = apply<T>(acc, from_int<T>(input_int(s, r, i)), s.op);
  return s.op == CB_AVG ? divide<T>(acc, s.nranks) : acc;
}

template <typename T> __device__ T expected(const cb_data_spec &s, size_t j) {
  size_t p = s.param_count ? s.param_count : 1;
  switch (s.expect) {
  case CB_EXPECT_REDUCE:
    return reduce_over_ranks<T>(s, j);
  case CB_EXPECT_REDUCE_BLOCK:
    return reduce_over_ranks<T>(s, (size_t)s.rank * p + j);
  case CB_EXPECT_GATHER:
    return from_int<T>(input_int(s, (int)(j / p), j % p));
  case CB_EXPECT_ALLTOALL:
    return from_int<T>(input_int(s, (int)(j / p), (size_t)s.rank * p + j % p));
  case CB_EXPECT_FROM_PREV:
    return from_int<T>(input_int(s, (s.rank - 1 + s.nranks) % s.nranks, j));
  default:
    return from_int<T>(input_int(s, s.root, j));
  }
}

template <typename T> __device__ bool same_bits(T a, T b) {
  const unsigned char *x = (const unsigned char *)&a, *y = (const unsigned char *)&b;
  for (size_t k = 0; k < sizeof(T); k++)
    if (x[k] != y[k]) return false;
  return true;
}

template <typename T> __global__ void fill_kernel(cb_data_spec s, T *buf, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
       i += (size_t)gridDim.x * blockDim.x)
    buf[i] = from_int<T>(input_int(s, s.rank, i));
}

template <typename T>
__global__ void check_kernel(cb_data_spec s, const T *buf, size_t count, double eps,
                             unsigned long long *wrong) {
  bool loose = s.op == CB_AVG && s.reduces && eps > 0 && (s.nranks & (s.nranks - 1)) != 0;
  unsigned long long mine = 0;
  for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < count;
       j += (size_t)gridDim.x * blockDim.x) {
    T want = expected<T>(s, j), got = buf[j];
    if (loose) {
      double w = to_double<T>(want), g = to_double<T>(got);
      mine += !(fabs(g - w) <= s.nranks * eps * (fabs(w) > 1.0 ? fabs(w) : 1.0));
    } else {
      mine += !same_bits<T>(want, got);
    }
  }
  if (mine) atomicAdd(wrong, mine);
}

unsigned grid_for(size_t count) {
  size_t blocks = (count + 255) / 256;
  return (unsigned)(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
}

/* Machine epsilon of each floating type, 0 for integers. */
double epsilon_of(cb_dtype t) {
  switch (t) {
  case CB_HALF:
    return 0x1p-10;
  case CB_BFLOAT16:
    return 0x1p-7;
  case CB_FLOAT:
    return 0x1p-23;
  case CB_DOUBLE:
    return 0x1p-52;
  default:
    return 0;
  }
}

template <typename T>
void fill_typed(const cb_data_spec *s, void *buf, size_t count, cudaStream_t st) {
  fill_kernel<T><<<grid_for(count), 256, 0, st>>>(*s, (T *)buf, count);
}

template <typename T>
void check_typed(const cb_data_spec *s, const void *buf, size_t count, unsigned long long *w,
                 cudaStream_t st) {
  check_kernel<T>
      <<<grid_for(count), 256, 0, st>>>(*s, (const T *)buf, count, epsilon_of(s->dtype), w);
}

} // namespace

extern "C" void cb_data_fill_input(const cb_data_spec *s, void *buf, size_t count,
                                   cudaStream_t stream) {
  if (count == 0) return;
  CB_DISPATCH_TYPE(s->dtype, fill_typed, s, buf, count, stream);
  CB_CUDA(cudaGetLastError());
}

extern "C" void cb_data_poison(void *buf, size_t bytes, cudaStream_t stream) {
  if (bytes) CB_CUDA(cudaMemsetAsync(buf, 0xFF, bytes, stream));
}

extern "C" long long cb_data_check(const cb_data_spec *s, const void *buf, size_t count,
                                   unsigned long long *counter, cudaStream_t stream) {
  if (count == 0) return 0;
  unsigned long long wrong = 0;
  CB_CUDA(cudaMemsetAsync(counter, 0, sizeof *counter, stream));
  CB_DISPATCH_TYPE(s->dtype, check_typed, s, buf, count, counter, stream);
  CB_CUDA(cudaGetLastError());
  CB_CUDA(cudaMemcpyAsync(&wrong, counter, sizeof wrong, cudaMemcpyDeviceToHost, stream));
  CB_CUDA(cudaStreamSynchronize(stream));
  return (long long)wrong;
}
