/* -k ll: sendrecv by LL16 packets, for small messages.
 *
 * Every rank writes its input, as LL16 packets (8 data bytes and two
 * copies of the epoch in one 16-byte store, device/ll_packet.cuh), into
 * its slot of the next rank's scratch; then it polls its own scratch until
 * the previous rank's packets carry the epoch and copies them into its
 * output. One kernel, no handshake: the flag travels with the data. Tiles
 * and per-tile epochs: device/ll_tiles.cuh.
 *
 * A rank reads nothing back from the rank it sends to, so reading does not
 * prove that the next rank is done with the half of its scratch we are
 * about to reuse (with 3 or more ranks a rank can run two calls ahead of
 * its next one): the kernel is CB_LL_CREDITED (ll_mesh.h). Each warp, for
 * each of its tiles, returns credit to the previous rank, then waits for
 * the next rank's credit before pushing (device/ll_credit.cuh); its polls
 * come after all of that. The wait almost never spins: the credit it
 * needs is two calls old.
 *
 * At 2 ranks (and 1) there is none of that: the next rank is the previous
 * one, so every call reads a packet of every tile from the rank it writes
 * to, which is the all-read-all proof of ll_tiles.cuh (the credit model,
 * tests/unit/test_ll_credit_model.c, finds no lap there without credits,
 * and finds one at 3 ranks). There the kernel is the LL exchange of
 * all_gather -k ll (device/ll_exchange.cuh) with one run and its peer's run
 * landing in our output: no credit stored, none awaited. At 2 ranks on
 * 2 x H200 in graph mode that takes 2.05-2.26 us at 8 B-4 KiB in both
 * launches; the credited kernel took 2.43-2.59 (docs/kernels.md,
 * "sendrecv -k ll at 2 ranks").
 *
 * In place (send == recv): tile t of the buffer is read (pushed) by the
 * warp that owns t, in the first loop, before the same warp writes the
 * received tile t over it in the second; no other warp touches tile t, and
 * peers write only our scratch (ll_exchange.cuh argues the same). */
#include <stdint.h>

#include "collbench/kernel.h"
#include "collbench/cuda_check.h"
#include "device/ll_credit.cuh"
#include "device/ll_exchange.cuh"
#include "collbench/device/ll_packet.cuh"
#include "device/ll_tiles.cuh"
#include "collbench/device/pack8.cuh"
#include "ll_mesh.h"

typedef struct {
  const char *src; /* our input */
  char *out;       /* our output (may be src: in place) */
  size_t bytes;
  cb_ll_push_mesh v;
  cb_spin_info spin;
} srll_args;

__global__ void srll_kernel(srll_args a) {
  const cb_ll_push_mesh &v = a.v;
  const cb_ll_mesh &m = v.ll;
  const int n = m.nranks;
  const int next_off = 1 % n, prev_off = n - 1; /* ring offsets (1 rank: both 0, ourselves) */
  const int prev = (m.rank + prev_off) % n;
  const size_t npackets = (a.bytes + 7) / 8;
  /* Push: credit back to the previous rank, then our packets to the next. */
  cb_ll_tiles<CB_LL_KEEP_OPEN>(m, cb_ll_tiles_of_packets(npackets), [&](const cb_ll_at &at) {
    const size_t i = at.i;
    const uint2 x = i < npackets ? cb_load_pack8(a.src, i, a.bytes) : make_uint2(0, 0);
    if (CB_LL_CREDIT_DUE(CB_LL_BEFORE_POLLS)) cb_ll_return_credit(v, at.t, at.epoch, prev_off);
    const cb_ll_clearance c = cb_ll_await_credit(v, at.t, at.epoch, next_off, 1, a.spin);
    if (i < npackets) cb_ll16_write(cb_ll_push_slot(v, c, next_off, i), x, at.flag);
  });
  /* Pull: the previous rank's packets of the same tiles into our output. */
  cb_ll_receive_from(m, prev, a.out, a.bytes, a.spin);
  /* Nothing in a normal build: where the late_credit mutant returns credit. */
  cb_ll_credit_tiles<false>(v, a.bytes, prev_off, CB_LL_AFTER_POLLS);
}

/* The next rank is the previous one: the exchange, without credits. */
static int next_is_previous(const cb_kernel_ctx *ctx) {
  return ctx->nranks <= 2;
}

static void cb_sr_ll_setup(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  uint64_t max = cb_ll_run_bytes(ctx);
  if (next_is_previous(ctx)) {
    cb_ll_exchange_setup<true>(ctx, reply, max);
    return;
  }
  cb_ll_setup(ctx, (size_t)(max + 7) / 8, CB_LL_CREDITED);
  const void *func = (const void *)srll_kernel;
  cb_ll_fit(ctx, reply, &func, 1);
}

static void cb_sr_ll_launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  const cb_ll_state *st = (const cb_ll_state *)ctx->state;
  srll_args a;
  a.bytes = call->count * cb_dtype_size(call->dtype);
  if (a.bytes == 0) return; /* see "Double buffering" in device/ll_tiles.cuh */
  a.src = (const char *)call->send;
  a.out = (char *)call->recv;
  if (next_is_previous(ctx)) { /* 1 rank: our own run is our output */
    int copy_own = ctx->nranks == 1 && a.src != a.out;
    cb_ll_exchange_launch<true>(ctx, a.src, 0, a.out, 0, a.bytes, copy_own, stream);
    return;
  }
  size_t packets = (a.bytes + 7) / 8;
  a.v = cb_ll_push_mesh_for(ctx, st, packets);
  a.spin = CB_SPIN_INFO(ctx);
  cb_ll_grid g = cb_ll_grid_for(st, packets);
  srll_kernel<<<g.blocks, g.threads, 0, stream>>>(a);
  CB_CUDA(cudaGetLastError());
}

CB_KERNEL_ROW(cb_sendrecv_ll) = CB_LL_ROW(
    "ll",
    "LL16: every rank pushes its input to the next rank as packets and copies the "
    "packets it receives into its output; receivers return credits (at 2 ranks, where the "
    "next rank is the previous one, none are needed: all_gather's LL exchange)",
    CB_BOTH_PLACEMENTS, cb_sr_ll_setup, cb_sr_ll_launch, CB_WAITS_LL | CB_WAITS_LL_CREDIT);
CB_REGISTER_KERNEL(
    sendrecv, cb_sendrecv_ll,
    "LL16: every rank pushes its input to the next rank as packets and copies the "
    "previous rank's into its output; receivers return credits "
    "(`src/kernels/ll/device/ll_credit.cuh`), except at 2 ranks, where the next rank is "
    "the previous one and all_gather's LL exchange needs none; in and out of place; "
    "up to 1 MiB");
