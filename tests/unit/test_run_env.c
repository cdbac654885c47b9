/* cb_run_env_cuda_defaults: the CUDA and NCCL settings the programs make
 * before CUDA starts, only where the user has not made them, and those for
 * ranks sharing a GPU only with CB_SHARE_GPUS=1 (run_env.c says why). */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "run_env.h"

/* What ranks sharing a GPU need, as run_env.c sets it. */
static const char *const shared_gpu_vars[][2] = {
    {"CUDA_DEVICE_MAX_CONNECTIONS", "32"},
    {"NCCL_RUNTIME_CONNECT", "0"},
    {"NCCL_SET_STACK_SIZE", "1"},
    {"NCCL_GRAPH_MIXING_SUPPORT", "0"},
};
#define NVARS (sizeof shared_gpu_vars / sizeof shared_gpu_vars[0])

static void clear_all(void) {
  unsetenv("CB_SHARE_GPUS");
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  unsetenv("MPI_LOCALNRANKS");
  unsetenv("CUDA_MODULE_LOADING");
  for (size_t i = 0; i < NVARS; i++) unsetenv(shared_gpu_vars[i][0]);
}

static void check_value(const char *name, const char *want) {
  const char *got = getenv(name);
  if (!want)
    CHECKF(got == NULL, "%s should stay unset, is '%s'", name, got);
  else
    CHECKF(got && strcmp(got, want) == 0, "%s should be '%s', is '%s'", name, want,
           got ? got : "(unset)");
}

static void test_one_rank_a_gpu(void) {
  clear_all();
  cb_run_env_cuda_defaults();
  check_value("CUDA_MODULE_LOADING", "EAGER");
  for (size_t i = 0; i < NVARS; i++) check_value(shared_gpu_vars[i][0], NULL);
  clear_all();
  setenv("CB_SHARE_GPUS", "0", 1);
  cb_run_env_cuda_defaults();
  for (size_t i = 0; i < NVARS; i++) check_value(shared_gpu_vars[i][0], NULL);
}

static void test_ranks_sharing_a_gpu(void) {
  clear_all();
  setenv("CB_SHARE_GPUS", "1", 1);
  cb_run_env_cuda_defaults();
  check_value("CUDA_MODULE_LOADING", "EAGER");
  for (size_t i = 0; i < NVARS; i++) check_value(shared_gpu_vars[i][0], shared_gpu_vars[i][1]);
}

/* A value the user set is kept, each on its own. */
static void test_user_settings_win(void) {
  for (size_t i = 0; i < NVARS; i++) {
    clear_all();
    setenv("CB_SHARE_GPUS", "1", 1);
    setenv(shared_gpu_vars[i][0], "7", 1);
    cb_run_env_cuda_defaults();
    for (size_t j = 0; j < NVARS; j++)
      check_value(shared_gpu_vars[j][0], j == i ? "7" : shared_gpu_vars[j][1]);
  }
  clear_all();
  setenv("CUDA_MODULE_LOADING", "LAZY", 1);
  cb_run_env_cuda_defaults();
  check_value("CUDA_MODULE_LOADING", "LAZY");
}

/* Under MPS the processes on a GPU share one pool of hardware queues: each
 * takes its share, so that every process of the run gets in (4 processes
 * of 32 each were refused "out of memory" at their first CUDA call), from
 * the launcher's count of this machine's processes, then MPI's. */
static void test_queues_shared_by_processes(void) {
  CHECK_EQ_INT(cb_queues_per_process(1), 32);
  CHECK_EQ_INT(cb_queues_per_process(3), 32);
  CHECK_EQ_INT(cb_queues_per_process(4), 24);
  CHECK_EQ_INT(cb_queues_per_process(6), 16);
  CHECK_EQ_INT(cb_queues_per_process(500), 1);
  for (int procs = 1; procs <= 128; procs++)
    CHECKF(procs * cb_queues_per_process(procs) <= CB_MPS_QUEUE_POOL || procs > CB_MPS_QUEUE_POOL,
           "%d processes of %d queues: over MPS's pool of %d", procs, cb_queues_per_process(procs),
           CB_MPS_QUEUE_POOL);
  const char *launchers[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
  for (int i = 0; i < 2; i++) {
    clear_all();
    setenv("CB_SHARE_GPUS", "1", 1);
    setenv(launchers[i], "4", 1);
    cb_run_env_cuda_defaults();
    check_value("CUDA_DEVICE_MAX_CONNECTIONS", "24");
    CHECK_EQ_INT(cb_run_env_queues_chosen_for(), 4);
    cb_run_env_queues_for(4); /* MPI agrees: nothing changes */
    check_value("CUDA_DEVICE_MAX_CONNECTIONS", "24");
  }
  /* No launcher said: MPI's count decides, before any CUDA context. */
  clear_all();
  setenv("CB_SHARE_GPUS", "1", 1);
  cb_run_env_cuda_defaults();
  check_value("CUDA_DEVICE_MAX_CONNECTIONS", "32");
  cb_run_env_queues_for(6);
  check_value("CUDA_DEVICE_MAX_CONNECTIONS", "16");
  /* The user's value stays, whatever MPI says. */
  clear_all();
  setenv("CB_SHARE_GPUS", "1", 1);
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "8", 1);
  cb_run_env_cuda_defaults();
  CHECK_EQ_INT(cb_run_env_queues_chosen_for(), 0);
  cb_run_env_queues_for(6);
  check_value("CUDA_DEVICE_MAX_CONNECTIONS", "8");
}

/* A context that MPS refuses ("out of memory") with ranks sharing a GPU is
 * one line naming the pool of queues and the fix; other failures, or one
 * without ranks sharing GPUs, keep CUDA's own words. */
static void test_context_failure_says_why(void) {
  char buf[400];
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1);
  const char *why = cb_run_env_context_failure(cudaErrorMemoryAllocation, 1, buf, sizeof buf);
  CHECK(why && strstr(why, "out of memory: under MPS") && strstr(why, "(32 here)") &&
        strstr(why, "run fewer processes on the GPU") && !strchr(why, '\n'));
  CHECK(cb_run_env_context_failure(cudaErrorMpsMaxConnectionsReached, 1, buf, sizeof buf));
  CHECK(!cb_run_env_context_failure(cudaErrorMemoryAllocation, 0, buf, sizeof buf));
  CHECK(!cb_run_env_context_failure(cudaErrorInvalidDevice, 1, buf, sizeof buf));
}

int main(void) {
  test_one_rank_a_gpu();
  test_ranks_sharing_a_gpu();
  test_user_settings_win();
  test_queues_shared_by_processes();
  test_context_failure_says_why();
  return check_summary();
}
