/* What a kernel holds of the GPU while it runs (collbench/resources.h, what
 * a row fills), and what the harness adds and reports of it. */
#ifndef CB_KERNEL_RESOURCES_H
#define CB_KERNEL_RESOURCES_H

#include <stddef.h>
#include <stdio.h>

#include "collbench/resources.h"
#include "json_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

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
