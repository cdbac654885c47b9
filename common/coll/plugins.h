/* Plugins (collbench/plugin.h): shared objects of kernels built outside
 * collbench, loaded before any GPU work, checked, and joined to the program's
 * table. */
#ifndef CB_PLUGINS_H
#define CB_PLUGINS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collective.h"
#include "options.h" /* CB_MAX_PLUGINS */

#ifdef __cplusplus
extern "C" {
#endif

/* The environment variable that names plugins, paths separated by colons,
 * loaded after those of --plugin. */
#define CB_PLUGINS_ENV "CB_PLUGINS"

/* The plugins a process loaded: their rows, each with its id (a name has
 * the same id in every program: the catalogue's size, then one a name in the
 * order the plugins list them). */
typedef struct {
  int n;
  void *handles[CB_MAX_PLUGINS];
  const char *paths[CB_MAX_PLUGINS]; /* as given */
  const char *names[CB_MAX_PLUGINS]; /* the plugins' own names */
  int nrows;
  cb_kernel *rows;          /* every plugin's rows, ids set, in load order */
  const char **collectives; /* rows[i]'s collective */
  uint64_t digest;          /* of every path and row, for the processes to compare */
} cb_plugin_set;

/* Loads the plugins at paths[0..npaths) then those env names (NULL: none;
 * empty names are skipped), in that order, into set; every one is checked
 * before any is used. Returns NULL, or why the first refused is (one line,
 * naming it), with nothing loaded. known(name) says whether a collective of
 * that name exists (a row for another is refused). */
const char *cb_plugins_load(const char *const *paths, int npaths, const char *env,
                            int (*known)(const char *collective), cb_plugin_set *set, char *why,
                            size_t len);

/* The rows of collective c, into out (room for set->nrows); returns how many. */
int cb_plugins_rows_of(const cb_plugin_set *set, const char *c, const cb_kernel **out);

/* The header's line of each plugin: "# Plugin NAME: PATH". */
void cb_plugins_print(FILE *out, const cb_plugin_set *set);

/* Unloads every plugin and frees what loading kept. */
void cb_plugins_unload(cb_plugin_set *set);

#ifdef __cplusplus
}
#endif

#endif
