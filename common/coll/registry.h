/* The kernels a program has, gathered from their registrations
 * (CB_REGISTER_KERNEL, collective.h): each kernel file registers its own
 * row, and the linker puts every registration of the library into one
 * section, which this reads. No list of kernels is kept anywhere else. */
#ifndef CB_REGISTRY_H
#define CB_REGISTRY_H

#include <stddef.h>

#include "collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A collective program's shape, registered by its file (src/<program>.c):
 * the programs and tools find it by its name. */
#define CB_REGISTER_COLLECTIVE(shape_)                                                             \
  CB_IN_SECTION(cb_collectives)                                                                    \
  static const cb_coll_shape *const cb_collective_at_##shape_ = &(shape_)

/* The registered collective of that name ("all_reduce"), or NULL. */
const cb_coll_shape *cb_registry_collective(const char *name);

/* Every kernel registered in this library, *n of them, in no set order. */
const cb_kernel_entry *const *cb_registry_kernels(size_t *n);

/* The table of the program of shape: every row registered for
 * shape->name, each with its id from the catalogue, in id order, then
 * extra[0..nextra) (a plugin's rows, registry of their own, ids already
 * set). Returns NULL, or why the rows cannot make a table (a name that is
 * not in the catalogue or is not a -k word, a kind listed twice): a bug of
 * the build, or of a plugin. */
const char *cb_collective_collect(const cb_coll_shape *shape, const cb_kernel *const *extra,
                                  int nextra, cb_collective *out, char *why, size_t len);

/* The same from the given registrations (entries[0..n)), whatever the
 * library holds: for the tests. */
const char *cb_collective_collect_from(const cb_coll_shape *shape,
                                       const cb_kernel_entry *const *entries, size_t n,
                                       const cb_kernel *const *extra, int nextra,
                                       cb_collective *out, char *why, size_t len);

/* Frees what cb_collective_collect allocated (never a table built by hand). */
void cb_collective_free(cb_collective *c);

/* NULL when name can name a kernel (CB_KERNEL_NAME_MAX, collbench/kernel.h), else
 * why not (buf). */
const char *cb_kernel_name_check(const char *name, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
