// peer_bw.cu -- NVLink peer-copy bandwidth probe for 2 x H200 (sm_90).
//
// Compares, for a SIZE-byte copy GPU a -> GPU b:
//   ce       cudaMemcpyPeerAsync on GPU a's stream            (copy engine, "push" stream)
//   st       SM kernel on GPU a: uint4 load local, uint4 store to peer   (push)
//   tma      kernel on GPU a: cp.async.bulk global->smem (local src), then
//            cp.async.bulk smem->global (peer dst)            (push)
//   ce_pull  cudaMemcpyPeerAsync on GPU b's stream
//   st_pull  SM kernel on GPU b: uint4 load from peer src, store local
//   tma_ld   TMA kernel on GPU b: bulk load from peer src, bulk store local (pull)
//   tma_loc  TMA kernel local copy on GPU 0 (src0 -> dst0), sanity check of the
//            kernel's own throughput (reported as GB/s of bytes copied)
// Each measured "one" (0->1 only) and "both" (0->1 and 1->0 at once).
//
// Build: nvcc -arch=sm_90 -O3 -Xcompiler -Wall -o /tmp/peer_bw peer_bw.cu
// Usage: peer_bw [-s bytes[K|M|G]] [-n iters] [-w warmups] [-m m1,m2,..] [-d one|both]
//
// GB = 1e9 bytes.  Output line:
//   <method> <variant...> <one|both|loc>  <X> GB/s/dir  (ev0 <Y> ev1 <Z>)  OK|WRONG n (first i)
// X = SIZE*iters / host wall time from first launch to end of both streams.
// ev0/ev1 = per-stream cudaEvent time of the stream doing 0->1 / 1->0 (launch device).

#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <chrono>
#include <string>
#include <vector>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, \
              __LINE__, cudaGetErrorString(e_));                                       \
      exit(2);                                                                         \
    }                                                                                  \
  } while (0)

// ----------------------------------------------------------------------------------
// Pattern / validation
// ----------------------------------------------------------------------------------
__host__ __device__ __forceinline__ uint32_t pat(size_t i, uint32_t seed) {
  return (uint32_t)i * 2654435761u ^ seed;
}
static uint32_t seed_of(int dev) { return dev == 0 ? 0x00000000u : 0x5bd1e995u; }

__global__ void fill_kernel(uint32_t* p, size_t nw, uint32_t seed) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw; i += stride)
    p[i] = pat(i, seed);
}

__global__ void check_kernel(const uint32_t* p, size_t nw, uint32_t seed,
                             unsigned long long* bad, unsigned long long* first) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  unsigned long long nb = 0, f = ~0ull;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw; i += stride) {
    if (p[i] != pat(i, seed)) {
      if (nb == 0) f = i;
      nb++;
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    nb += __shfl_down_sync(0xffffffffu, nb, o);
    unsigned long long fo = __shfl_down_sync(0xffffffffu, f, o);
    f = fo < f ? fo : f;
  }
  if ((threadIdx.x & 31) == 0 && nb) {
    atomicAdd(bad, nb);
    atomicMin(first, f);
  }
}

// ----------------------------------------------------------------------------------
// SM store copy
// ----------------------------------------------------------------------------------
template <int U>
__global__ void __launch_bounds__(512) st_copy(const uint4* __restrict__ src,
                                               uint4* __restrict__ dst, size_t n) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (size_t)(U - 1) * stride < n; i += (size_t)U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = src[i + (size_t)u * stride];
#pragma unroll
    for (int u = 0; u < U; u++) dst[i + (size_t)u * stride] = v[u];
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

