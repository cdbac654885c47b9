/* Loading plugins (plugins.h): dlopen each, read its cb_plugin, check it and
 * every row and tunable it registers, then give the rows their ids. Nothing
 * is kept from a set that has one refusal. */
#define _GNU_SOURCE /* RTLD_NOW, dlerror */
#include "plugins.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "collbench/plugin.h"
#include "error.h"
#include "registry.h"
#include "tunables.h"

/* Every registration of the plugins being loaded, before they are kept. */
typedef struct {
  const cb_plugin_info *info[CB_MAX_PLUGINS];
  const char *tunable_owner[256]; /* the plugin of each tunable seen, for messages */
} pending;

__attribute__((format(printf, 3, 4))) static const char *refuse(char *why, size_t len,
                                                                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return why;
}

/* Opens path and finds its cb_plugin, of this API. */
static const char *open_one(const char *path, void **handle, const cb_plugin_info **info, char *why,
                            size_t len) {
  *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!*handle) return refuse(why, len, "plugin %s cannot be loaded: %s", path, dlerror());
  *info = (const cb_plugin_info *)dlsym(*handle, CB_PLUGIN_SYMBOL);
  if (!*info)
    return refuse(why, len,
                  "plugin %s is no collbench plugin: it defines no %s (CB_PLUGIN, "
                  "collbench/plugin.h)",
                  path, CB_PLUGIN_SYMBOL);
  const cb_plugin_info *p = *info;
  if (p->api_version != CB_KERNEL_API_VERSION)
    return refuse(why, len,
                  "plugin %s was built for kernel API version %d, and this collbench has "
                  "version %d: rebuild it against this collbench's headers",
                  path, p->api_version, CB_KERNEL_API_VERSION);
  if (p->kernel_bytes != sizeof(cb_kernel) || p->entry_bytes != sizeof(cb_kernel_entry))
    return refuse(why, len,
                  "plugin %s was built with other headers of kernel API version %d (a row of %u "
                  "bytes, here %u): rebuild it against this collbench's headers",
                  path, p->api_version, p->kernel_bytes, (unsigned)sizeof(cb_kernel));
  if (!p->name || !p->name[0]) return refuse(why, len, "plugin %s gives itself no name", path);
  return NULL;
}

/* Whether set already has a row named name: from another plugin than
 * plugin (its index), or from it for the same collective. */
static int row_taken(const cb_plugin_set *set, const char *name, const char *collective, int plugin,
                     const char **by) {
  for (int i = 0; i < set->nrows; i++) {
    if (strcmp(set->rows[i].name, name) != 0) continue;
    if (set->rows[i].id != plugin || strcmp(set->collectives[i], collective) == 0) {
      *by = set->names[set->rows[i].id];
      return 1;
    }
  }
  return 0;
}

/* What is wrong with one row of a plugin's, or NULL. */
static const char *row_problem(const cb_kernel_entry *e, int (*known)(const char *), char *why,
                               size_t len) {
  char name_why[160];
  const cb_kernel *k = e->row;
  if (!k || !k->name) return refuse(why, len, "a registration without a row or a name");
  if (!e->collective || !known(e->collective))
    return refuse(why, len, "kernel '%s' serves no collective of collbench's ('%s')", k->name,
                  e->collective ? e->collective : "(none)");
  if (cb_kernel_name_check(k->name, name_why, sizeof name_why))
    return refuse(why, len, "%s", name_why);
  if (cb_catalogue_find(k->name))
    return refuse(why, len,
                  "kernel '%s' is a name of collbench's catalogue (kernel %d): a plugin's "
                  "kernels take names of their own",
                  k->name, cb_catalogue_find(k->name)->id);
  if (!k->launch) return refuse(why, len, "kernel '%s' has no launch", k->name);
  if (!k->summary || !k->summary[0])
    return refuse(why, len, "kernel '%s' has no summary (-k list's line)", k->name);
  if (!k->limits.placements || (k->limits.placements & ~(unsigned)CB_BOTH_PLACEMENTS))
    return refuse(why, len, "kernel '%s': its placements are neither in- nor out-of-place",
                  k->name);
  if (!k->limits.dtypes || !k->limits.ops)
    return refuse(why, len, "kernel '%s' serves no datatype or no op", k->name);
  if (k->memory != CB_MEM_CUDA && k->memory != CB_MEM_NCCL)
    return refuse(why, len, "kernel '%s' asks for buffers of an unknown kind (%d)", k->name,
                  (int)k->memory);
  if (k->teardown == NULL && k->setup != NULL)
    return refuse(why, len, "kernel '%s' has a setup and no teardown", k->name);
  return NULL;
}

/* Adds plugin i's rows to set; NULL, or why one is refused. */
static const char *take_rows(cb_plugin_set *set, int i, const cb_plugin_info *p,
                             int (*known)(const char *), char *why, size_t len) {
  char row_why[320];
  for (const cb_kernel_entry *const *e = p->kernels; e && e < p->kernels_end; e++) {
    const char *by = NULL;
    if (row_problem(*e, known, row_why, sizeof row_why))
      return refuse(why, len, "plugin %s: %s", set->paths[i], row_why);
    if (row_taken(set, (*e)->row->name, (*e)->collective, i, &by))
      return refuse(why, len, "plugin %s: kernel '%s' of %s is taken already (plugin %s)",
                    set->paths[i], (*e)->row->name, (*e)->collective, by);
    set->collectives[set->nrows] = (*e)->collective;
    set->rows[set->nrows] = *(*e)->row;
    set->rows[set->nrows++].id = i; /* for now: its plugin's index */
  }
  return NULL;
}

