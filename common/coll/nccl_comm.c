#define _GNU_SOURCE /* pthread_mutex_trylock */
#include "nccl_comm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "error.h"
#include "options.h" /* CB_CTA_POLICY_UNSET */

const char *cb_nccl_version_text(int code, char *buf, size_t len) {
  /* NCCL_VERSION_CODE: 1000 * major + 100 * minor + patch before 2.9,
   * 10000 * major + 100 * minor + patch since. */
  if (code >= 20900)
    snprintf(buf, len, "%d.%d.%d", code / 10000, code % 10000 / 100, code % 100);
  else
    snprintf(buf, len, "%d.%d.%d", code / 1000, code % 1000 / 100, code % 100);
  return buf;
}

int cb_nccl_at_least(int major, int minor) {
  int want = major * 10000 + minor * 100;
  return cb_nccl_header_version() >= want && cb_nccl_library_version() >= want;
}

#ifndef CB_HAVE_NCCL

int cb_nccl_header_version(void) {
  return 0;
}
int cb_nccl_library_version(void) {
  return 0;
}

/* Never called: without NCCL its kernels are unavailable. */
void cb_nccl_open(cb_kernel_ctx *ctx, const cb_nccl_config *cfg) {
  (void)ctx, (void)cfg;
  cb_fatal("an NCCL communicator was asked for in a build without NCCL");
}
void cb_nccl_close(cb_kernel_ctx *ctx) {
  (void)ctx;
}
void cb_nccl_mem_alloc(void **ptr, size_t bytes) {
  CB_CUDA(cudaMalloc(ptr, bytes));
}
void cb_nccl_mem_free(void *ptr) {
  CB_CUDA(cudaFree(ptr));
}

#else

/* Functions younger than the oldest NCCL this builds against are weak, as in
 * nccl-tests: the program still loads with an older library, and uses them
 * only where ncclGetVersion says the library has them. */
#pragma weak ncclGetLastError
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
#pragma weak ncclMemAlloc
#pragma weak ncclMemFree
#pragma weak ncclCommRegister
#pragma weak ncclCommDeregister
#define CB_NCCL_HAS_REGISTER 1
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
#pragma weak ncclCommWindowRegister
#pragma weak ncclCommWindowDeregister
#define CB_NCCL_HAS_WINDOWS 1
#endif

int cb_nccl_header_version(void) {
  return NCCL_VERSION_CODE;
}

int cb_nccl_library_version(void) {
  static int version; /* the same on every call: a race only writes it twice */
  if (!version) CB_NCCL(ncclGetVersion(&version));
  return version;
}

void cb_nccl_fail(ncclResult_t rc, const char *file, int line, const char *call) {
  const char *last = ncclGetLastError ? ncclGetLastError(NULL) : NULL;
  char what[512];
  snprintf(what, sizeof what, "%s%s%s", ncclGetErrorString(rc), last && last[0] ? ": " : "",
           last ? last : "");
  cb_die(file, line, call, what);
}

/* ---- memory ------------------------------------------------------------ */

#ifdef CB_NCCL_HAS_REGISTER
static int have_mem_alloc(void) {
  return ncclMemAlloc && ncclMemFree && cb_nccl_library_version() >= NCCL_VERSION(2, 19, 0);
}
#endif

void cb_nccl_mem_alloc(void **ptr, size_t bytes) {
#ifdef CB_NCCL_HAS_REGISTER
  if (have_mem_alloc()) {
    CB_NCCL(ncclMemAlloc(ptr, bytes));
    return;
  }
#endif
  CB_CUDA(cudaMalloc(ptr, bytes));
}

void cb_nccl_mem_free(void *ptr) {
#ifdef CB_NCCL_HAS_REGISTER
  if (have_mem_alloc()) {
    CB_NCCL(ncclMemFree(ptr));
    return;
  }
#endif
  CB_CUDA(cudaFree(ptr));
}

/* ---- live communicators, aborted on a fatal error ------------------------ */

#define CB_NCCL_MAX_LIVE 64 /* communicators of one process at once (a rank has one) */

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static ncclComm_t live[CB_NCCL_MAX_LIVE];
static int nlive;

/* The exit hook: the dying process stops NCCL's kernels, which may be
 * waiting for a lost peer. The lock is only tried: the thread that failed
 * may hold it, and the exit must not wait on it. */
static void abort_live(void) {
  int locked = pthread_mutex_trylock(&live_lock) == 0;
  for (int i = 0; i < nlive; i++) ncclCommAbort(live[i]);
  if (locked) pthread_mutex_unlock(&live_lock);
}

static void live_add(ncclComm_t comm) {
  pthread_mutex_lock(&live_lock);
  if (nlive == CB_NCCL_MAX_LIVE)
    cb_fatal("more than %d NCCL communicators in one process", CB_NCCL_MAX_LIVE);
  live[nlive++] = comm;
  pthread_mutex_unlock(&live_lock);
  cb_error_on_exit(abort_live);
}

static void live_remove(ncclComm_t comm) {
  pthread_mutex_lock(&live_lock);
  for (int i = 0; i < nlive; i++)
    if (live[i] == comm) live[i] = live[--nlive];
  pthread_mutex_unlock(&live_lock);
}

/* ---- communicator ------------------------------------------------------- */

/* The communicator's first rank's id, which every rank of it takes: rank 0
 * of the group, or of a rail (L ranks a host) the rank with the same index
 * on host 0, rank (rank % L); every rank of the group gathers them all. */
static ncclUniqueId shared_id(cb_kernel_ctx *ctx, int ranks_per_host) {
  const int first = ranks_per_host ? ctx->rank % ranks_per_host : 0;
  const int is_first = ranks_per_host ? ctx->rank < ranks_per_host : ctx->rank == 0;
  ncclUniqueId mine, *all = calloc((size_t)ctx->nranks, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  memset(&mine, 0, sizeof mine);
  if (is_first) CB_NCCL(ncclGetUniqueId(&mine));
  cb_world_allgather(ctx->world, &mine, sizeof mine, all);
  ncclUniqueId id = all[first];
  free(all);
  return id;
}

static void init_comm(cb_nccl_state *st, cb_kernel_ctx *ctx, const cb_nccl_config *cfg) {
  /* cb_nccl_flags_problem refused such a run before it started. */
  if (cfg->cta_policy != CB_CTA_POLICY_UNSET && NCCL_VERSION_CODE < NCCL_VERSION(2, 27, 0))
    cb_fatal("%s: a CTA policy needs NCCL 2.27 headers", st->who);
  ncclUniqueId id = shared_id(ctx, cfg->ranks_per_host);
  const int L = cfg->ranks_per_host;
  const int nranks = L ? ctx->nranks / L : ctx->nranks, rank = L ? ctx->rank / L : ctx->rank;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0)
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  if (cfg->cta_policy != CB_CTA_POLICY_UNSET) config.CTAPolicy = cfg->cta_policy;
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  config.nvlinkCentricSched = 1; /* nccl-tests sets it on every communicator */
#endif
  CB_NCCL_WATCHED(st, "ncclCommInitRankConfig",
                  ncclCommInitRankConfig(&st->comm, nranks, id, rank, &config));
#else
  CB_NCCL_WATCHED(st, "ncclCommInitRank", ncclCommInitRank(&st->comm, nranks, id, rank));
#endif
}

/* Both buffers, whole, as nccl-tests registers its two (it passes -e bytes;
 * ours may be larger, see buffers.h). */
static void register_buffers(cb_nccl_state *st, const cb_kernel_ctx *ctx) {
  (void)ctx; /* unused with headers older than 2.19 */
  st->local_register = 0;
#ifdef CB_NCCL_HAS_WINDOWS
  if (st->want_register == 2) {
    CB_NCCL_WATCHED(st, "ncclCommWindowRegister",
                    ncclCommWindowRegister(st->comm, ctx->send_buf, ctx->send_buf_bytes,
                                           (ncclWindow_t *)&st->send_reg, NCCL_WIN_COLL_SYMMETRIC));
    CB_NCCL_WATCHED(st, "ncclCommWindowRegister",
                    ncclCommWindowRegister(st->comm, ctx->recv_buf, ctx->recv_buf_bytes,
                                           (ncclWindow_t *)&st->recv_reg, NCCL_WIN_COLL_SYMMETRIC));
    st->local_register = 2;
    return;
  }
#endif
#ifdef CB_NCCL_HAS_REGISTER
  if (st->want_register == 1) {
    CB_NCCL_WATCHED(st, "ncclCommRegister",
                    ncclCommRegister(st->comm, ctx->send_buf, ctx->send_buf_bytes, &st->send_reg));
    CB_NCCL_WATCHED(st, "ncclCommRegister",
                    ncclCommRegister(st->comm, ctx->recv_buf, ctx->recv_buf_bytes, &st->recv_reg));
    st->local_register = 1;
    return;
  }
#endif
  if (st->want_register)
    cb_fatal("%s: -R %d is not in this build (NCCL headers %d)", st->who, st->want_register,
             NCCL_VERSION_CODE);
}

static void deregister_buffers(cb_nccl_state *st) {
#ifdef CB_NCCL_HAS_WINDOWS
  if (st->local_register == 2) {
    CB_NCCL_WATCHED(st, "ncclCommWindowDeregister",
                    ncclCommWindowDeregister(st->comm, (ncclWindow_t)st->send_reg));
    CB_NCCL_WATCHED(st, "ncclCommWindowDeregister",
                    ncclCommWindowDeregister(st->comm, (ncclWindow_t)st->recv_reg));
  }
#endif
#ifdef CB_NCCL_HAS_REGISTER
  if (st->local_register == 1) {
    CB_NCCL_WATCHED(st, "ncclCommDeregister", ncclCommDeregister(st->comm, st->send_reg));
    CB_NCCL_WATCHED(st, "ncclCommDeregister", ncclCommDeregister(st->comm, st->recv_reg));
  }
#endif
  st->local_register = 0;
}

void cb_nccl_open(cb_kernel_ctx *ctx, const cb_nccl_config *cfg) {
  cb_nccl_state *st = calloc(1, sizeof *st);
  if (!st) cb_fatal("out of host memory");
  st->timeout_s = ctx->timeout_s;
  st->want_register = cfg->local_register;
  st->cta_policy = cfg->cta_policy;
  snprintf(st->who, sizeof st->who, "kernel %d (%s) on rank %d", ctx->kernel_id, ctx->kernel_name,
           ctx->rank);
  ctx->state = st;
  init_comm(st, ctx, cfg);
  live_add(st->comm);
  register_buffers(st, ctx);
}

void cb_nccl_close(cb_kernel_ctx *ctx) {
  cb_nccl_state *st = ctx->state;
  if (!st) return;
  if (st->comm) {
    deregister_buffers(st);
    CB_NCCL_WATCHED(st, "ncclCommDestroy", ncclCommDestroy(st->comm));
    live_remove(st->comm);
  }
  free(st);
  ctx->state = NULL;
}

#endif
