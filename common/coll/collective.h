/* The plug-in contract's harness side: a program's table of kernels
 * (cb_collective, collected from the registrations: registry.h), -k's
 * choice among them, the one answer to "can kernel k serve q here", and
 * -k list. The contract itself, what a kernel sees, is collbench/kernel.h. */
#ifndef CB_COLLECTIVE_H
#define CB_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "catalogue.h"
#include "coll_shape.h"
#include "collbench/kernel.h"
#include "kernel_menu.h"
#include "kernel_resources.h"
#include "types.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A program's table of kernels: its shape and its rows, in -k number order
 * (collected by cb_collective_collect, registry.h). */
typedef struct {
  const cb_coll_shape *shape;
  const cb_kernel *const *kernels; /* nkernels rows, in -k number order */
  int nkernels;
} cb_collective;

/* The table as -k sees it; program ("all_reduce_perf") names it in messages. */
cb_kernel_menu cb_kernels_menu(const cb_collective *c, const char *program);

/* Resolves -k (a number, a name, a comma list, or "all") into selected[]
 * (nkernels entries, 1 = run). explicit_pick is set when the user named
 * kernels rather than "all". Returns 0, or -1 with err set. */
int cb_kernels_select(const cb_collective *c, const char *spec, int *selected, int *explicit_pick,
                      char *err, size_t err_len);

/* The one answer to "can kernel k serve q here": NULL, or why not (buf,
 * len bytes, holds the text when it is formatted). Of the world (q->call
 * NULL): ranks sharing GPUs, the row's why_not, the rank count, the hosts.
 * Of a call: placement, datatype, op, alignment, size, then the row's
 * why_not when q->ctx is set. Everything that decides whether a kernel
 * runs asks here. */
const char *cb_kernel_why_not(const cb_kernel *k, const cb_serve_question *q, char *buf,
                              size_t len);

/* What kernel k holds of the GPU for call (kernel_resources.h): its row's
 * resources, measured on ctx's device; "not reported" without one. */
void cb_kernel_resources_of(const cb_kernel *k, const cb_kernel_ctx *ctx, const cb_call *call,
                            cb_kernel_resources *out);

/* Whether the kernel maps its peers' memory (peer/peer_memory.c), and so
 * depends on CB_PEER_MAPPING: a row of ours (CB_MEM_CUDA buffers) that
 * needs one host, or that runs ours within each host (across_hosts).
 * NCCL's rows bring their own memory (CB_MEM_NCCL). */
int cb_kernel_uses_peer_memory(const cb_kernel *k);

/* -k list: every kernel with its summary, limits and availability; the
 * kernels that use peer memory name CB_PEER_MAPPING; in a mutant build, the
 * kernels it touches say so. */
void cb_kernels_print(FILE *out, const cb_collective *c);

#ifdef __cplusplus
}
#endif

#endif
