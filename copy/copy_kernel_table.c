/* copy_perf's kernel table: -k selection, direction reasons, -k list. No
 * CUDA call is made here (tested on machines without a GPU). */
#include <stdio.h>

#include "copy.h"

static cb_kernel_key kernel_key(const void *table, int i) {
  const cb_copy_kernel *k = &((const cb_copy_program *)table)->kernels[i];
  return (cb_kernel_key){k->id, k->name, k->summary};
}

cb_kernel_menu cb_copy_kernels_menu(const cb_copy_program *p) {
  return (cb_kernel_menu){"copy_perf", p, p->nkernels, kernel_key};
}

int cb_copy_kernels_select(const cb_copy_program *p, const char *spec, int *selected,
                           int *explicit_pick, char *err, size_t err_len) {
  const cb_kernel_menu m = cb_copy_kernels_menu(p);
  return cb_kernel_menu_select(&m, spec, selected, explicit_pick, err, err_len);
}

const char *cb_copy_kernel_dir_reason(const cb_copy_kernel *k, cb_copy_dir d, int pageable) {
  if (!(k->dirs & CB_DIR_BIT(d))) return k->other_dirs ? k->other_dirs : "direction not served";
  if (pageable && d != CB_D2D && k->needs_pinned)
    return "the GPU addresses the host buffer: needs pinned, mapped memory (--pageable given)";
  return NULL;
}

void cb_copy_kernels_print(FILE *out, const cb_copy_program *p) {
  cb_kernel_list_heading(out, "copy_perf");
  for (int i = 0; i < p->nkernels; i++) {
    const cb_copy_kernel *k = &p->kernels[i];
    cb_kernel_list_entry(out, CB_KERNEL_LIST_NAME_WIDTH, k->id, k->name, k->summary,
                         k->unavailable ? k->unavailable() : NULL);
    fprintf(out, "      directions:");
    for (int d = 0; d < CB_NUM_DIRS; d++)
      if (k->dirs & CB_DIR_BIT(d)) fprintf(out, " %s", cb_copy_dir_name((cb_copy_dir)d));
    if (k->needs_pinned) fprintf(out, "; pinned host memory only");
    if (k->dirs != CB_ALL_DIRS && k->other_dirs)
      fprintf(out, "; not the others: %s", k->other_dirs);
    fputc('\n', out);
  }
}
