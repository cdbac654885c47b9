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
