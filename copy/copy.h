/* copy_perf's plug-in contract. copy_perf is not a collective: it moves
 * bytes between this GPU and host memory, or to the peer GPU, along several
 * paths (copy engine, SM loads/stores, a CPU mapping, LL packets). Each path
 * is one row of a kernel table, as in collective.h: plain data and function
 * pointers, so adding a path is adding a row; the copy runner
 * (copy_runner.c) never branches on a kernel's name, and a kernel never
 * parses options or prints.
 *
 * A kernel posts copies and completes them: latency is post(1) then
 * complete, bandwidth is post(W) then complete (osu_bw's window). Both are
 * timed on the host clock, because some paths are CPU-driven. */
#ifndef CB_COPY_H
#define CB_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "copy_options.h"
#include "kernel_menu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The run's buffers and this kernel's view of one direction. */
typedef struct {
  cb_copy_dir dir;
  int rank;
  int device;         /* CUDA ordinal of this GPU */
  int peer_device;    /* d2d: the peer's ordinal as this process numbers it, else -1 */
  int timeout_s;      /* -T: bound on every wait */
  int window;         /* -W: the most copies one post() is given */
  uint64_t max_bytes; /* -e: size any state for it */
  int pageable;       /* host buffer from malloc (--pageable) */
  void *host;         /* host buffer, max_bytes */
  void *host_mapped;  /* its device address when pinned and mapped, else NULL */
  void *dev;          /* this GPU's buffer, max_bytes, 64 KiB aligned (GDRCopy pins GPU pages) */
  void *peer;         /* d2d: the peer GPU's buffer as this GPU addresses it, else NULL */
  int kernel_id;      /* for messages */
  const char *kernel_name;
  void *state; /* the kernel's own, set by its setup */
} cb_copy_ctx;

/* One copy: the whole message, from the start of the run's buffers. */
typedef struct {
  void *dst;
  const void *src;
  size_t bytes;
} cb_copy_call;

typedef struct cb_copy_kernel {
  int id;                 /* the -k number */
  const char *name;       /* the -k name */
  const char *summary;    /* one line for -k list and the table */
  unsigned dirs;          /* CB_DIR_BIT mask of the directions it serves */
  const char *other_dirs; /* why it does not serve the others */
  int needs_pinned;       /* reads or writes the host buffer from the GPU: no --pageable */
  /* NULL when usable in this build and on this machine, else why not.
   * Called before any GPU work. Optional. */
  const char *(*unavailable)(void);
  /* NULL when the kernel can see through a run of at least copies copies
   * of every size of o's sweep in direction d (cb_copy_copies_per_size),
   * else why not, in buf (len bytes): the run is refused before any GPU
   * work. Optional. */
  const char *(*refuse_run)(const cb_copy_options *o, cb_copy_dir d, uint64_t copies, char *buf,
                            size_t len);
  /* Once per direction on the copying rank, before its sizes: NULL when
   * ready, else why the kernel cannot run here (a skip, not a failure,
   * unless the user asked for this kernel by name). Optional. */
  const char *(*setup)(cb_copy_ctx *ctx);
  void (*teardown)(cb_copy_ctx *ctx); /* optional */
  /* Outside the timed region (a resident kernel starts and stops here): a
   * session for the latency copies of a size (copies 1), one for its
   * windows (copies = -W), and one per validation round. copies is what the
   * session's posts are given: a kernel may size itself for it (a resident
   * kernel's blocks), but must stay correct for any post of up to -W. */
  void (*start)(cb_copy_ctx *ctx, const cb_copy_call *call, int copies,
                cudaStream_t s);                  /* optional */
  void (*stop)(cb_copy_ctx *ctx, cudaStream_t s); /* optional */
  /* Issues copies (1 <= copies <= window) of call, back to back, each
   * moving every byte of call; asynchronous where the path is. */
  void (*post)(cb_copy_ctx *ctx, const cb_copy_call *call, int copies, cudaStream_t s);
  /* Returns once every posted copy is complete: its bytes are at the
   * destination. NULL: the copy is complete when post returns. */
  void (*complete)(cb_copy_ctx *ctx, cudaStream_t s);
  /* Optional, for a kernel that moves different sizes different ways;
   * called after setup. The protocol that moves a copy of bytes in a post
   * of copies copies (a word each row of the report carries), and one line
   * saying how the kernel picks it (its block's header). */
  const char *(*protocol)(const cb_copy_ctx *ctx, size_t bytes, int copies);
  void (*describe)(const cb_copy_ctx *ctx, char *buf, size_t len);
} cb_copy_kernel;

typedef struct {
  const cb_copy_kernel *kernels;
  int nkernels;
} cb_copy_program;

/* complete() of the stream paths (ce, batch, sm): a stream synchronize, which
 * is what a small copy really costs an application. */
void cb_copy_stream_complete(cb_copy_ctx *ctx, cudaStream_t s);

/* The table as -k sees it. */
cb_kernel_menu cb_copy_kernels_menu(const cb_copy_program *p);

/* Resolves -k (an id, a name, a comma list, or "all") into selected[]
 * (nkernels entries). Returns 0, or -1 with err set. */
int cb_copy_kernels_select(const cb_copy_program *p, const char *spec, int *selected,
                           int *explicit_pick, char *err, size_t err_len);

/* The copies a kernel with a session (start) is given at each size, one
 * fewer for one without when -w is 0; --overlap adds those made beside the
 * load, as many as the load's duration takes. */
uint64_t cb_copy_copies_per_size(const cb_copy_options *o);

/* Why kernel k does not serve direction d (or with pageable host memory), or NULL. */
const char *cb_copy_kernel_dir_reason(const cb_copy_kernel *k, cb_copy_dir d, int pageable);

/* -k list: every kernel, its directions, and its availability. */
void cb_copy_kernels_print(FILE *out, const cb_copy_program *p);

/* The program: options, world, buffers, every direction x kernel x size,
 * the report sinks. Returns the exit code: 0, or 1 on bad input, a failure,
 * or any wrong byte. */
int cb_copy_main(const cb_copy_program *p, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
