/* The kernel tables of README.md and docs/kernels.md, written from the
 * registrations (registry.h) and the catalogue (catalogue.c), so that no
 * page keeps a copy by hand:
 *
 *     kernel_tables [--check] PROGRAMS FILE...
 *
 * PROGRAMS: the collectives, comma-separated, in the order of the README's
 * columns (CMakeLists.txt's CB_PROGRAMS). Each FILE holds blocks between
 * `<!-- kernel_tables: TABLE -->` and `<!-- kernel_tables: end -->`, TABLE
 * one of readme (the catalogue with a column per program), catalogue (id,
 * name, what) and programs (every kernel of every program, with what
 * docs/kernels.md says of it). Without --check the blocks are rewritten
 * (`make docs`); with it, the first block that is not what the
 * registrations say is named, and the exit status is 1. */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "registry.h"

#define MAX_PROGRAMS 32
#define MARK         "<!-- kernel_tables: "

static const char *programs[MAX_PROGRAMS];
static cb_collective tables[MAX_PROGRAMS];
static int nprograms;
static char *program_list; /* the words programs[] point into */

/* A growing text. */
typedef struct {
  char *s;
  size_t len, cap;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) exit(2);
    if (t->s && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    t->cap = (t->cap + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    if (!t->s) exit(2);
  }
}

/* What docs/kernels.md says of program p's row k: its registration's
 * about, else its summary. */
static const char *about_of(int p, const cb_kernel *k) {
  size_t n;
  const cb_kernel_entry *const *all = cb_registry_kernels(&n);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(all[i]->collective, programs[p]) && !strcmp(all[i]->row->name, k->name))
      return all[i]->about ? all[i]->about : k->summary;
  return k->summary;
}

static const cb_kernel *row_of(int p, int id) {
  for (int i = 0; i < tables[p].nkernels; i++)
    if (tables[p].kernels[i]->id == id) return tables[p].kernels[i];
  return NULL;
}

static void readme_table(text *t) {
  put(t, "| id | name | what |");
  for (int p = 0; p < nprograms; p++) put(t, " %s |", programs[p]);
  put(t, "\n| --- | --- | --- |");
  for (int p = 0; p < nprograms; p++) put(t, " --- |");
  put(t, "\n");
  for (int id = 0; id < cb_catalogue_size; id++) {
    put(t, "| %d | %s | %s |", id, cb_catalogue[id].name, cb_catalogue[id].what);
    for (int p = 0; p < nprograms; p++) {
      const cb_kernel *k = row_of(p, id);
      put(t, " %s |", !k ? "–" : k->unavailable ? "(✓)" : "✓");
    }
    put(t, "\n");
  }
}

static void catalogue_table(text *t) {
  put(t, "| id | name | what |\n| --- | --- | --- |\n");
  for (int id = 0; id < cb_catalogue_size; id++)
    put(t, "| %d | %s | %s |\n", id, cb_catalogue[id].name, cb_catalogue[id].what);
}

/* Whether kind id is in every program, said alike: one row for all. */
static int alike_everywhere(int id) {
  const cb_kernel *first = row_of(0, id);
  if (!first) return 0;
  for (int p = 1; p < nprograms; p++) {
    const cb_kernel *k = row_of(p, id);
    if (!k || strcmp(about_of(p, k), about_of(0, first)) != 0) return 0;
  }
  return 1;
}

static void programs_table(text *t) {
  put(t, "| program | id | name | what it is |\n| --- | --- | --- | --- |\n");
  for (int p = 0; p < nprograms; p++) {
    int first = 1;
    for (int i = 0; i < tables[p].nkernels; i++) {
      const cb_kernel *k = tables[p].kernels[i];
      if (nprograms > 1 && alike_everywhere(k->id)) continue;
      if (first)
        put(t, "| %s_perf |", programs[p]);
      else
        put(t, "| |");
      put(t, " %d | %s | %s |\n", k->id, k->name, about_of(p, k));
      first = 0;
    }
  }
  for (int id = 0; id < cb_catalogue_size && nprograms > 1; id++)
    if (alike_everywhere(id))
      put(t, "| every program | %d | %s | %s |\n", id, cb_catalogue[id].name,
          about_of(0, row_of(0, id)));
}

static int make_table(const char *name, text *t) {
  if (!strcmp(name, "readme"))
    readme_table(t);
  else if (!strcmp(name, "catalogue"))
    catalogue_table(t);
  else if (!strcmp(name, "programs"))
    programs_table(t);
  else
    return -1;
  return 0;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  text t = {0};
  char buf[4096];
  size_t n;
  put(&t, "%s", "");
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) put(&t, "%.*s", (int)n, buf);
  fclose(f);
  return t.s;
}

/* The file at path with its blocks made anew into *out; -1 with a message
 * on a block it cannot make. */
static int remake(const char *path, const char *old, text *out) {
  const char *p = old;
  for (const char *m; (m = strstr(p, MARK));) {
    const char *name = m + strlen(MARK), *name_end = strstr(name, " -->");
    const char *body = name_end ? strchr(name_end, '\n') : NULL;
    const char *end = body ? strstr(body, MARK "end -->") : NULL;
    if (!body || !end) {
      fprintf(stderr, "kernel_tables: %s: a block without its end\n", path);
      return -1;
    }
    char table[32];
    snprintf(table, sizeof table, "%.*s", (int)(name_end - name), name);
    put(out, "%.*s", (int)(body + 1 - p), p);
    if (!strcmp(table, "end") || make_table(table, out)) {
      fprintf(stderr, "kernel_tables: %s: no table '%s'\n", path, table);
      return -1;
    }
    p = end;
    const char *after = strchr(end, '\n');
    put(out, "%.*s", (int)((after ? after + 1 : end + strlen(end)) - end), end);
    p = after ? after + 1 : end + strlen(end);
  }
  put(out, "%s", p);
  return 0;
}

/* The first line where a and b differ (1-based). */
static int first_difference(const char *a, const char *b) {
  int line = 1;
  for (; *a && *a == *b; a++, b++)
    if (*a == '\n') line++;
  return line;
}

static int collect(const char *list) {
  char *save = NULL;
  program_list = strdup(list);
  if (!program_list) exit(2);
  for (char *w = strtok_r(program_list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
    const cb_coll_shape *shape = cb_registry_collective(w);
    char why[256];
    if (!shape || nprograms == MAX_PROGRAMS) {
      fprintf(stderr, "kernel_tables: no collective '%s' is registered\n", w);
      return -1;
    }
    if (cb_collective_collect(shape, NULL, 0, &tables[nprograms], why, sizeof why)) {
      fprintf(stderr, "kernel_tables: %s\n", why);
      return -1;
    }
    programs[nprograms++] = shape->name;
  }
  return 0;
}

static void release(void) {
  for (int p = 0; p < nprograms; p++) cb_collective_free(&tables[p]);
  free(program_list);
}

int main(int argc, char **argv) {
  int check = argc > 1 && !strcmp(argv[1], "--check");
  if (argc < 3 + check) {
    fprintf(stderr, "usage: kernel_tables [--check] PROGRAMS FILE...\n");
    return 2;
  }
  int rc = collect(argv[1 + check]) ? 2 : 0;
  for (int i = 2 + check; i < argc && rc != 2; i++) {
    char *old = slurp(argv[i]);
    text now = {0};
    put(&now, "%s", "");
    if (!old) fprintf(stderr, "kernel_tables: cannot read %s\n", argv[i]);
    if (!old || remake(argv[i], old, &now)) {
      rc = 2;
    } else if (strcmp(old, now.s) != 0 && check) {
      fprintf(stderr,
              "kernel_tables: %s:%d: a kernel table is not what the registrations say: `make "
              "docs` writes it\n",
              argv[i], first_difference(old, now.s));
      rc = 1;
    } else if (strcmp(old, now.s) != 0) {
      FILE *f = fopen(argv[i], "wb");
      int ok = f && fwrite(now.s, 1, now.len, f) == now.len;
      if (f && fclose(f) != 0) ok = 0;
      if (ok) printf("kernel_tables: wrote %s\n", argv[i]);
      if (!ok) fprintf(stderr, "kernel_tables: cannot write %s\n", argv[i]);
      if (!ok) rc = 2;
    }
    free(old);
    free(now.s);
  }
  release();
  return rc;
}
