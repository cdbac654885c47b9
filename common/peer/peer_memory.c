#define _GNU_SOURCE /* getpid */
#include "peer_memory.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cu_driver.h"
#include "cuda_check.h"
#include "cumem.h"
#include "error.h"
#include "fd_pass.h"
#include "peer_mapping.h"
#include "watchdog.h"

/* What a rank tells its peers about one buffer. */
typedef struct {
  int pid;
  int device;
  int mapping; /* every rank must map alike */
  void *ptr;
  cudaIpcMemHandle_t handle; /* ipc */
  /* cumem and fabric: the allocation ptr lies in, and where in it. */
  size_t alloc_bytes, offset;
  uint64_t run_id;          /* cumem: rank 0's names every rank's socket */
  CUmemFabricHandle fabric; /* fabric */
} peer_record;

/* Why device cannot reach peer_device's memory, or NULL. */
static const char *no_p2p_path(int device, int peer_device, char *why, size_t len) {
  int can = 0;
  CB_CUDA(cudaDeviceCanAccessPeer(&can, device, peer_device));
  if (can) return NULL;
  snprintf(why, len, "device %d cannot access device %d (no P2P path)", device, peer_device);
  return why;
}

/* Peer access between two devices of one process; idempotent. */
static void enable_peer_access(int device, int peer_device) {
  if (device == peer_device) return;
  char why[96];
  if (no_p2p_path(device, peer_device, why, sizeof why)) cb_fatal("%s", why);
  cudaError_t rc = cudaDeviceEnablePeerAccess(peer_device, 0);
  if (rc == cudaErrorPeerAccessAlreadyEnabled)
    (void)cudaGetLastError(); /* not an error: take it off cudaGetLastError for later checks */
  else
    CB_CUDA(rc);
}

/* The run's mapping. auto is resolved before any kernel's setup when a
 * kernel that maps peer memory runs (rank_main); meeting it here is a bug,
 * stopped rather than guessed. */
static cb_peer_mapping run_mapping(void) {
  cb_peer_mapping m = cb_peer_mapping_current();
  if ((unsigned)m >= CB_PEER_MAPPINGS)
    cb_fatal("%s=%s was not resolved before peer memory was mapped (a harness bug)",
             CB_PEER_MAPPING_ENV, cb_peer_mapping_name(m));
  return m;
}

static void begin(cb_rank_info *me, size_t bytes, cb_peer_buffer *out, peer_record *mine) {
  if (me->nranks > CB_MAX_PEERS)
    cb_fatal("peer memory serves at most %d ranks, this run has %d", CB_MAX_PEERS, me->nranks);
  memset(out, 0, sizeof *out);
  out->bytes = bytes;
  out->rank = me->rank;
  out->nranks = me->nranks;
  out->mapping = (int)run_mapping();
  memset(mine, 0, sizeof *mine);
  mine->pid = (int)getpid();
  mine->mapping = out->mapping;
  CB_CUDA(cudaGetDevice(&mine->device));
}

static peer_record *gather(cb_rank_info *me, const peer_record *mine) {
  peer_record *all = calloc((size_t)me->nranks, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(me, mine, sizeof *mine, all);
  for (int r = 0; r < me->nranks; r++)
    if (all[r].mapping != mine->mapping)
      cb_fatal("%s=%s here but %s on rank %d: every process needs the same value",
               CB_PEER_MAPPING_ENV, cb_peer_mapping_name((cb_peer_mapping)mine->mapping),
               cb_peer_mapping_name((cb_peer_mapping)all[r].mapping), r);
  return all;
}

/* ---- ipc: cudaMalloc memory, CUDA IPC handles ----------------------------- */

/* A peer process's allocation: its base as this process addresses it. */
static void *ipc_open(cudaIpcMemHandle_t handle) {
  void *base;
  CB_CUDA(cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess));
  return base;
}

static void share_ipc(cb_rank_info *me, void *local, peer_record *mine, cb_peer_buffer *out) {
  CB_CUDA(cudaIpcGetMemHandle(&mine->handle, local));
  peer_record *all = gather(me, mine);
  for (int r = 0; r < me->nranks; r++) {
    if (all[r].pid == mine->pid) { /* same process: the pointer is valid here */
      enable_peer_access(mine->device, all[r].device);
      out->ptr[r] = all[r].ptr;
    } else {
      out->ptr[r] = ipc_open(all[r].handle);
      out->ipc_opened[r] = 1;
    }
  }
  free(all);
}

/* ---- cumem and fabric: cuMem memory, shareable handles -------------------- */

/* The allocation handle behind ptr, exported as handle type type into out
 * (an int for a POSIX file descriptor, a CUmemFabricHandle for fabric). */
