/* CB_ERROR_STACKS=1: where every thread of the process was when an error
 * ended the run. A hang of ranks that share a process is often a thread
 * that waits inside NCCL or the CUDA driver for another rank's kernel,
 * which waits for it: the one line of the timeout names the wait that ran
 * out, and the stacks name the other end. After that line (cb_fatal,
 * cb_die), each thread's stack goes to stderr, one thread after the other:
 *
 *   collbench: process 812, thread 815 (all_reduce_perf), its stack:
 *     #2 libcuda.so.1 +0x39fc30 cuLaunchKernelEx
 *     #3 libnccl.so.2 +0x65596 ncclBroadcast
 *
 * a frame's library (or the program), its offset there (for addr2line) and
 * the nearest exported symbol. Linux only (a signal to each thread of
 * /proc/self/task); a thread that does not answer within a fifth of a
 * second is named as such. Nothing without the variable. */
#ifndef CB_THREAD_STACKS_H
#define CB_THREAD_STACKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Checks CB_ERROR_STACKS with the options: unset, "0" or "1". Returns
 * NULL, or why another value is refused (one line, in why), so that a
 * misspelt switch is not silently off. */
const char *cb_thread_stacks_read(char *why, size_t len);

/* With CB_ERROR_STACKS=1, prints every thread's stack (the caller's first);
 * nothing otherwise, and nothing after the first call. */
void cb_thread_stacks_print(void);

#ifdef __cplusplus
}
#endif

#endif
