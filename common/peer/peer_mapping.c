#include "peer_mapping.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cuda_runtime_api.h>

#include "cu_driver.h"
#include "cuda_check.h"
#include "cumem.h"
#include "env.h"
#include "error.h"

#ifdef CB_HAVE_NVML
#include <dlfcn.h>
#include <nvml.h>
#include <pthread.h>
#endif

static const char *const mapping_names[CB_PEER_MAPPINGS + 1] = {"ipc", "cumem", "fabric", "auto"};

const char *cb_peer_mapping_name(cb_peer_mapping m) {
  return (unsigned)m <= CB_PEER_AUTO ? mapping_names[m] : "?";
}

/* CB_PEER_MAPPING's values in the order a refusal lists them: the default
 * first. */
static const char *const choice_names[] = {"auto", "ipc", "cumem", "fabric"};
static const cb_peer_mapping choice_values[] = {CB_PEER_AUTO, CB_PEER_IPC, CB_PEER_CUMEM,
                                                CB_PEER_FABRIC};
#define CHOICES ((int)(sizeof choice_names / sizeof choice_names[0]))

const char *cb_peer_mapping_parse(const char *value, cb_peer_mapping *out, char *why, size_t len) {
  int i = 0;
  if (cb_env_choice_parse(CB_PEER_MAPPING_ENV, value, choice_names, CHOICES, 0, &i, why, len))
    return why;
  *out = choice_values[i];
  return NULL;
}

/* Set by the main thread before the rank threads start (their creation
 * orders it before their reads); under auto, stored again by every rank
 * thread once the ranks have resolved it. Those stores all carry the same
 * value, and a thread loads it only after its own store, so every load of a
 * rank thread sees the resolved mapping; atomic because the stores of one
 * thread may meet another's loads. */
static _Atomic int current = CB_PEER_IPC;

void cb_peer_mapping_use(cb_peer_mapping m) {
  atomic_store(&current, (int)m);
}
cb_peer_mapping cb_peer_mapping_current(void) {
  return (cb_peer_mapping)atomic_load(&current);
}

unsigned cb_peer_mapping_handle_types(cb_peer_mapping m) {
  if (m == CB_PEER_CUMEM) return CB_CUMEM_POSIX_FD;
  if (m == CB_PEER_FABRIC) return CB_CUMEM_FABRIC;
  return 0;
}

/* ---- one rank's device ---------------------------------------------------- */

static const char *device_attribute(int device, CUdevice_attribute attr, const char *what,
                                    cb_peer_mapping_probe *p) {
  CUdevice dev;
  int value = 0;
  CB_CU(cuDeviceGet, (&dev, device));
  CB_CU(cuDeviceGetAttribute, (&value, attr, dev));
  if (value) return NULL;
  snprintf(p->why, sizeof p->why, "device %d does not support %s", device, what);
  return p->why;
}

#ifdef CB_HAVE_NVML
/* NVML, opened at run time like the driver: the programs do not link it. */
typedef struct {
  nvmlReturn_t (*init)(void);
  nvmlReturn_t (*by_bus_id)(const char *, nvmlDevice_t *);
  nvmlReturn_t (*fabric_info)(nvmlDevice_t, nvmlGpuFabricInfoV_t *);
  const char *(*error_string)(nvmlReturn_t);
  const char *why; /* NULL when loaded */
} nvml_api;

static nvml_api nvml;
static pthread_once_t nvml_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t nvml_lock = PTHREAD_MUTEX_INITIALIZER; /* NVML calls from rank threads */

static void *nvml_sym(void *lib, const char *name) {
  void *s = dlsym(lib, name);
  if (!s && !nvml.why) nvml.why = "libnvidia-ml.so.1 lacks nvmlDeviceGetGpuFabricInfoV";
  return s;
}

static void nvml_load(void) {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    nvml.why = "libnvidia-ml.so.1 cannot be loaded";
    return;
  }
  void *s[4] = {nvml_sym(lib, "nvmlInit_v2"), nvml_sym(lib, "nvmlDeviceGetHandleByPciBusId_v2"),
                nvml_sym(lib, "nvmlDeviceGetGpuFabricInfoV"), nvml_sym(lib, "nvmlErrorString")};
  if (nvml.why) return;
  memcpy(&nvml.init, &s[0], sizeof s[0]);
  memcpy(&nvml.by_bus_id, &s[1], sizeof s[1]);
  memcpy(&nvml.fabric_info, &s[2], sizeof s[2]);
  memcpy(&nvml.error_string, &s[3], sizeof s[3]);
  if (nvml.init() != NVML_SUCCESS) nvml.why = "nvmlInit failed";
}

