/* The kernel catalogue: one id and one name per kind of kernel, the same in
 * every collective program. The catalogue is one table, catalogue.c, a line
 * per kind; a kernel row names its kind (`.name = "direct"`) and takes its id
 * from the table when the program collects its rows (registry.h), so an id
 * cannot mean two things, and a row whose name is not in the table stops the
 * program. A program lists only the kinds it has. Kernels brought by plugins
 * take the ids after the catalogue's. copy_perf is not a collective: it keeps
 * its own list. */
#ifndef CB_CATALOGUE_H
#define CB_CATALOGUE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel 0 is NCCL's own call in every program: -R and -x are its options. */
#define CB_KID_NCCL 0

/* Whose kind it is. */
typedef enum {
  CB_KIND_NCCL = 1, /* NCCL's own variants: the summary's "vs nccl" references */
  CB_KIND_OURS = 2, /* collbench's kernels */
} cb_kind_owner;

typedef struct {
  int id;
  const char *name;
  cb_kind_owner owner;
  const char *what; /* one line, for README.md and docs/kernels.md */
} cb_catalogue_entry;

/* The table: cb_catalogue_size entries, entry i of id i. */
extern const cb_catalogue_entry cb_catalogue[];
extern const int cb_catalogue_size;

/* The entry of that name, or NULL. */
const cb_catalogue_entry *cb_catalogue_find(const char *name);

/* NULL when (id, name) is a catalogue entry; else what is wrong (buf). */
const char *cb_catalogue_check(int id, const char *name, char *buf, unsigned long len);

/* 1 for NCCL's own variants (nccl, nccl-sym, nccl-ce): the references the
 * summary's "vs nccl" is taken against (the fastest of them that ran). */
int cb_catalogue_is_nccl(int id);

#ifdef __cplusplus
}
#endif

#endif
