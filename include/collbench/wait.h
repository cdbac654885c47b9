/* The bounded-wait report: who waits. Every spin loop on the GPU is bounded
 * (device/spin.cuh): past its timeout it prints one line naming the rank,
 * the kernel and what it waited for, and traps, so a lost peer is an error
 * the host reports, never a hang. A kernel passes this by value in its
 * arguments, made on the host from its context. Plain C. */
#ifndef COLLBENCH_WAIT_H
#define COLLBENCH_WAIT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The name is packed in two words, not a char array: a kernel that passed
 * the address of an array in its parameters (to printf) would get its whole
 * parameter block copied to local memory at the start of every launch. */
typedef struct {
  int rank;
  int kernel_id;
  uint64_t name[2]; /* the kernel's name, up to 15 characters, NUL-padded */
  uint64_t timeout_ns;
} cb_spin_info;

/* Characters of a name the report keeps. */
#define CB_SPIN_NAME_CHARS (int)(sizeof(((cb_spin_info *)0)->name) - 1)

static inline cb_spin_info cb_spin_info_make(int rank, int kernel_id, const char *name,
                                             int timeout_s) {
  cb_spin_info s;
  s.rank = rank;
  s.kernel_id = kernel_id;
  char buf[sizeof s.name] = {0};
  snprintf(buf, sizeof buf, "%s", name);
  memcpy(s.name, buf, sizeof buf);
  s.timeout_ns = (uint64_t)timeout_s * 1000000000ull;
  return s;
}

/* Who waits and for how long, from a kernel's context (cb_kernel_ctx). */
#define CB_SPIN_INFO(ctx)                                                                          \
  cb_spin_info_make((ctx)->rank, (ctx)->kernel_id, (ctx)->kernel_name, (ctx)->timeout_s)

#ifdef __cplusplus
}
#endif

#endif