/* The device's NVLink domain from NVML: its cluster UUID and clique id,
 * once the fabric manager has registered the GPU. */
static const char *fabric_domain(int device, cb_peer_mapping_probe *p) {
  pthread_once(&nvml_once, nvml_load);
  if (nvml.why) {
    snprintf(p->why, sizeof p->why, "fabric handles need NVML: %s", nvml.why);
    return p->why;
  }
  char bus[32];
  CB_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  nvmlDevice_t dev;
  nvmlGpuFabricInfoV_t info;
  memset(&info, 0, sizeof info);
  info.version = nvmlGpuFabricInfo_v2;
  pthread_mutex_lock(&nvml_lock);
  nvmlReturn_t rc = nvml.by_bus_id(bus, &dev);
  if (rc == NVML_SUCCESS) rc = nvml.fabric_info(dev, &info);
  pthread_mutex_unlock(&nvml_lock);
  if (rc != NVML_SUCCESS)
    snprintf(p->why, sizeof p->why, "device %d (%s): NVML has no fabric information (%s)", device,
             bus, nvml.error_string(rc));
  else if (info.state != NVML_GPU_FABRIC_STATE_COMPLETED || info.status != NVML_SUCCESS)
    snprintf(p->why, sizeof p->why,
             "device %d (%s) is not registered with an NVLink fabric (NVML fabric state %u)",
             device, bus, (unsigned)info.state);
  if (p->why[0]) return p->why;
  memcpy(p->cluster, info.clusterUuid, sizeof p->cluster);
  p->clique = info.cliqueId;
  return NULL;
}
#else
static const char *fabric_domain(int device, cb_peer_mapping_probe *p) {
  (void)device;
  snprintf(p->why, sizeof p->why,
           "fabric handles need NVML (to compare NVLink domains); this build had no nvml.h");
  return p->why;
}
#endif

/* A trial allocation of the smallest size with the mapping's handle type:
 * the attributes and NVML can say yes where the driver still refuses the
 * allocation. Seen on 2 x H200 (NVSwitch, fabric state "completed"): fabric
 * handles fail with CUDA_ERROR_NOT_PERMITTED when the process has no IMEX
 * channel. Better a skip with the reason than a stop at the first buffer. */
static const char *trial_allocation(int device, unsigned handle_types, cb_peer_mapping_probe *p) {
  CUmemAllocationProp prop = cb_cu_device_prop(device, handle_types);
  size_t gran = 0;
  CUmemGenericAllocationHandle h;
  const char *call = "cuMemGetAllocationGranularity";
  CUresult rc =
      cb_cu()->cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (rc == CUDA_SUCCESS) {
    call = "cuMemCreate";
    rc = cb_cu()->cuMemCreate(&h, gran, &prop, 0);
  }
  if (rc == CUDA_SUCCESS) {
    CB_CU(cuMemRelease, (h));
    return NULL;
  }
  snprintf(p->why, sizeof p->why,
           "device %d: a trial %s with %s handles failed: %s (CUresult %d)%s", device, call,
           handle_types == CB_CUMEM_FABRIC ? "fabric" : "POSIX file descriptor",
           cb_cu_error_string(rc), (int)rc,
           rc == CUDA_ERROR_NOT_PERMITTED && handle_types == CB_CUMEM_FABRIC
               ? "; fabric handles need an IMEX channel (/dev/nvidia-caps-imex-channels)"
               : "");
  return p->why;
}

/* The process's network namespace, where cumem's abstract Unix sockets
 * live: its inode, 0 when /proc cannot say. */
