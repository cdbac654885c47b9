/* The kernel contract: what a kernel is (one row of plain data and
 * function pointers, with its limits), the call it serves, the context it
 * sees, the one question "can you serve this here", and how a kernel file
 * registers its row. A kernel of collbench and a plugin's are written
 * against this folder alone. The harness never branches on a kernel's
 * name, and a kernel never parses options or prints: it answers in the
 * replies it is given and fails through error.h. */
#ifndef COLLBENCH_KERNEL_H
#define COLLBENCH_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "collbench/resources.h"
#include "collbench/section.h"
#include "collbench/types.h"
#include "collbench/wait.h"
#include "collbench/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A collective's shape (its counts, bus factor, expected output): the
 * harness's; a kernel names its collective by name when it registers. */
typedef struct cb_coll_shape cb_coll_shape;

/* Names a kernel may take: up to this many characters of a-z, 0-9 and '-'
 * (a -k word). Every output keeps such a name whole and its columns in
 * line, the GPU's timeout line (wait.h) included. */
#define CB_KERNEL_NAME_MAX 15
#ifdef __cplusplus
static_assert(CB_SPIN_NAME_CHARS >= CB_KERNEL_NAME_MAX, "the timeout line keeps every name");
#else
_Static_assert(CB_SPIN_NAME_CHARS >= CB_KERNEL_NAME_MAX, "the timeout line keeps every name");
#endif

/* Placements a kernel supports. */
#define CB_OUT_OF_PLACE    1u
#define CB_IN_PLACE        2u
#define CB_BOTH_PLACEMENTS (CB_OUT_OF_PLACE | CB_IN_PLACE)

/* The kinds of wait a kernel relies on (cb_kernel.waits), each a family of
 * mutations (device/mutation.cuh). */
#define CB_WAITS_HANDSHAKE 0x1u  /* start and end handshakes (device/handshake.cuh, ce_flags.h) */
#define CB_WAITS_LL        0x2u  /* LL packets' polls, the tiles' epochs and halves */
#define CB_WAITS_LL_CREDIT 0x4u  /* the credits of a one-to-many or many-to-one LL kernel */
#define CB_WAITS_FIFO      0x8u  /* the ring FIFO's slices, slots and credits */
#define CB_WAITS_CE_LANDED 0x10u /* the ce reduce's waits for a peer's piece to land */

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
   * part of a hierarchical kernel (the harness's hier.h), whose host peers
   * wait for their rail's NCCL call. With ranks sharing the GPU its grid then
   * leaves whole SMs free (cb_ctx_resident_blocks, common/mesh/grid_fit.h). */
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
  int id;              /* the -k number: set by the harness when it collects the rows (registry.h),
                          from the catalogue for ours, after the catalogue's for a plugin's */
  const char *name;    /* the -k name: for a kernel of ours, its kind's name in the catalogue */
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
  /* Optional: a row listed in its program that never runs there, and why
   * (the same text on every machine: NCCL has no copy-engine path for this
   * collective, say). Asked before anything else. */
  const char *unavailable;
  /* The kinds of wait of the device kit the kernel relies on (CB_WAITS_*):
   * a mutant build that removes or breaks one (tests/gpu/mutation.sh)
   * marks the kernels it touches in -k list, and the validation must catch
   * each of them. */
  unsigned waits;
} cb_kernel;

/* A row of ours is defined beside its kernel, in its own .cu file, with C
 * linkage (another row may take it as a part: hier.h), and registered there:
 * `CB_KERNEL_ROW(cb_all_reduce_ll) = {.name = "ll", .summary = ..., .launch = ...};`
 * then `CB_REGISTER_KERNEL(all_reduce, cb_all_reduce_ll, "what docs/kernels.md says");`.
 * A .cu file is C++, whose designated initializers must name the fields in
 * the order they are declared here. */
#ifdef __cplusplus
#define CB_KERNEL_ROW(name) extern "C" const cb_kernel name
#else
#define CB_KERNEL_ROW(name) const cb_kernel name
#endif

/* One registered kernel: the collective it serves (its shape's name,
 * "all_reduce"), its row, and what docs/kernels.md says of it (one
 * paragraph, markdown; NULL: its summary). */
typedef struct {
  const char *collective;
  const cb_kernel *row;
  const char *about;
} cb_kernel_entry;

/* Registers row_ (a cb_kernel of the file) as a kernel of collective_ (a bare
 * name, all_reduce, or a macro that gives one): the file is then all it
 * takes, nothing else lists it. The entry's address goes into the section
 * cb_kernel_entries, which the linker gathers from every object of the
 * library or plugin (section.h). */
#define CB_NAME_OF(word_) #word_
#define CB_REGISTER_KERNEL(collective_, row_, about_)                                              \
  static const cb_kernel_entry cb_entry_##row_ = {CB_NAME_OF(collective_), &(row_), about_};       \
  CB_IN_SECTION(cb_kernel_entries)                                                                 \
  static const cb_kernel_entry *const cb_entry_at_##row_ = &cb_entry_##row_

/* For a setup: this kernel cannot serve the run, because of fmt... (one
 * line, no trailing period). */
void cb_kernel_refuse(cb_setup_reply *reply, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* For a setup: this kernel serves the run, but not as asked, because of
 * fmt... (one line, no trailing period); a second note is appended to the
 * first after "; ", as much of it as fits. */
void cb_kernel_note(cb_setup_reply *reply, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif
