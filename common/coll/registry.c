#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

CB_SECTION_BOUNDS(const cb_kernel_entry *, cb_kernel_entries);
CB_SECTION_BOUNDS(const cb_coll_shape *, cb_collectives);

const cb_coll_shape *cb_registry_collective(const char *name) {
  for (const cb_coll_shape *const *s = __start_cb_collectives; s && s < __stop_cb_collectives; s++)
    if (strcmp((*s)->name, name) == 0) return *s;
  return NULL;
}

const cb_kernel_entry *const *cb_registry_kernels(size_t *n) {
  *n = __start_cb_kernel_entries ? (size_t)(__stop_cb_kernel_entries - __start_cb_kernel_entries)
                                 : 0;
  return __start_cb_kernel_entries;
}

const char *cb_kernel_name_check(const char *name, char *buf, size_t len) {
  size_t n = strlen(name);
  if (n == 0 || n > CB_KERNEL_NAME_MAX) {
    snprintf(buf, len, "kernel name '%s' has %zu characters: a name takes 1 to %d", name, n,
             CB_KERNEL_NAME_MAX);
    return buf;
  }
  for (size_t i = 0; i < n; i++)
    if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
          name[i] == '-')) {
      snprintf(buf, len, "kernel name '%s': a name takes only a-z, 0-9 and '-'", name);
      return buf;
    }
  if (name[0] >= '0' && name[0] <= '9') {
    snprintf(buf, len, "kernel name '%s' starts with a digit: -k would take it for an id", name);
    return buf;
  }
  return NULL;
}

static int by_id(const void *a, const void *b) {
  const cb_kernel *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

/* Our rows of collective c, with their catalogue ids, into rows[] (room for
 * every registration); returns how many, or -1 with why set. */
static int collect_ours(const char *c, const cb_kernel_entry *const *all, size_t n, cb_kernel *rows,
                        char *why, size_t len) {
  int k = 0;
  for (size_t i = 0; i < n; i++) {
    if (strcmp(all[i]->collective, c) != 0) continue;
    const cb_kernel *row = all[i]->row;
    const cb_catalogue_entry *kind = cb_catalogue_find(row->name);
    if (!kind) {
      snprintf(why, len,
               "%s's kernel '%s' names no kind of the catalogue (common/coll/catalogue.c)", c,
               row->name);
      return -1;
    }
    for (int j = 0; j < k; j++)
      if (rows[j].id == kind->id) {
        snprintf(why, len, "%s has two kernels named '%s'", c, row->name);
        return -1;
      }
    rows[k] = *row;
    rows[k++].id = kind->id;
  }
  qsort(rows, (size_t)k, sizeof *rows, by_id);
  return k;
}

const char *cb_collective_collect(const cb_coll_shape *shape, const cb_kernel *const *extra,
                                  int nextra, cb_collective *out, char *why, size_t len) {
  size_t n;
  const cb_kernel_entry *const *all = cb_registry_kernels(&n);
  return cb_collective_collect_from(shape, all, n, extra, nextra, out, why, len);
}

const char *cb_collective_collect_from(const cb_coll_shape *shape,
                                       const cb_kernel_entry *const *all, size_t n,
                                       const cb_kernel *const *extra, int nextra,
                                       cb_collective *out, char *why, size_t len) {
  memset(out, 0, sizeof *out);
  /* One block: the table's pointers, then the rows they point to. */
  const size_t room = n + (size_t)nextra + 1;
  const cb_kernel **table = malloc(room * (sizeof *table + sizeof(cb_kernel)));
  if (!table) cb_fatal("out of host memory");
  cb_kernel *rows = (cb_kernel *)(table + room);
  int k = collect_ours(shape->name, all, n, rows, why, len);
  for (int i = 0; k >= 0 && i < k; i++)
    if (cb_kernel_name_check(rows[i].name, why, len)) k = -1;
  if (k < 0) {
    free(table);
    return why;
  }
  for (int i = 0; i < nextra; i++) rows[k++] = *extra[i];
  for (int i = 0; i < k; i++) table[i] = &rows[i];
  *out = (cb_collective){.shape = shape, .kernels = table, .nkernels = k};
  return NULL;
}

void cb_collective_free(cb_collective *c) {
  free((void *)c->kernels);
  memset(c, 0, sizeof *c);
}