static unsigned long long network_namespace(void) {
  struct stat st;
  return stat("/proc/self/ns/net", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

const char *cb_peer_mapping_probe_device(cb_peer_mapping m, int device, cb_peer_mapping_probe *p) {
  memset(p, 0, sizeof *p);
  if (m == CB_PEER_IPC) return NULL;
  if (m == CB_PEER_CUMEM) p->netns = network_namespace();
  const char *missing;
  if (!cb_cu_load(&missing)) {
    snprintf(p->why, sizeof p->why, "%s", missing);
    return p->why;
  }
  if (device_attribute(device, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                       "virtual memory management (cuMem)", p))
    return p->why;
  if (m == CB_PEER_CUMEM) {
    if (device_attribute(device, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                         "POSIX file descriptor handles", p))
      return p->why;
    return trial_allocation(device, CB_CUMEM_POSIX_FD, p);
  }
  if (device_attribute(device, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, "fabric handles",
                       p))
    return p->why;
  if (fabric_domain(device, p)) return p->why;
  return trial_allocation(device, CB_CUMEM_FABRIC, p);
}

/* The first rank's own reason, as prefix, reason, " (rank r)"; NULL when
 * none refused. */
static const char *first_refusal(const char *prefix, const cb_peer_mapping_probe *all, int n,
                                 char *why, size_t len) {
  for (int r = 0; r < n; r++)
    if (all[r].why[0]) {
      snprintf(why, len, "%s%s (rank %d)", prefix, all[r].why, r);
      return why;
    }
  return NULL;
}

/* cumem: two ranks of one group in different network namespaces (ranks in
 * containers of their own), whose abstract Unix sockets cannot reach each
 * other: the exchange of file descriptors would wait out its bound, where a
 * probe can say so at once. Each rank is compared with its group's first. */
static const char *split_namespaces(const char *prefix, const cb_peer_mapping_probe *all, int n,
                                    char *why, size_t len) {
  for (int r = 1; r < n; r++) {
    int q = 0;
    while (all[q].group != all[r].group) q++;
    if (q < r && all[q].netns && all[r].netns && all[q].netns != all[r].netns) {
      snprintf(why, len,
               "%sranks %d and %d are in different network namespaces, which cumem's Unix "
               "sockets cannot cross",
               prefix, q, r);
      return why;
    }
  }
  return NULL;
}

const char *cb_peer_mapping_agree(cb_peer_mapping m, const cb_peer_mapping_probe *all, int n,
                                  char *why, size_t len) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "%s=%s is unavailable: ", CB_PEER_MAPPING_ENV,
           cb_peer_mapping_name(m));
  if (first_refusal(prefix, all, n, why, len)) return why;
  if (m == CB_PEER_CUMEM) return split_namespaces(prefix, all, n, why, len);
  if (m != CB_PEER_FABRIC) return NULL;
  for (int r = 1; r < n; r++)
    if (memcmp(all[r].cluster, all[0].cluster, sizeof all[0].cluster) != 0 ||
        all[r].clique != all[0].clique) {
      snprintf(why, len,
               "%s=fabric is unavailable: ranks 0 and %d are in different NVLink domains "
               "(cluster UUID or clique id %u vs %u differ)",
               CB_PEER_MAPPING_ENV, r, all[0].clique, all[r].clique);
      return why;
    }
  return NULL;
}

/* Collective: every rank's probe of mapping m, over the rank's group or,
 * with whole_world, over the world (me->nranks or me->world_nranks of
 * them); allocated. */
static cb_peer_mapping_probe *gather_probes(cb_rank_info *me, int device, cb_peer_mapping m,
                                            int whole_world) {
  const int n = whole_world ? me->world_nranks : me->nranks;
  cb_peer_mapping_probe mine, *all = calloc((size_t)n, sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_peer_mapping_probe_device(m, device, &mine);
  mine.group = me->group;
  if (whole_world)
    cb_world_allgather_all(me, &mine, sizeof mine, all);
  else
    cb_world_allgather(me, &mine, sizeof mine, all);
  return all;
}

const char *cb_peer_mapping_check(cb_rank_info *me, int device, char *why, size_t len) {
  cb_peer_mapping m = cb_peer_mapping_current();
  if (m == CB_PEER_IPC) return NULL;
  if (m == CB_PEER_AUTO) /* resolved by cb_peer_mapping_resolve_auto, never checked */
    cb_fatal("%s=auto reached cb_peer_mapping_check unresolved (a harness bug)",
             CB_PEER_MAPPING_ENV);
  cb_peer_mapping_probe *all = gather_probes(me, device, m, 0);
  const char *bad = cb_peer_mapping_agree(m, all, me->nranks, why, len);
  free(all);
  return bad;
}

/* ---- auto ------------------------------------------------------------------ */

void cb_peer_mapping_auto_pick(const cb_peer_mapping_probe *all, int n, cb_peer_mapping_auto *out) {
  memset(out, 0, sizeof *out);
  out->resolved = 1;
  out->mapping = CB_PEER_CUMEM;
  if (first_refusal("", all, n, out->why, sizeof out->why) ||
      split_namespaces("", all, n, out->why, sizeof out->why))
    out->mapping = CB_PEER_IPC;
}

/* Over the world, not the group: with NCCL_TESTS_SPLIT every group then
 * maps alike, so one header line and one JSON value speak for all of them.
 * Every group runs the same kernels, so every rank of the world gets here
 * or none does (as the harness's other _all calls assume). */
void cb_peer_mapping_resolve_auto(cb_rank_info *me, int device, cb_peer_mapping_auto *out) {
  cb_peer_mapping_probe *all = gather_probes(me, device, CB_PEER_CUMEM, 1);
  cb_peer_mapping_auto_pick(all, me->world_nranks, out);
  free(all);
  cb_peer_mapping_use(out->mapping);
}