static void export_handle(void *ptr, CUmemAllocationHandleType type, void *out) {
  CUmemGenericAllocationHandle h;
  CB_CU(cuMemRetainAllocationHandle, (&h, ptr));
  CB_CU(cuMemExportToShareableHandle, (out, h, type, 0));
  CB_CU(cuMemRelease, (h)); /* the retain's reference; the mapping keeps the memory */
}

/* A peer's allocation (an imported handle) mapped into a range of its own,
 * read and write for this rank's device. */
static void *map_imported(CUmemGenericAllocationHandle h, size_t bytes, int device,
                          unsigned handle_types) {
  CUmemAllocationProp prop = cb_cu_device_prop(device, handle_types);
  size_t gran = 0;
  CB_CU(cuMemGetAllocationGranularity, (&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CUdeviceptr va = 0;
  CB_CU(cuMemAddressReserve, (&va, bytes, gran, 0, 0));
  CB_CU(cuMemMap, (va, bytes, 0, h, 0));
  CB_CU(cuMemRelease, (h)); /* the mapping keeps the peer's memory until cuMemUnmap */
  CUmemAccessDesc access = {0};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CB_CU(cuMemSetAccess, (va, bytes, &access, 1));
  return (void *)(uintptr_t)va;
}

/* A bound for the socket exchange: -T (the world's waits' bound), else 5 min. */
static int exchange_timeout_ms(void) {
  int t = cb_watchdog_default();
  return (t > 0 ? t : 300) * 1000;
}

static void close_all(int *fds, int n) {
  for (int r = 0; r < n; r++)
    if (fds[r] >= 0) close(fds[r]);
}

/* cumem across processes: every rank listens on its own socket (named by
 * rank 0's run id), sends its file descriptor to each rank of another
 * process, and takes theirs from its listener. Sends do not wait for the
 * receiver to accept (the kernel queues the connection and the message), so
 * every rank sends first and receives after, with no order among them.
 * fds[r]: rank r's descriptor, -1 for the ranks of this process. */
static void exchange_fds(cb_rank_info *me, void *local, const peer_record *all, int *fds) {
  const int n = me->nranks, timeout = exchange_timeout_ms();
  const uint64_t id = all[0].run_id;
  const int pid = (int)getpid();
  int expected = 0;
  for (int r = 0; r < n; r++) {
    fds[r] = -1;
    expected += all[r].pid != pid;
  }
  char name[64], why[256];
  cb_fd_socket_name(id, me->rank, name, sizeof name);
  int listener = cb_fd_listen(name, CB_MAX_PEERS, why, sizeof why);
  if (listener < 0) cb_fatal("%s=cumem: %s", CB_PEER_MAPPING_ENV, why);
  int mine = -1;
  export_handle(local, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, &mine);
  cb_world_barrier(me); /* every rank's listener is up */
  int bad = 0;
  for (int r = 0; r < n && !bad; r++) {
    if (all[r].pid == pid) continue;
    char peer[64];
    cb_fd_socket_name(id, r, peer, sizeof peer);
    bad = cb_fd_send_to(peer, id, me->rank, mine, timeout, why, sizeof why) != 0;
    if (bad) snprintf(why + strlen(why), sizeof why - strlen(why), " (sending to rank %d)", r);
  }
  close(mine); /* the copies in flight keep the allocation's export alive */
  for (int got = 0; got < expected && !bad; got++) {
    int from = -1, fd = -1;
    bad = cb_fd_accept_recv(listener, id, timeout, &from, &fd, why, sizeof why) != 0;
    if (!bad && (from < 0 || from >= n || all[from].pid == pid || fds[from] >= 0)) {
      close(fd);
      snprintf(why, sizeof why, "an unexpected file descriptor from rank %d", from);
      bad = 1;
    }
    if (!bad) fds[from] = fd;
    if (bad)
      snprintf(why + strlen(why), sizeof why - strlen(why), " (%d of %d peers heard from)", got,
               expected);
  }
  close(listener); /* the abstract name goes with it */
  if (bad) {
    close_all(fds, n);
    cb_fatal("%s=cumem: exchanging file descriptors: %s", CB_PEER_MAPPING_ENV, why);
  }
}

static void share_cumem(cb_rank_info *me, void *local, peer_record *mine, cb_peer_buffer *out) {
  const cb_peer_mapping m = (cb_peer_mapping)mine->mapping;
  cb_cumem_region reg;
  if (cb_cumem_find(local, &reg) != 0)
    cb_fatal("%s=%s: buffer %p is not a cuMem allocation of this process (cb_cumem_alloc)",
             CB_PEER_MAPPING_ENV, cb_peer_mapping_name(m), local);
  mine->ptr = local;
  mine->alloc_bytes = reg.size;
  mine->offset = (size_t)((char *)local - (char *)reg.base);
  mine->run_id = cb_fd_run_id(); /* rank 0's is used */
  if (m == CB_PEER_FABRIC) export_handle(local, CU_MEM_HANDLE_TYPE_FABRIC, &mine->fabric);
  peer_record *all = gather(me, mine);
  int fds[CB_MAX_PEERS];
  int remote = 0;
  for (int r = 0; r < me->nranks; r++) remote += all[r].pid != mine->pid;
  if (m == CB_PEER_CUMEM && remote) exchange_fds(me, local, all, fds);
  for (int r = 0; r < me->nranks; r++) {
    if (all[r].pid == mine->pid) { /* same process: mapped for every peer device already */
      enable_peer_access(mine->device, all[r].device);
      out->ptr[r] = all[r].ptr;
      continue;
    }
    CUmemGenericAllocationHandle h;
    if (m == CB_PEER_CUMEM) {
      CB_CU(cuMemImportFromShareableHandle,
            (&h, (void *)(uintptr_t)fds[r], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
      close(fds[r]); /* the imported handle holds the allocation now */
      fds[r] = -1;
    } else {
      CB_CU(cuMemImportFromShareableHandle, (&h, &all[r].fabric, CU_MEM_HANDLE_TYPE_FABRIC));
    }
    out->import_base[r] =
        map_imported(h, all[r].alloc_bytes, mine->device, cb_peer_mapping_handle_types(m));
    out->import_bytes[r] = all[r].alloc_bytes;
    out->ptr[r] = (char *)out->import_base[r] + all[r].offset;
  }
  free(all);
}

/* ---- the calls -------------------------------------------------------------- */

void cb_peer_share(cb_rank_info *me, void *local, size_t bytes, cb_peer_buffer *out) {
  peer_record mine;
  begin(me, bytes, out, &mine);
  mine.ptr = local;
  if (out->mapping == CB_PEER_IPC)
    share_ipc(me, local, &mine, out);
  else
    share_cumem(me, local, &mine, out);
}

void cb_peer_alloc(cb_rank_info *me, size_t bytes, cb_peer_buffer *out) {
  cb_peer_mapping m = run_mapping();
  size_t n = bytes ? bytes : 1;
  void *p;
  if (m == CB_PEER_IPC) {
    CB_CUDA(cudaMalloc(&p, n));
  } else {
    int device;
    CB_CUDA(cudaGetDevice(&device));
    p = cb_cumem_alloc(n, device, cb_peer_mapping_handle_types(m));
  }
  CB_CUDA(cudaMemset(p, 0, n));
  CB_CUDA(cudaDeviceSynchronize()); /* zeroed before any peer can write into it */
  cb_peer_share(me, p, bytes, out);
  out->owned = 1;
}

void cb_peer_free(cb_rank_info *me, cb_peer_buffer *b) {
  /* No rank may free its buffer while a peer still maps it. */
  cb_world_barrier(me);
  int imported = 0;
  for (int r = 0; r < b->nranks; r++) imported |= b->import_bytes[r] != 0;
  if (imported) CB_CUDA(cudaDeviceSynchronize()); /* nothing of ours still reads the ranges */
  for (int r = 0; r < b->nranks; r++) {
    if (b->ipc_opened[r]) CB_CUDA(cudaIpcCloseMemHandle(b->ptr[r]));
    if (b->import_bytes[r]) {
      CUdeviceptr va = (CUdeviceptr)(uintptr_t)b->import_base[r];
      CB_CU(cuMemUnmap, (va, b->import_bytes[r]));
      CB_CU(cuMemAddressFree, (va, b->import_bytes[r]));
    }
  }
  cb_world_barrier(me);
  if (b->owned) {
    if (b->mapping == CB_PEER_IPC)
      CB_CUDA(cudaFree(b->ptr[b->rank]));
    else
      cb_cumem_free(b->ptr[b->rank]);
  }
  memset(b, 0, sizeof *b);
}

/* ---- one buffer for one peer ------------------------------------------------ */

void cb_peer_offer_make(void *base, void *ptr, int other_process, cb_peer_offer *out) {
  memset(out, 0, sizeof *out);
  out->pid = (int)getpid();
  out->ptr = ptr;
  out->offset = (size_t)((char *)ptr - (char *)base);
  if (other_process) CB_CUDA(cudaIpcGetMemHandle(&out->handle, base));
}

const char *cb_peer_open(const cb_peer_offer *o, int device, int peer_device, cb_peer_view *out,
                         char *why, size_t len) {
  memset(out, 0, sizeof *out);
  /* Across processes too, so that the caller has the same reason either way. */
  if (no_p2p_path(device, peer_device, why, len)) return why;
  if (o->pid == (int)getpid()) {
    enable_peer_access(device, peer_device);
    out->ptr = o->ptr;
  } else {
    out->ipc_base = ipc_open(o->handle);
    out->ptr = (char *)out->ipc_base + o->offset;
  }
  return NULL;
}

void cb_peer_close(cb_peer_view *v) {
  if (v->ipc_base) CB_CUDA(cudaIpcCloseMemHandle(v->ipc_base));
  memset(v, 0, sizeof *v);
}
