/* Failures: a kernel never prints; what it cannot do it says in one line
 * through these, which name the program, the rank and the place, and end
 * the run. No CUDA here (cuda_check.h checks CUDA's calls). */
#ifndef COLLBENCH_ERROR_H
#define COLLBENCH_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* "<program>: rank R: file:line: call: what", then the run ends. */
__attribute__((noreturn)) void cb_die(const char *file, int line, const char *call,
                                      const char *what);
/* "<program>: rank R: <formatted message>", then the run ends. */
__attribute__((noreturn, format(printf, 1, 2))) void cb_fatal(const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif
