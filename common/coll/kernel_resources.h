/* What a kernel holds of the GPU while it runs, beside its time: the grids
 * it launches for a call (blocks, threads, registers, shared memory, the
 * SMs they can occupy at once), the side streams it forks and the copies
 * it gives the copy engines. A kernel that runs beside a GEMM takes from
 * it what it holds, so this is half of what a kernel costs.
 *
 * A kernel row fills it (its optional `resources`, collective.h) for one
 * call, from what its setup decided (the grid fitted to the GPU, the
 * streams it made) and the call's count: plain data, the function
 * launched named but not asked about. The harness then asks the CUDA
 * runtime what only it knows (cb_resources_measure: registers, static
 * shared memory, blocks per SM, the GPU's SMs), so a figure is never typed
 * by hand. A row that fills nothing is reported as "not reported". */
#ifndef CB_KERNEL_RESOURCES_H
#define CB_KERNEL_RESOURCES_H

#include <stddef.h>
#include <stdio.h>

#include "json_writer.h"

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

/* The harness, after the row filled r on device: each grid's registers,
 * static shared memory and blocks per SM from the CUDA runtime
 * (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor),
 * the GPU's SMs, and cb_res_sms_at_once. */
void cb_resources_measure(cb_kernel_resources *r, int device);

/* Arithmetic (unit-tested): each grid's sms, min(blocks, gpu_sms), and
 * the call's sms_at_once: the grids of the call's stream run one after
 * another, so the largest of them, plus every grid beside them (side
 * streams) at once; at most gpu_sms. The block scheduler places a grid's
 * blocks on idle SMs first, so a grid of b blocks may occupy b SMs while
 * it runs; b / per_sm SMs would hold it if it were packed. */
void cb_res_sms_at_once(cb_kernel_resources *r, int gpu_sms);

/* One line for the text table: "67 of 132 SMs at once: handshake 1x64
 * (...), reduce 66x512 x8 (...); 3 side streams; 16 copies on 2 streams",
 * or "not reported (<note>)". */
void cb_resources_format(const cb_kernel_resources *r, char *buf, size_t len);
/* "handshake 1x64;reduce 66x512": the grids alone, for a CSV column. */
void cb_resources_grids_text(const cb_kernel_resources *r, char *buf, size_t len);
/* The most registers per thread and shared bytes per block of any grid
 * (what the runtime said: grids of a function of ours). */
int cb_resources_max_regs(const cb_kernel_resources *r);
size_t cb_resources_max_smem(const cb_kernel_resources *r);

/* "resources": {reported, sms_at_once, gpu_sms, grids: [{role, blocks,
 * threads, registers, static_smem, dynamic_smem, blocks_per_sm, sms,
 * launches, beside}], side_streams, copies, copy_streams, note}, or
 * {reported: false, note} (docs/output.md). */
void cb_json_resources(cb_json *j, const cb_kernel_resources *r);
/* The CSV columns (after the comma the row's earlier columns end with; each
 * ends with its comma): empty when r is NULL (a skipped measurement). */
#define CB_CSV_RESOURCES_HEADER                                                                    \
  "res_grids,res_regs,res_smem,res_sms_at_once,res_gpu_sms,res_side_streams,res_copies,"           \
  "res_copy_streams,res_note"
void cb_csv_resources(FILE *out, const cb_kernel_resources *r);

#ifdef __cplusplus
}
#endif

#endif
