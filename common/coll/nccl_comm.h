/* The communicators and buffers of the NCCL kernels (nccl_kernels.c), made
 * as nccl-tests 2.19 makes them for the same flags (its src/common.cu):
 * ncclConfig_t with the CTA policy of -x and nvlinkCentricSched set, buffers
 * from ncclMemAlloc whatever -R says, and -R's registration of both buffers
 * (ncclCommRegister, or ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC).
 *
 * -T: every NCCL call that can wait on the host for a peer (communicator
 * setup, registration, a collective that connects lazily, teardown) runs
 * with the watchdog armed (watchdog.h), and a fatal error of any kind --
 * the watchdog's, a GPU wait past -T (cb_gpu_wait) -- aborts every live
 * communicator before the process exits (cb_error_on_exit), as nccl-tests
 * aborts when its -T expires, so NCCL's kernels stop spinning on a lost
 * peer. Blocking communicators and a watchdog, rather than non-blocking
 * communicators (config.blocking = 0): nccl-tests uses blocking ones, a
 * kernel-0 row must time what nccl-tests times, and a non-blocking call may
 * return ncclInProgress before its work is on the stream, which would put a
 * polling loop into every timed launch and into graph capture. */
#ifndef CB_NCCL_COMM_H
#define CB_NCCL_COMM_H

#include <stddef.h>

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a variant sets up its communicator. */
typedef struct {
  int local_register; /* nccl-tests' -R: 0 plain, 1 ncclCommRegister, 2 symmetric windows */
  int cta_policy;     /* ncclConfig_t.CTAPolicy, or CB_CTA_POLICY_UNSET */
  /* 0: a communicator of every rank of ctx->world's group. L > 0: this
   * rank's rail (hier.h): the ranks with its index on their host, one per
   * host, ranked by host, the group laid out host by host (rank = host * L
   * + index on the host). */
  int ranks_per_host;
} cb_nccl_config;

/* Collective: this rank's communicator (ctx->state), with the harness's
 * buffers (ctx->send_buf, ctx->recv_buf) registered as cfg says. */
void cb_nccl_open(cb_kernel_ctx *ctx, const cb_nccl_config *cfg);
/* Collective: deregisters the buffers and destroys the communicator. */
void cb_nccl_close(cb_kernel_ctx *ctx);

/* Device memory as nccl-tests allocates it: ncclMemAlloc (cuMem, what
 * registration and symmetric windows need), cudaMalloc before NCCL 2.19. */
void cb_nccl_mem_alloc(void **ptr, size_t bytes);
void cb_nccl_mem_free(void *ptr);

/* NCCL_VERSION_CODE of the headers built against / of the library loaded
 * (ncclGetVersion); 0 without NCCL. */
int cb_nccl_header_version(void);
int cb_nccl_library_version(void);
/* "2.28.3" for a version code (buf of len bytes). */
const char *cb_nccl_version_text(int code, char *buf, size_t len);
/* Both the headers and the library are at least major.minor. */
int cb_nccl_at_least(int major, int minor);

#ifdef CB_HAVE_NCCL
#include <nccl.h>

#include "watchdog.h"

/* One rank's communicator and what was registered with it. */
typedef struct {
  ncclComm_t comm;
  int want_register;         /* as cb_nccl_config */
  int local_register;        /* what is registered now: as cb_nccl_config */
  void *send_reg, *recv_reg; /* ncclCommRegister handles or ncclWindow_t */
  int timeout_s;             /* -T */
  int cta_policy;            /* as cb_nccl_config: what the communicator was asked for */
  char who[96];              /* "kernel 6 (nccl-sym) on rank 1", for messages */
  int min_arch;              /* the run's oldest GPU, 10 * major + minor (nccl_kernels.c) */
} cb_nccl_state;

/* Fails with the call, NCCL's error string and its last error. */
__attribute__((noreturn)) void cb_nccl_fail(ncclResult_t rc, const char *file, int line,
                                            const char *call);

#define CB_NCCL(call)                                                                              \
  do {                                                                                             \
    ncclResult_t cb_nccl_rc_ = (call);                                                             \
    if (cb_nccl_rc_ != ncclSuccess) cb_nccl_fail(cb_nccl_rc_, __FILE__, __LINE__, #call);          \
  } while (0)

/* An NCCL call that may wait on the host for a peer (name: its function),
 * with st's watch armed to -T. */
#define CB_NCCL_WATCHED(st, name, call)                                                            \
  do {                                                                                             \
    cb_watchdog_arm((st)->timeout_s, name, (st)->who);                                             \
    ncclResult_t cb_nccl_rc_ = (call);                                                             \
    cb_watchdog_disarm();                                                                          \
    if (cb_nccl_rc_ != ncclSuccess) cb_nccl_fail(cb_nccl_rc_, __FILE__, __LINE__, #call);          \
  } while (0)
#endif

#ifdef __cplusplus
}
#endif

#endif