// ----------------------------------------------------------------------------------
// TMA (cp.async.bulk) helpers -- sm_90 PTX
// ----------------------------------------------------------------------------------
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ uint64_t gmem_u64(const void* p) {
  return (uint64_t)__cvta_generic_to_global(p);
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok != 0;
}
__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  if (mbar_try_wait(bar, parity)) return;
  const uint64_t t0 = globaltimer();
  while (!mbar_try_wait(bar, parity)) {
    if (globaltimer() - t0 > 5000000000ull) {  // 5 s: something is broken
      printf("TMA mbarrier wait TIMEOUT block %d parity %u\n", blockIdx.x, parity);
      __trap();
    }
  }
}
// global -> shared (CTA-local smem address, implicit 1-CTA cluster), completes on mbarrier
__device__ __forceinline__ void bulk_g2s(uint32_t dst_smem, const void* src, uint32_t bytes,
                                         uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          dst_smem),
      "l"(gmem_u64(src)), "r"(bytes), "r"(bar)
      : "memory");
}
// shared -> global, bulk-group completion
__device__ __forceinline__ void bulk_s2g(void* dst, uint32_t src_smem, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(gmem_u64(dst)),
               "r"(src_smem), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void bulk_wait_read_n(int n) {  // n = groups allowed pending
  switch (n) {
    case 0: bulk_wait_read<0>(); break;
    case 1: bulk_wait_read<1>(); break;
    case 2: bulk_wait_read<2>(); break;
    case 3: bulk_wait_read<3>(); break;
    case 4: bulk_wait_read<4>(); break;
    case 5: bulk_wait_read<5>(); break;
    case 6: bulk_wait_read<6>(); break;
    default: bulk_wait_read<7>(); break;
  }
}
__device__ __forceinline__ void bulk_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

constexpr int kMaxStages = 8;

// One elected thread per block does all the work.  Block b handles tiles
// b, b+G, b+2G, ...  (local index k).  Tile k lives in stage k % S; its load
// completes phase k / S of mbarrier[k % S].  Up to A loads are in flight
// (1 <= A <= S); before loading tile k+A into stage (k+A)%S the store of tile
// k+A-S (issued S-A bulk groups ago) must have finished reading smem.
__global__ void __launch_bounds__(32) tma_copy(const uint8_t* __restrict__ src,
                                               uint8_t* __restrict__ dst, size_t size,
                                               uint32_t tile, int S, int A) {
  extern __shared__ __align__(1024) uint8_t smem[];
  if (threadIdx.x != 0) return;

  const uint32_t buf = smem_u32(smem);
  const uint32_t bars = buf + (uint32_t)S * tile;  // S x 8 bytes, 8-aligned (tile % 16 == 0)
  const size_t ntiles = (size + tile - 1) / tile;
  const size_t G = gridDim.x, b = blockIdx.x;
  const size_t nloc = ntiles > b ? (ntiles - b + G - 1) / G : 0;
  if (nloc == 0) return;

  for (int s = 0; s < S; s++) mbar_init(bars + 8u * s, 1);
  fence_mbar_init();

  auto issue_load = [&](size_t k) {
    const size_t off = (b + k * G) * (size_t)tile;
    const uint32_t bytes = (uint32_t)((size - off) < tile ? (size - off) : tile);
    const int s = (int)(k % S);
    mbar_expect_tx(bars + 8u * s, bytes);
    bulk_g2s(buf + (uint32_t)s * tile, src + off, bytes, bars + 8u * s);
  };

  const size_t pro = nloc < (size_t)A ? nloc : (size_t)A;
  for (size_t k = 0; k < pro; k++) issue_load(k);

  for (size_t k = 0; k < nloc; k++) {
    const int s = (int)(k % S);
    const size_t off = (b + k * G) * (size_t)tile;
    const uint32_t bytes = (uint32_t)((size - off) < tile ? (size - off) : tile);
    mbar_wait(bars + 8u * s, (uint32_t)((k / S) & 1));
    bulk_s2g(dst + off, buf + (uint32_t)s * tile, bytes);
    bulk_commit();
    if (k + A < nloc) {
      bulk_wait_read_n(S - A);  // store of tile k+A-S has read its stage
      issue_load(k + A);
    }
  }
  bulk_wait_all();
}

// ----------------------------------------------------------------------------------
// Host side
// ----------------------------------------------------------------------------------
struct Dir {
  int a, b, L;  // copy from src[a] to dst[b], launched on device L
};

enum Kind { K_CE, K_ST, K_TMA, K_MIX };
struct Variant {
  std::string method;  // name used for -m filtering and printing
  Kind kind;
  bool pull, local;
  int grid = 0, unroll = 1;
  uint32_t tile = 0;
  int S = 0, A = 0;
  int ce_pct = 0;
  std::string desc() const {
    char s[160];
    if (kind == K_CE) snprintf(s, sizeof s, "-");
    else if (kind == K_ST) snprintf(s, sizeof s, "unroll=%d grid=%d x512", unroll, grid);
    else if (kind == K_MIX) snprintf(s, sizeof s, "ce=%d%% st grid=%d x512", ce_pct, grid);
    else snprintf(s, sizeof s, "tile=%u stages=%d ahead=%d grid=%d", tile, S, A, grid);
    return s;
  }
};

static size_t g_size = 1ull << 30;
static int g_iters = 20, g_warm = 3;
static uint8_t* g_src[2];
static uint8_t* g_dst[2];
static cudaStream_t g_stream[2], g_stream2[2];
static cudaEvent_t g_mix_fork[2], g_mix_join[2];
static cudaEvent_t g_ev0[2], g_ev1[2];
static unsigned long long* g_bad[2];
static int g_smem_optin = 0, g_num_sms = 0;

static void launch(const Variant& v, const Dir& d) {
  CK(cudaSetDevice(d.L));
  cudaStream_t st = g_stream[d.L];
  const uint8_t* src = g_src[d.a];
  uint8_t* dst = g_dst[d.b];
  switch (v.kind) {
    case K_CE:
      if (d.a == d.b) CK(cudaMemcpyAsync(dst, src, g_size, cudaMemcpyDeviceToDevice, st));
      else CK(cudaMemcpyPeerAsync(dst, d.b, src, d.a, g_size, st));
      break;
    case K_ST: {
      size_t n = g_size / 16;
      if (v.unroll == 4) st_copy<4><<<v.grid, 512, 0, st>>>((const uint4*)src, (uint4*)dst, n);
      else st_copy<1><<<v.grid, 512, 0, st>>>((const uint4*)src, (uint4*)dst, n);
      CK(cudaGetLastError());
      break;
    }
    case K_MIX: {
      /* CE copies the first ce_pct percent on a second stream while SM stores move the rest. */
      size_t ce = (g_size * (size_t)v.ce_pct / 100) / 16 * 16;
      CK(cudaEventRecord(g_mix_fork[d.L], st));
      CK(cudaStreamWaitEvent(g_stream2[d.L], g_mix_fork[d.L], 0));
      if (ce) CK(cudaMemcpyPeerAsync(dst, d.b, src, d.a, ce, g_stream2[d.L]));
      size_t n = (g_size - ce) / 16;
      if (n) st_copy<4><<<v.grid, 512, 0, st>>>((const uint4*)(src + ce), (uint4*)(dst + ce), n);
      CK(cudaGetLastError());
      CK(cudaEventRecord(g_mix_join[d.L], g_stream2[d.L]));
      CK(cudaStreamWaitEvent(st, g_mix_join[d.L], 0));
      break;
    }
    case K_TMA: {
      size_t sm = (size_t)v.S * v.tile + 8 * v.S;
      tma_copy<<<v.grid, 32, sm, st>>>(src, dst, g_size, v.tile, v.S, v.A);
      CK(cudaGetLastError());
      break;
    }
  }
}

static void sync_all() {
  for (int d = 0; d < 2; d++) {
    CK(cudaSetDevice(d));
    CK(cudaDeviceSynchronize());
  }
}

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static void run_variant(const Variant& v, const std::vector<Dir>& dirs, const char* mode) {
  // clear destinations so a path that writes nothing cannot validate
  for (const Dir& d : dirs) {
    CK(cudaSetDevice(d.b));
    CK(cudaMemset(g_dst[d.b], 0, g_size));
  }
  sync_all();
  for (int w = 0; w < g_warm; w++)
    for (const Dir& d : dirs) launch(v, d);
  sync_all();

  const double t0 = now_s();
  for (const Dir& d : dirs) {
    CK(cudaSetDevice(d.L));
    CK(cudaEventRecord(g_ev0[d.L], g_stream[d.L]));
  }
  for (int i = 0; i < g_iters; i++)
    for (const Dir& d : dirs) launch(v, d);
  for (const Dir& d : dirs) {
    CK(cudaSetDevice(d.L));
    CK(cudaEventRecord(g_ev1[d.L], g_stream[d.L]));
  }
  for (const Dir& d : dirs) {
    CK(cudaSetDevice(d.L));
    CK(cudaStreamSynchronize(g_stream[d.L]));
  }
  const double t1 = now_s();
  sync_all();

  const double bytes = (double)g_size * g_iters;
  const double wall_gbs = bytes / (t1 - t0) / 1e9;
  double ev_gbs[2] = {0, 0};  // index = direction slot (0: first dir, 1: second dir)
  for (size_t i = 0; i < dirs.size() && i < 2; i++) {
    float ms = 0;
    CK(cudaSetDevice(dirs[i].L));
    CK(cudaEventElapsedTime(&ms, g_ev0[dirs[i].L], g_ev1[dirs[i].L]));
    ev_gbs[i] = bytes / (ms * 1e-3) / 1e9;
  }

  // validate
  unsigned long long nbad = 0, first = ~0ull;
  for (const Dir& d : dirs) {
    CK(cudaSetDevice(d.b));
    unsigned long long h[2] = {0, ~0ull};
    CK(cudaMemcpy(g_bad[d.b], h, sizeof h, cudaMemcpyHostToDevice));
    check_kernel<<<g_num_sms * 4, 512>>>((const uint32_t*)g_dst[d.b], g_size / 4, seed_of(d.a),
                                         g_bad[d.b], g_bad[d.b] + 1);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, g_bad[d.b], sizeof h, cudaMemcpyDeviceToHost));
    nbad += h[0];
    if (h[1] < first) first = h[1];
  }
  char ok[96];
  if (nbad == 0) snprintf(ok, sizeof ok, "OK");
  else snprintf(ok, sizeof ok, "WRONG %llu (first word %llu)", nbad, first);

  char ev[64];
  if (dirs.size() == 2) snprintf(ev, sizeof ev, "(ev0 %6.1f ev1 %6.1f)", ev_gbs[0], ev_gbs[1]);
  else snprintf(ev, sizeof ev, "(ev0 %6.1f)", ev_gbs[0]);
  printf("%-8s %-38s %-4s %7.1f GB/s/dir  %-24s %s\n", v.method.c_str(), v.desc().c_str(), mode,
         wall_gbs, ev, ok);
  fflush(stdout);
}

