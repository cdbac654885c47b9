/* The ce kernels' flag kernels (ce_flags.h). */
#include "ce_flags.h"

#include "collbench/cuda_check.h"
#include "collbench/device/handshake.cuh"

#define FLAG_THREADS 32 /* one per partner: at least CB_MAX_PEERS - 1 */

__global__ void __launch_bounds__(FLAG_THREADS)
    ce_flag_kernel(cb_hs_areas hs, uint64_t *epoch, int rank, int nranks, unsigned partners,
                   int end, cb_spin_info spin) {
  const uint64_t e = *epoch + 1;
  cb_block_handshake_with(hs, rank, nranks, 0, e, end ? CB_HS_END(e) : CB_HS_START(e), partners,
                          spin);
  /* Every thread read *epoch before the handshake's barriers. */
  if (end && threadIdx.x == 0) *epoch = e;
}

extern "C" void cb_ce_flags_setup(cb_kernel_ctx *ctx, cb_ce_flags *f) {
  cb_peer_alloc(ctx->world, CB_HS_AREA_BYTES(1), &f->words);
  CB_CUDA(cudaMalloc((void **)&f->epoch, sizeof *f->epoch));
  CB_CUDA(cudaMemset(f->epoch, 0, sizeof *f->epoch));
  CB_CUDA(cudaDeviceSynchronize());
}

extern "C" void cb_ce_flags_free(cb_kernel_ctx *ctx, cb_ce_flags *f) {
  cb_peer_free(ctx->world, &f->words);
  CB_CUDA(cudaFree(f->epoch));
}

extern "C" void cb_ce_flags_launch(const cb_kernel_ctx *ctx, const cb_ce_flags *f,
                                   unsigned partners, int end, cudaStream_t stream) {
  cb_hs_areas hs;
  for (int r = 0; r < CB_MAX_PEERS; r++)
    hs.area[r] = r < ctx->nranks ? (uint64_t *)f->words.ptr[r] : NULL;
  ce_flag_kernel<<<1, FLAG_THREADS, 0, stream>>>(hs, f->epoch, ctx->rank, ctx->nranks, partners,
                                                 end, CB_SPIN_INFO(ctx));
  CB_CUDA(cudaGetLastError());
}

extern "C" void cb_ce_flags_resources(cb_kernel_resources *r, int launches) {
  cb_grid_use *g = cb_res_grid(r, "handshake", (const void *)ce_flag_kernel, 1, FLAG_THREADS, 0);
  if (g) g->launches = launches;
}

extern "C" unsigned cb_ce_every_peer(int nranks) {
  unsigned every = 0;
  for (int p = 1; p < nranks; p++) every |= CB_HS_OFFSET(p);
  return every;
}