/* Checks plugin i's tunables and adds them to the program's list. */
static const char *take_tunables(const cb_plugin_set *set, int i, const cb_plugin_info *p,
                                 char *why, size_t len) {
  for (const cb_tunable_group *const *g = p->tunables; g && g < p->tunables_end; g++)
    for (int k = 0; k < (*g)->n; k++) {
      const char *name = (*g)->rows[k].name;
      if (!name || strncmp(name, "CB_", 3) != 0)
        return refuse(why, len, "plugin %s: tunable '%s' is not a CB_ name", set->paths[i],
                      name ? name : "(none)");
      if (cb_tunable_find(name))
        return refuse(why, len, "plugin %s: tunable %s is taken already", set->paths[i], name);
    }
  if (p->tunables && p->tunables_end > p->tunables)
    cb_tunables_add(p->tunables, (int)(p->tunables_end - p->tunables));
  return NULL;
}

static uint64_t fnv(uint64_t h, const char *s) {
  for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (h ^ 0xff) * 1099511628211ull;
}

/* Ids: the catalogue's size, then one a name, in load order. */
static void give_ids(cb_plugin_set *set) {
  int next = cb_catalogue_size;
  set->digest = 14695981039346656037ull;
  for (int i = 0; i < set->n; i++) set->digest = fnv(set->digest, set->paths[i]);
  for (int r = 0; r < set->nrows; r++) {
    int id = -1;
    for (int q = 0; q < r && id < 0; q++)
      if (strcmp(set->rows[q].name, set->rows[r].name) == 0) id = set->rows[q].id;
    set->rows[r].id = id >= 0 ? id : next++;
    set->digest = fnv(fnv(set->digest, set->rows[r].name), set->collectives[r]);
  }
}

/* The paths: those of --plugin, then env's, split at colons (copies). */
static int gather_paths(const char *const *paths, int npaths, const char *env, char **out,
                        char *why, size_t len) {
  int n = 0;
  char *copy = env ? strdup(env) : NULL, *save = NULL;
  for (int i = 0; i < npaths && n <= CB_MAX_PLUGINS; i++) out[n++] = strdup(paths[i]);
  for (char *w = copy ? strtok_r(copy, ":", &save) : NULL; w && n <= CB_MAX_PLUGINS;
       w = strtok_r(NULL, ":", &save))
    out[n++] = strdup(w);
  free(copy);
  if (n > CB_MAX_PLUGINS) {
    for (int i = 0; i < n; i++) free(out[i]);
    refuse(why, len, "at most %d plugins (--plugin and %s together)", CB_MAX_PLUGINS,
           CB_PLUGINS_ENV);
    return -1;
  }
  return n;
}

const char *cb_plugins_load(const char *const *paths, int npaths, const char *env,
                            int (*known)(const char *collective), cb_plugin_set *set, char *why,
                            size_t len) {
  memset(set, 0, sizeof *set);
  char *all[CB_MAX_PLUGINS + 1];
  int n = gather_paths(paths, npaths, env, all, why, len);
  if (n <= 0) return n < 0 ? why : NULL;
  const cb_plugin_info *info[CB_MAX_PLUGINS];
  size_t room = 0;
  const char *bad = NULL;
  /* Opened one after the other, up to the first refused (kept, to be closed). */
  for (int i = 0; i < n && !bad; i++) {
    set->paths[i] = all[i];
    bad = open_one(all[i], &set->handles[i], &info[i], why, len);
    if (set->handles[i]) set->n = i + 1;
    if (!bad) room += (size_t)(info[i]->kernels_end - info[i]->kernels);
  }
  set->rows = calloc(room + 1, sizeof *set->rows);
  set->collectives = calloc(room + 1, sizeof *set->collectives);
  if (!set->rows || !set->collectives) cb_fatal("out of host memory");
  for (int i = 0; i < set->n && !bad; i++) set->names[i] = info[i]->name;
  for (int i = 0; i < set->n && !bad; i++) bad = take_rows(set, i, info[i], known, why, len);
  for (int i = 0; i < set->n && !bad; i++) bad = take_tunables(set, i, info[i], why, len);
  for (int i = set->n; i < n; i++) free(all[i]); /* not reached: never opened */
  if (bad) {
    char keep[1024];
    snprintf(keep, sizeof keep, "%s", why); /* dlclose may reuse what why points into */
    cb_plugins_unload(set);
    snprintf(why, len, "%s", keep);
    return why;
  }
  give_ids(set);
  return NULL;
}

int cb_plugins_rows_of(const cb_plugin_set *set, const char *c, const cb_kernel **out) {
  int k = 0;
  for (int i = 0; i < set->nrows; i++)
    if (strcmp(set->collectives[i], c) == 0) out[k++] = &set->rows[i];
  return k;
}

void cb_plugins_print(FILE *out, const cb_plugin_set *set) {
  for (int i = 0; i < set->n; i++) fprintf(out, "# Plugin %s: %s\n", set->names[i], set->paths[i]);
}

void cb_plugins_unload(cb_plugin_set *set) {
  for (int i = 0; i < set->n; i++) {
    if (set->handles[i]) dlclose(set->handles[i]);
    free((void *)set->paths[i]);
  }
  free(set->rows);
  free(set->collectives);
  memset(set, 0, sizeof *set);
}
