/* Fatal errors: one line naming the program, the rank, where, the call and
 * the library's own message, then a non-zero exit of the whole process. */
#ifndef CB_ERROR_H
#define CB_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

void cb_error_set_program(const char *prog);
const char *cb_error_program(void);
/* Rank of the calling thread, for messages (-1 = not yet known). */
void cb_error_set_rank(int rank);

/* "prog: rank R: file:line: call: what" then exit(1). */
__attribute__((noreturn)) void cb_die(const char *file, int line, const char *call,
                                      const char *what);
/* "prog: rank R: <formatted message>" then exit(1). */
__attribute__((noreturn, format(printf, 1, 2))) void cb_fatal(const char *fmt, ...);

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
