/* Fatal errors: one line naming the program, the rank, where, the call and
 * the library's own message, then a non-zero exit of the whole process
 * (cb_die and cb_fatal: collbench/error.h). */
#ifndef CB_ERROR_H
#define CB_ERROR_H

#include "collbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

void cb_error_set_program(const char *prog);
const char *cb_error_program(void);
/* Rank of the calling thread, for messages (-1 = not yet known). */
void cb_error_set_rank(int rank);

/* Exits 1 without a message: another process of the run says why. */
__attribute__((noreturn)) void cb_exit_quietly(void);

/* Runs hook (one; a later call replaces it) after the message of a fatal
 * error and before the exit, on a thread of its own, waiting for it at most
 * a few seconds: NCCL's communicators are aborted so that kernels waiting for
 * a lost peer stop before the process goes, as nccl-tests does on a timeout. */
void cb_error_on_exit(void (*hook)(void));

/* Checks a call that returns 0 on success and sets errno otherwise. */
#define CB_CHECK_ERRNO(call)                                                                       \
  do {                                                                                             \
    if ((call) != 0) cb_die(__FILE__, __LINE__, #call, cb_errno_string());                         \
  } while (0)
const char *cb_errno_string(void);

#ifdef __cplusplus
}
#endif

#endif
