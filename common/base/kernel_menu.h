/* -k for any program's kernel table (the collectives' cb_collective,
 * copy_perf's cb_copy_program): choosing kernels by id or name, and the
 * lines of -k list that every program prints alike. No CUDA here. */
#ifndef CB_KERNEL_MENU_H
#define CB_KERNEL_MENU_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The least widths names are padded to: -k list's, the summary's; both
 * pad to the longest name they show (CB_KERNEL_NAME_MAX, collbench/kernel.h,
 * bounds it). */
#define CB_KERNEL_LIST_NAME_WIDTH 11
#define CB_SUMMARY_NAME_WIDTH     8

/* One kernel as -k and the JSON documents' "kernels" see it. */
typedef struct {
  int id;
  const char *name;
  const char *summary;
} cb_kernel_key;

/* A kernel table, whatever the type of its entries. */
typedef struct {
  const char *program; /* names the program in messages: "all_reduce_perf" */
  const void *table;
  int nkernels;
  cb_kernel_key (*key)(const void *table, int i); /* entry i's id, name and summary */
} cb_kernel_menu;

/* Resolves -k ("all", or a comma list of ids and names) into selected[]
 * (nkernels entries, 1 = chosen); *explicit_pick is set unless it is "all".
 * Returns 0, or -1 with err set (a text of the wrong shape as
 * cb_kernel_spec_check refuses it, else the first unknown kernel). */
int cb_kernel_menu_select(const cb_kernel_menu *m, const char *spec, int *selected,
                          int *explicit_pick, char *err, size_t err_len);

/* The width -k list pads the menu's names to: CB_KERNEL_LIST_NAME_WIDTH, or
 * its longest name. */
int cb_kernel_menu_name_width(const cb_kernel_menu *m);

/* -k list: its first line, then one line per kernel, its name padded to
 * width (why: NULL, or why it is unavailable); each program adds what its
 * kernels can serve below. */
void cb_kernel_list_heading(FILE *out, const char *program);
void cb_kernel_list_entry(FILE *out, int width, int id, const char *name, const char *summary,
                          const char *why);

#ifdef __cplusplus
}
#endif

#endif
