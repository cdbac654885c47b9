/* What a collective program reads from its environment beside its options,
 * before any GPU work: the CUDA settings our kernels need, nccl-tests'
 * variables (nccl_tests_env.h), CB_PEER_MAPPING (peer_mapping.h) and every
 * CB_ tunable of the kernels (tunables.h). A bad value is refused like a
 * bad option, so that every process agrees before anything runs. */
#ifndef CB_RUN_ENV_H
#define CB_RUN_ENV_H

#include <stddef.h>

#include "option_parse.h" /* cb_opts_result */
#include "options.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* nccl-tests' environment variables. */
typedef struct {
  int color;        /* NCCL_TESTS_SPLIT(_MASK): this process's group */
  int first_device; /* NCCL_TESTS_DEVICE, -1 unset */
  double min_bw;    /* NCCL_TESTS_MIN_BW, -1 unset */
} cb_nccl_tests_vars;

/* Before anything can initialise CUDA (MPI_Init may): the CUDA settings our
 * kernels need, set where the user has not set them. */
void cb_run_env_cuda_defaults(void);

/* The hardware queues (CUDA_DEVICE_MAX_CONNECTIONS) that MPS shares among
 * the processes on a GPU, each owning its part: 3 processes of 32 were let
 * in on H100 and H200, a 4th refused at its first CUDA call ("out of
 * memory"). And the most a process asks for. */
#define CB_MPS_QUEUE_POOL 96
#define CB_MOST_QUEUES    32

/* Queues a process takes with ranks sharing a GPU (CB_SHARE_GPUS=1) when
 * procs processes run on its machine: its share of CB_MPS_QUEUE_POOL, at
 * least 1 and at most CB_MOST_QUEUES. */
int cb_queues_per_process(int procs);

/* Once MPI tells this machine's processes (machine_procs): the queue count
 * cb_run_env_cuda_defaults chose, made again for them where the launcher
 * told another count or none (before any CUDA context). */
void cb_run_env_queues_for(int machine_procs);

/* The machine's processes the queue count was chosen for, or 0 where it
 * was not chosen here (the user's, or ranks not sharing GPUs). */
int cb_run_env_queues_chosen_for(void);

/* What a failure rc of the call that makes a rank's CUDA context
 * (cudaSetDevice) means with ranks sharing GPUs (share_gpus), in words
 * that name its likely cause and the fix (buf, len bytes), or NULL: under
 * MPS a process that finds the pool of hardware queues used up is refused
 * with "out of memory". */
const char *cb_run_env_context_failure(int rc, int share_gpus, char *buf, size_t len);

/* After the options were parsed: nccl-tests' variables into vars (their
 * defaults when unset), CB_PEER_MAPPING into o, CB_ERROR_STACKS checked,
 * the tunables read. parsed
 * passes through unless it is CB_OPTS_RUN and a value is bad: then
 * CB_OPTS_ERROR, and err (len bytes) says why. */
cb_opts_result cb_run_env_read(cb_world *w, cb_opts_result parsed, cb_options *o,
                               cb_nccl_tests_vars *vars, char *err, size_t len);

#ifdef __cplusplus
}
#endif

#endif
