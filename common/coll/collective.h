/* The plug-in contract. A collective test is one const cb_collective: its
 * shape (coll_shape.h) and a table of kernels. A kernel is one row of plain
 * data and function pointers; adding a variant is adding a row. The harness
 * never branches on a kernel's name, and a kernel never parses options or
 * prints: it reports failure only through the fatal-error checks. */
#ifndef CB_COLLECTIVE_H
#define CB_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "catalogue.h"
#include "coll_shape.h"
#include "kernel_resources.h"
#include "kernel_menu.h"
#include "types.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Placements a kernel supports. */
#define CB_OUT_OF_PLACE    1u
#define CB_IN_PLACE        2u
#define CB_BOTH_PLACEMENTS (CB_OUT_OF_PLACE | CB_IN_PLACE)

/* What a kernel can serve. The harness skips, with the reason in the table,
 * a (size, datatype, op, placement) it cannot; it refuses a run whose rank
 * count or host layout no selected kernel can serve only if the user asked
 * for that kernel by name or number. */
typedef struct {
  unsigned placements; /* CB_OUT_OF_PLACE | CB_IN_PLACE */
  uint32_t dtypes;     /* CB_DTYPE_BIT mask */
  uint32_t ops;        /* CB_OP_BIT mask (ignored by collectives that do not reduce) */
  int min_ranks;       /* 0 = no limit */
  int max_ranks;       /* 0 = no limit */
  int single_host;     /* needs every rank on one host (peer memory) */
  int across_hosts;    /* a hierarchical kernel (hier.h): ours within each host, NCCL between
                          them; runs only when the ranks span hosts, maps peer memory within each */
  int gpu_per_rank;    /* cannot run with ranks of one host sharing a GPU (CB_SHARE_GPUS) */
  uint64_t max_bytes;  /* table size above which the kernel skips; 0 = no limit */
  unsigned align;      /* bytes the send and receive pointers must be aligned to; 0 = any */
} cb_kernel_limits;

/* Who allocates the harness's send and receive buffers while a kernel runs
 * (the harness reallocates them when the next kernel wants the other kind). */
typedef enum {
  /* Our kernels' buffers, which they map into their peers
   * (peer/peer_memory.c) as CB_PEER_MAPPING says (peer_mapping.h):
   * cudaMalloc for CUDA IPC (ipc), which cannot map cuMem allocations;
   * cuMem allocations of our own (cumem.h) for cumem and fabric (and for
   * auto, the default, when it resolves to cumem). A row of ours with .single_host uses peer memory
   * (cb_kernel_uses_peer_memory). */
  CB_MEM_CUDA = 0,
  /* ncclMemAlloc (cuMem), as nccl-tests allocates for every run: what NCCL's
   * buffer registration and symmetric windows need. */
  CB_MEM_NCCL = 1,
} cb_buffer_kind;

/* One rank as a kernel sees it. */
typedef struct {
  int rank, nranks;
  int device;         /* CUDA ordinal this rank drives */
  int timeout_s;      /* bound on any wait (-T) */
  uint64_t max_bytes; /* largest message of the sweep (-e): size scratch for it */
  int kernel_id;      /* the kernel's own row, for error messages */
  const char *kernel_name;
  cb_rank_info *world; /* for collective setup: exchanging handles between ranks */
  /* The harness's buffers (allocation bases, of the kernel's .memory kind),
   * the same for every call of the kernel and at the same offsets on every
   * rank: a kernel that reads or writes its peers' send or receive buffers
   * maps them once in setup (cb_peer_share) and finds a call's pointers with
   * cb_peer_ptr_in. */
  void *send_buf, *recv_buf;
  size_t send_buf_bytes, recv_buf_bytes;
  int ranks_on_device; /* ranks sharing this rank's GPU, of any host (1 unless CB_SHARE_GPUS,
                          or hosts simulated on one machine) */
  /* 1: while this kernel's grid waits for its peers, kernels of NCCL's (no
   * budget of ours counts them) must start on this GPU for them to arrive: a
   * part of a hierarchical kernel (hier.h), whose host peers wait for their
   * rail's NCCL call. With ranks sharing the GPU its grid then leaves whole
   * SMs free (cb_ctx_resident_blocks, grid_fit.h). */
  int beside_nccl;
  void *state; /* the kernel's own per-rank state, set by its setup */
} cb_kernel_ctx;

/* What a rank's setup answers, in a reply its caller owns (both empty: it
 * serves the run as asked). */
typedef struct {
  /* It cannot serve this run (cb_kernel_refuse): the harness then skips the
   * kernel on every rank with this reason. */
  char refused[320];
  /* It serves the run differently from what was asked (cb_kernel_note: a
   * grid shrunk to what can be resident, say): the harness prints it above
   * the kernel's table, naming the rank. */
  char note[320];
} cb_setup_reply;

/* One collective call. */
typedef struct {
  cb_dtype dtype;
  cb_redop op;
  int root;
  size_t count; /* the call's count argument (cb_counts.param_count) */
  const void *send;
  void *recv;
  int in_place;
} cb_call;

/* One question to a kernel: can you serve this here? Asked of the world
 * before any GPU work (call NULL: the rank count, the hosts, ranks sharing
 * GPUs, what the build and library allow), and of each call shape (call
 * set, with the shape, the call's table bytes and the kernel's set-up
 * context, or ctx NULL for what its row alone decides). */
typedef struct {
  int nranks, multi_host;     /* the world (call NULL), and */
  int share_gpus;             /* ranks of one host share a GPU (CB_SHARE_GPUS) */
  const cb_coll_shape *shape; /* the call (call set) */
  const cb_call *call;
  uint64_t table_bytes;
  const cb_kernel_ctx *ctx;
} cb_serve_question;

typedef struct cb_kernel {
  int id;              /* the -k number */
  const char *name;    /* the -k name */
  const char *summary; /* one line for -k list */
  cb_kernel_limits limits;
  cb_buffer_kind memory; /* who allocates the buffers it is given (CB_MEM_CUDA unless set) */
  /* The row's own answer to q beyond .limits (cb_kernel_why_not asks it
   * last): NULL when it can serve, else why not, the text in buf (len
   * bytes) when it is formatted. What only the build or the run can tell:
   * asked with q->call NULL for the build and library ("built without
   * NCCL"; -k list asks so too, with no world), and per call once set up
   * (q->ctx set: the GPUs' compute capability, the library's version). It
   * must answer alike on every rank, so what it reads its setup decided
   * with every rank. Optional. */
  const char *(*why_not)(const cb_serve_question *q, char *buf, size_t len);
  /* What why_not checks per call, one phrase for -k list. */
  const char *run_limits;
  /* Once per rank before the sweep, called on every rank together; may
   * exchange handles through ctx->world. Optional. A setup that finds it
   * cannot run here (its grid cannot be resident at once, say) says so in
   * reply (cb_kernel_refuse) and returns, leaving ctx->state for its
   * teardown; the harness tears it down and skips it on every rank, naming
   * the reason. */
  void (*setup)(cb_kernel_ctx *ctx, cb_setup_reply *reply);
  void (*teardown)(cb_kernel_ctx *ctx);
  /* Per call shape, outside the timed region; host work only (it may run
   * while the stream is being captured into a graph). Optional. */
  void (*prepare)(cb_kernel_ctx *ctx, const cb_call *call);
  /* Enqueues one collective on stream; may be captured into a CUDA graph.
   * The contract the validation holds every kernel to (checked_calls.c
   * launches calls back to back, writing fresh inputs and checking outputs
   * on the stream in between, with no host wait): until a rank's stream
   * reaches the call, that rank may still be writing its input and reading
   * its output, so a kernel touches a peer's send or receive buffer only
   * after that peer's stream has reached the same call (a start handshake);
   * when the call ends on a rank, that rank's output is complete and no
   * peer reads its input any more (an end handshake). */
  void (*launch)(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream);
  /* Optional: opens (begin 1) and closes (begin 0) the -m launches of one
   * timed iteration, when -m is above 1, so that they go out as one
   * (NCCL: ncclGroupStart/ncclGroupEnd, as nccl-tests' -m). NULL: they are
   * launched one after the other. */
  void (*aggregate)(cb_kernel_ctx *ctx, int begin);
  /* Optional: what a call holds of the GPU beside its time
   * (kernel_resources.h): the grids it launches, the side streams it forks
   * and the copies it gives the copy engines, for the call's count, from
   * what the setup decided. Host arithmetic only, not collective: the
   * harness asks it on world rank 0, after setup, for every call shape it
   * measures, and fills in what the CUDA runtime knows. One that knows
   * nothing but a note (NCCL's rows) clears out->reported. NULL: "not
   * reported". */
  void (*resources)(const cb_kernel_ctx *ctx, const cb_call *call, cb_kernel_resources *out);
} cb_kernel;

/* A row of ours is defined beside its kernel, in src/kernels/<program>_<kernel>.cu,
 * with C linkage, and its program's table points to it:
 * `CB_KERNEL_ROW(cb_all_reduce_ll) = {CB_KERNEL(LL), .summary = ..., .launch = ...};`.
 * A .cu file is C++, whose designated initializers must name the fields in
 * the order they are declared here. */
#ifdef __cplusplus
#define CB_KERNEL_ROW(name) extern "C" const cb_kernel name
#else
#define CB_KERNEL_ROW(name) const cb_kernel name
#endif

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

/* For a setup: this kernel cannot serve the run, because of fmt... (one
 * line, no trailing period). */
void cb_kernel_refuse(cb_setup_reply *reply, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* For a setup: this kernel serves the run, but not as asked, because of
 * fmt... (one line, no trailing period); a second note is appended to the
 * first after "; ", as much of it as fits. */
void cb_kernel_note(cb_setup_reply *reply, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* NULL when every row's id and name are the catalogue's (catalogue.h),
 * else the first disagreement (buf). */
const char *cb_kernels_check_catalogue(const cb_collective *c, char *buf, size_t len);

/* Whether the kernel maps its peers' memory (peer/peer_memory.c), and so
 * depends on CB_PEER_MAPPING: a row of ours (CB_MEM_CUDA buffers) that
 * needs one host, or that runs ours within each host (across_hosts).
 * NCCL's rows bring their own memory (CB_MEM_NCCL). */
int cb_kernel_uses_peer_memory(const cb_kernel *k);

/* -k list: every kernel with its summary, limits and availability; the
 * kernels that use peer memory name CB_PEER_MAPPING. */
void cb_kernels_print(FILE *out, const cb_collective *c);

/* A program's collective (src/<program>.c), `const cb_collective name_`:
 * its shape_ and its table, the pointers to its rows (...) in -k number
 * order, held in a static array name_##_rows. (Not CB_COLLECTIVE: the build
 * names a program's collective with that, program_main.c.) */
#define CB_DEFINE_COLLECTIVE(name_, shape_, ...)                                                   \
  static const cb_kernel *const name_##_rows[] = {__VA_ARGS__};                                    \
  const cb_collective name_ = {.shape = shape_,                                                    \
                               .kernels = name_##_rows,                                            \
                               .nkernels = sizeof name_##_rows / sizeof name_##_rows[0]}

#ifdef __cplusplus
}
#endif

#endif
