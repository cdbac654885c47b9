/* What a kernel holds of the GPU while it runs, beside its time: the grids
 * it launches for a call (blocks, threads, registers, shared memory, the
 * SMs they can occupy at once), the side streams it forks and the copies
 * it gives the copy engines. A kernel that runs beside a GEMM takes from
 * it what it holds, so this is half of what a kernel costs.
 *
 * A kernel row fills it (its optional `resources`, kernel.h) for one
 * call, from what its setup decided (the grid fitted to the GPU, the
 * streams it made) and the call's count: plain data, the function
 * launched named but not asked about. The harness then asks the CUDA
 * runtime what only it knows (cb_resources_measure: registers, static
 * shared memory, blocks per SM, the GPU's SMs), so a figure is never typed
 * by hand. A row that fills nothing is reported as "not reported". */
#ifndef COLLBENCH_RESOURCES_H
#define COLLBENCH_RESOURCES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CB_RES_MAX_GRIDS 6

/* One grid of a call. */
typedef struct {
  const char *role; /* what it does, one word or two: "ring chain", "reduce", "handshake" */
  const void *func; /* the __global__ function launched (NULL: not a kernel of ours) */
  unsigned blocks, threads;
  size_t dynamic_smem; /* bytes per block, as launched */
  int launches;        /* launches of it per call, one after the other (0 is taken as 1) */
  int beside;          /* on a side stream: it runs at once with the grids of the call's stream */
  /* The harness's, from the CUDA runtime (cb_resources_measure): */
  int regs;           /* registers per thread */
  size_t static_smem; /* bytes per block */
  int per_sm;         /* blocks of it one SM holds at once (the occupancy API) */
  int sms;            /* SMs the grid can occupy at once: min(blocks, the GPU's SMs) */
} cb_grid_use;

typedef struct {
  int reported; /* 0: nothing known but the note (NCCL's rows, rows that fill nothing) */
  int ngrids;
  cb_grid_use grids[CB_RES_MAX_GRIDS];
  int side_streams; /* streams of the kernel's own that a call forks from its stream */
  int copies;       /* cudaMemcpyAsync calls per call: work for the copy engines */
  int copy_streams; /* streams those copies are issued on (the most engines busy at once) */
  /* The harness's: */
  int gpu_sms;     /* SMs of the rank's GPU */
  int sms_at_once; /* the most SMs the call's grids can occupy at once */
  char note[192];  /* what else is known, or why nothing is ("" none) */
} cb_kernel_resources;

/* For a row's `resources`: adds a grid (NULL when CB_RES_MAX_GRIDS are
 * there already, which the harness reports as a note) and returns it, so
 * the caller may set launches or beside. */
cb_grid_use *cb_res_grid(cb_kernel_resources *r, const char *role, const void *func,
                         unsigned blocks, unsigned threads, size_t dynamic_smem);
/* For a row's `resources`: appends to r->note (after "; " when not empty). */
void cb_res_note(cb_kernel_resources *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif
