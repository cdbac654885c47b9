/* copy_perf's kernel table: -k selection, direction reasons, -k list. No
 * CUDA call is made here (tested on machines without a GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"

static int find_kernel(const cb_copy_program *p, const char *word) {
  char *end;
  long id = strtol(word, &end, 10);
  int numeric = *word && *end == '\0';
  for (int i = 0; i < p->nkernels; i++)
    if (numeric ? p->kernels[i].id == id : strcmp(p->kernels[i].name, word) == 0) return i;
  return -1;
}

int cb_copy_kernels_select(const cb_copy_program *p, const char *spec, int *selected,
                           int *explicit_pick, char *err, size_t err_len) {
  memset(selected, 0, sizeof *selected * (size_t)p->nkernels);
  *explicit_pick = strcmp(spec, "all") != 0;
  if (!*explicit_pick) {
    for (int i = 0; i < p->nkernels; i++) selected[i] = 1;
    return 0;
  }
  const char *s = spec;
  for (;;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    char word[64];
    if (len == 0 || len >= sizeof word) {
      snprintf(err, err_len, "bad -k '%s': expected kernel ids or names, a comma list, all or list",
               spec);
      return -1;
    }
    memcpy(word, s, len);
    word[len] = '\0';
    int k = find_kernel(p, word);
    if (k < 0) {
      snprintf(err, err_len, "unknown kernel '%s' for copy_perf (-k list shows the kernels)", word);
      return -1;
    }
    selected[k] = 1;
    if (!comma) return 0;
    s = comma + 1;
  }
}

const char *cb_copy_kernel_dir_reason(const cb_copy_kernel *k, cb_copy_dir d, int pageable) {
  if (!(k->dirs & CB_DIR_BIT(d))) return k->other_dirs ? k->other_dirs : "direction not served";
  if (pageable && d != CB_D2D && k->needs_pinned)
    return "the GPU addresses the host buffer: needs pinned, mapped memory (--pageable given)";
  return NULL;
}

void cb_copy_kernels_print(FILE *out, const cb_copy_program *p) {
  fprintf(out, "# kernels of copy_perf (-k takes an id, a name, a comma list, or all)\n");
  for (int i = 0; i < p->nkernels; i++) {
    const cb_copy_kernel *k = &p->kernels[i];
    const char *why = k->unavailable ? k->unavailable() : NULL;
    if (why)
      fprintf(out, "  %2d  %-8s %s  [unavailable: %s]\n", k->id, k->name, k->summary, why);
    else
      fprintf(out, "  %2d  %-8s %s\n", k->id, k->name, k->summary);
    fprintf(out, "      directions:");
    for (int d = 0; d < CB_NUM_DIRS; d++)
      if (k->dirs & CB_DIR_BIT(d)) fprintf(out, " %s", cb_copy_dir_name((cb_copy_dir)d));
    if (k->needs_pinned) fprintf(out, "; pinned host memory only");
    if (k->dirs != CB_ALL_DIRS && k->other_dirs)
      fprintf(out, "; not the others: %s", k->other_dirs);
    fputc('\n', out);
  }
}
