/* A plugin: kernels built outside collbench, in a shared object a program
 * loads with --plugin PATH (or CB_PLUGINS, paths separated by colons), and
 * measures, validates and reports beside its own and NCCL's. Its files are
 * written as ours are, against this folder alone: each defines its rows and
 * registers them (CB_REGISTER_KERNEL, kernel.h; CB_REGISTER_TUNABLES,
 * tunables.h), and one of them says, once, that the object is a plugin:
 *
 *     CB_PLUGIN("oneshot");
 *
 * The program reads cb_plugin first and refuses, in one line and before any
 * GPU work, a plugin built for another kernel API version, one whose rows
 * name a kernel already taken (a kind of the catalogue, or another
 * plugin's), and one whose rows break the contract (a name that is no -k
 * word, no launch, nothing it serves). Its rows join the tables of the
 * programs of the collectives they name, with ids after the catalogue's: a
 * name has the same id in every program. The object calls the harness's
 * services (world.h, peer.h, tunables.h, error.h, resources.h) from the
 * library of the program that loads it: it is linked against libcollbench
 * (find_package(collbench): collbench::collbench). */
#ifndef COLLBENCH_PLUGIN_H
#define COLLBENCH_PLUGIN_H

#include "collbench/kernel.h"
#include "collbench/section.h"
#include "collbench/tunables.h"
#include "collbench/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a plugin is, as the program reads it: plain data. */
typedef struct {
  int api_version; /* CB_KERNEL_API_VERSION it was built with */
  unsigned kernel_bytes,
      entry_bytes;  /* sizeof(cb_kernel), sizeof(cb_kernel_entry) it was built with */
  const char *name; /* for messages and reports */
  const cb_kernel_entry *const *kernels, *const *kernels_end;    /* its registered kernels */
  const cb_tunable_group *const *tunables, *const *tunables_end; /* its registered tunables */
} cb_plugin_info;

/* The symbol the program looks for. */
#define CB_PLUGIN_SYMBOL "cb_plugin"

#ifdef __cplusplus
#define CB_PLUGIN_LINKAGE extern "C" __attribute__((visibility("default")))
#else
#define CB_PLUGIN_LINKAGE __attribute__((visibility("default")))
#endif

/* Once in a plugin: its name (a string), and every registration of the
 * shared object, read from its own sections. */
#define CB_PLUGIN(name_)                                                                           \
  CB_SECTION_BOUNDS(const cb_kernel_entry *, cb_kernel_entries);                                   \
  CB_SECTION_BOUNDS(const cb_tunable_group *, cb_tunable_groups);                                  \
  CB_PLUGIN_LINKAGE const cb_plugin_info cb_plugin = {CB_KERNEL_API_VERSION,                       \
                                                      (unsigned)sizeof(cb_kernel),                 \
                                                      (unsigned)sizeof(cb_kernel_entry),           \
                                                      name_,                                       \
                                                      __start_cb_kernel_entries,                   \
                                                      __stop_cb_kernel_entries,                    \
                                                      __start_cb_tunable_groups,                   \
                                                      __stop_cb_tunable_groups}

#ifdef __cplusplus
}
#endif

#endif