static size_t parse_size(const char* s) {
  char* e = nullptr;
  double v = strtod(s, &e);
  if (e && (*e == 'k' || *e == 'K')) v *= 1024;
  else if (e && (*e == 'm' || *e == 'M')) v *= 1024 * 1024;
  else if (e && (*e == 'g' || *e == 'G')) v *= 1024.0 * 1024 * 1024;
  return (size_t)v;
}

static void usage(const char* p) {
  fprintf(stderr,
          "usage: %s [-s bytes[K|M|G]] [-n iters] [-w warmups] [-m methods] [-d one|both]\n"
          "  methods (comma list, exact names): ce,mix,st,tma,ce_pull,st_pull,tma_ld,tma_loc\n",
          p);
  exit(1);
}

int main(int argc, char** argv) {
  std::string mfilter, dfilter;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (i + 1 >= argc) usage(argv[0]);
    if (a == "-s") g_size = parse_size(argv[++i]);
    else if (a == "-n") g_iters = atoi(argv[++i]);
    else if (a == "-w") g_warm = atoi(argv[++i]);
    else if (a == "-m") mfilter = argv[++i];
    else if (a == "-d") dfilter = argv[++i];
    else usage(argv[0]);
  }
  if (g_size == 0 || g_size % 16 != 0 || g_iters < 1 || g_warm < 0) {
    fprintf(stderr, "size must be a nonzero multiple of 16, iters >= 1\n");
    return 1;
  }
  auto want_m = [&](const std::string& m) {
    if (mfilter.empty()) return true;
    std::string f = "," + mfilter + ",";
    return f.find("," + m + ",") != std::string::npos;
  };
  auto want_d = [&](const char* d) { return dfilter.empty() || dfilter == d; };

  int ndev = 0;
  CK(cudaGetDeviceCount(&ndev));
  if (ndev < 2) {
    fprintf(stderr, "need 2 GPUs, found %d\n", ndev);
    return 1;
  }
  for (int d = 0; d < 2; d++) {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, d));
    printf("GPU %d: %s sm_%d%d SMs=%d smemOptin=%zu\n", d, p.name, p.major, p.minor,
           p.multiProcessorCount, p.sharedMemPerBlockOptin);
    g_num_sms = p.multiProcessorCount;
    g_smem_optin = (int)p.sharedMemPerBlockOptin;
  }
  int can01 = 0, can10 = 0, rank = -1;
  CK(cudaDeviceCanAccessPeer(&can01, 0, 1));
  CK(cudaDeviceCanAccessPeer(&can10, 1, 0));
  cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, 0, 1);
  printf("peer access 0->1 %d, 1->0 %d, perf rank %d\n", can01, can10, rank);
  if (!can01 || !can10) return 1;

  for (int d = 0; d < 2; d++) {
    CK(cudaSetDevice(d));
    cudaError_t e = cudaDeviceEnablePeerAccess(1 - d, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
    else CK(e);
    CK(cudaMalloc(&g_src[d], g_size));
    CK(cudaMalloc(&g_dst[d], g_size));
    CK(cudaMalloc(&g_bad[d], 2 * sizeof(unsigned long long)));
    CK(cudaStreamCreateWithFlags(&g_stream[d], cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&g_stream2[d], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&g_mix_fork[d], cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&g_mix_join[d], cudaEventDisableTiming));
    CK(cudaEventCreate(&g_ev0[d]));
    CK(cudaEventCreate(&g_ev1[d]));
    CK(cudaFuncSetAttribute(tma_copy, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            g_smem_optin));
    fill_kernel<<<g_num_sms * 4, 512>>>((uint32_t*)g_src[d], g_size / 4, seed_of(d));
    CK(cudaGetLastError());
  }
  sync_all();
  printf("size %zu bytes (%.3f GiB), iters %d, warmups %d; GB/s = 1e9 B/s, per direction\n",
         g_size, g_size / 1073741824.0, g_iters, g_warm);

  // ---- build variant list ----
  std::vector<Variant> vs;
  auto add_ce = [&](const char* m, bool pull) {
    Variant v; v.method = m; v.kind = K_CE; v.pull = pull; v.local = false;
    vs.push_back(v);
  };
  auto add_st = [&](const char* m, bool pull, int grid, int unroll) {
    Variant v; v.method = m; v.kind = K_ST; v.pull = pull; v.local = false;
    v.grid = grid; v.unroll = unroll;
    vs.push_back(v);
  };
  auto add_tma = [&](const char* m, bool pull, bool local, uint32_t tile, int S, int A,
                     int grid) {
    size_t sm = (size_t)S * tile + 8 * S;
    if (sm > (size_t)g_smem_optin || S > kMaxStages || A < 1 || A > S) return;
    if (grid > g_num_sms) {  // only if >1 block fits per SM
      int occ = 0;
      CK(cudaSetDevice(0));
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, tma_copy, 32, sm));
      if (occ * g_num_sms < grid) return;
    }
    Variant v; v.method = m; v.kind = K_TMA; v.pull = pull; v.local = local;
    v.tile = tile; v.S = S; v.A = A; v.grid = grid;
    vs.push_back(v);
  };

  add_ce("ce", false);
  for (int pct : {95, 90, 85, 80, 70})
    for (int g : {8, 16, 32}) {
      Variant v; v.method = "mix"; v.kind = K_MIX; v.pull = false; v.local = false;
      v.grid = g; v.ce_pct = pct;
      vs.push_back(v);
    }
  for (int u : {1, 4})
    for (int g : {32, 64, 132, 264}) add_st("st", false, g, u);
  struct TC { uint32_t tile; int S, A; };
  const TC tcs[] = {{16384, 4, 2},  {16384, 8, 2}, {16384, 8, 4}, {32768, 2, 1},
                    {32768, 4, 1},  {32768, 4, 2}, {65536, 2, 1}, {65536, 3, 1},
                    {65536, 3, 2}};
  for (const TC& t : tcs)
    for (int g : {32, 66, 132, 264}) add_tma("tma", false, false, t.tile, t.S, t.A, g);
  add_ce("ce_pull", true);
  for (int g : {132, 264}) add_st("st_pull", true, g, 4);
  add_st("st_pull", true, 132, 1);
  const TC pcs[] = {{16384, 8, 4}, {32768, 4, 2}, {65536, 3, 1}};
  for (const TC& t : pcs)
    for (int g : {32, 66, 132}) add_tma("tma_ld", true, false, t.tile, t.S, t.A, g);
  add_tma("tma_loc", false, true, 32768, 4, 2, 132);
  add_tma("tma_loc", false, true, 65536, 3, 1, 132);

  const double T0 = now_s();
  for (const Variant& v : vs) {
    if (!want_m(v.method)) continue;
    if (v.local) {
      run_variant(v, {Dir{0, 0, 0}}, "loc");
      continue;
    }
    Dir d01{0, 1, v.pull ? 1 : 0}, d10{1, 0, v.pull ? 0 : 1};
    if (want_d("one")) run_variant(v, {d01}, "one");
    if (want_d("both")) run_variant(v, {d01, d10}, "both");
  }
  printf("done in %.1f s\n", now_s() - T0);
  return 0;
}
