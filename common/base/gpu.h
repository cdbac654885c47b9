/* The GPUs of this process: how many are visible, which one a rank drives,
 * what it is, and waiting on it with a bound. */
#ifndef CB_GPU_H
#define CB_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "device_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Visible CUDA devices of this process in *n; returns NULL, or why there is
 * none ("no CUDA device visible (...)", naming a missing driver). Under
 * mpirun, cb_run_visible_gpus (run_steps.h) says it once for the run. */
const char *cb_gpu_count(int *n);

/* Refuses layouts that need more GPUs than this host shows. */
void cb_gpu_check_layout(int visible, int ranks_per_proc, int local_nprocs, const char *host);

/* The device of the i-th rank of this host's process-local numbering. */
int cb_gpu_for_local_rank(int i, int visible, int shared);

/* Name, PCI address and identity of the calling thread's current device. */
void cb_gpu_describe(int device, cb_device_info *out);

/* Waits for everything queued on stream, failing with a message naming
 * what was waited for once timeout_s seconds pass. */
void cb_gpu_wait(cudaStream_t stream, int timeout_s, const char *what);
/* The same for one recorded event: until the work before its record, on
 * its own stream, is done (cudaEventElapsedTime reads only such events). */
void cb_gpu_wait_event(cudaEvent_t event, int timeout_s, const char *what);

#ifdef __cplusplus
}
#endif

#endif
