/* cb_run_env_cuda_defaults: the CUDA and NCCL settings the programs make
 * before CUDA starts, only where the user has not made them, and those for
 * ranks sharing a GPU only with CB_SHARE_GPUS=1 (run_env.c says why). */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <stdlib.h>
#include <string.h>

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

int main(void) {
  test_one_rank_a_gpu();
  test_ranks_sharing_a_gpu();
  test_user_settings_win();
  return check_summary();
}
