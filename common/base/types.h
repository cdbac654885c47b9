/* Datatypes and reduction ops (collbench/types.h): names, sizes and
 * parsing. No CUDA here, so the CPU tests and option parsing can use it on
 * a machine without a GPU. */
#ifndef CB_TYPES_H
#define CB_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "collbench/types.h"

#ifdef __cplusplus
extern "C" {
#endif

int cb_dtype_is_float(cb_dtype t);
/* A floating type's machine epsilon and smallest normal value; 0 for the
 * integer types. */
double cb_dtype_epsilon(cb_dtype t);
double cb_dtype_min_normal(cb_dtype t);
/* Returns the dtype for a name (nccl-tests spellings and common aliases), or -1. */
int cb_dtype_parse(const char *name);

int cb_redop_parse(const char *name);

/* Every datatype's (op's) name, space-separated, into buf: what -d (-o)
 * takes, for messages and usage. Returns buf. */
const char *cb_dtype_names(char *buf, size_t len);
const char *cb_redop_names(char *buf, size_t len);

/* Parses "all" or a comma list of names into a bit mask; 0 on an unknown
 * name, or one named twice (*twice set), whose text is copied into bad (size
 * bad_len). */
uint32_t cb_dtype_mask_parse(const char *list, char *bad, size_t bad_len, int *twice);
uint32_t cb_redop_mask_parse(const char *list, char *bad, size_t bad_len, int *twice);

#ifdef __cplusplus
}
#endif

#endif
