#include "kernel_menu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "option_parse.h" /* cb_kernel_spec_check, cb_kernel_word */

/* A number names a kernel by id, anything else by name, in any case (options.md). */
static int find_kernel(const cb_kernel_menu *m, const char *word) {
  char *end;
  long id = strtol(word, &end, 10);
  int numeric = *word && *end == '\0';
  for (int i = 0; i < m->nkernels; i++) {
    cb_kernel_key k = m->key(m->table, i);
    if (numeric ? k.id == id : strcasecmp(k.name, word) == 0) return i;
  }
  return -1;
}

int cb_kernel_menu_select(const cb_kernel_menu *m, const char *spec, int *selected,
                          int *explicit_pick, char *err, size_t err_len) {
  memset(selected, 0, sizeof *selected * (size_t)m->nkernels);
  if (cb_kernel_spec_check(spec, err, err_len)) return -1;
  *explicit_pick = strcasecmp(spec, "all") != 0;
  if (!*explicit_pick) {
    for (int i = 0; i < m->nkernels; i++) selected[i] = 1;
    return 0;
  }
  char word[CB_KERNEL_WORD_MAX];
  size_t len;
  for (const char *p = spec; p;) {
    p = cb_kernel_word(p, word, &len); /* every word fits: cb_kernel_spec_check */
    int k = find_kernel(m, word);
    if (k < 0) {
      snprintf(err, err_len, "unknown kernel '%s' for %s (-k list shows the kernels)", word,
               m->program);
      return -1;
    }
    if (selected[k]) { /* -k ll,ll or -k 2,ll: a kernel runs once */
      cb_kernel_key key = m->key(m->table, k);
      snprintf(err, err_len, "bad -k '%s': kernel %d (%s) is named twice", spec, key.id, key.name);
      return -1;
    }
    selected[k] = 1;
  }
  return 0;
}

void cb_kernel_list_heading(FILE *out, const char *program) {
  fprintf(out, "# kernels of %s (-k takes an id, a name, a comma list, or all)\n", program);
}

int cb_kernel_menu_name_width(const cb_kernel_menu *m) {
  int width = CB_KERNEL_LIST_NAME_WIDTH;
  for (int i = 0; i < m->nkernels; i++) {
    int n = (int)strlen(m->key(m->table, i).name);
    if (n > width) width = n;
  }
  return width;
}

void cb_kernel_list_entry(FILE *out, int width, int id, const char *name, const char *summary,
                          const char *why) {
  if (why)
    fprintf(out, "  %2d  %-*s %s  [unavailable: %s]\n", id, width, name, summary, why);
  else
    fprintf(out, "  %2d  %-*s %s\n", id, width, name, summary);
}
