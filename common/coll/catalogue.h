/* The kernel catalogue: one id and one name per kind of kernel, the same in
 * every collective program (docs/kernels.md is its text; a unit test holds
 * the two together). A kernel row takes its id and name from here with
 * CB_KERNEL(RING), never by hand, so an id cannot mean two things; and
 * cb_main refuses to start a program whose table disagrees. A program lists
 * only the ids it has. copy_perf is not a collective: it keeps its own. */
#ifndef CB_CATALOGUE_H
#define CB_CATALOGUE_H

#ifdef __cplusplus
extern "C" {
#endif

#define CB_KID_NCCL          0
#define CB_KNAME_NCCL        "nccl"
#define CB_KID_RING          1
#define CB_KNAME_RING        "ring"
#define CB_KID_LL            2
#define CB_KNAME_LL          "ll"
#define CB_KID_LL2           3
#define CB_KNAME_LL2         "ll2"
#define CB_KID_DIRECT        4
#define CB_KNAME_DIRECT      "direct"
#define CB_KID_CE            5
#define CB_KNAME_CE          "ce"
#define CB_KID_NCCL_SYM      6
#define CB_KNAME_NCCL_SYM    "nccl-sym"
#define CB_KID_NCCL_CE       7
#define CB_KNAME_NCCL_CE     "nccl-ce"
#define CB_KID_HIER_RING     8
#define CB_KNAME_HIER_RING   "hier-ring"
#define CB_KID_HIER_LL       9
#define CB_KNAME_HIER_LL     "hier-ll"
#define CB_KID_HIER_DIRECT   10
#define CB_KNAME_HIER_DIRECT "hier-direct"
#define CB_KID_HIER_CE       11
#define CB_KNAME_HIER_CE     "hier-ce"
#define CB_NUM_KIDS          12

/* .id and .name of a kernel row: CB_KERNEL(DIRECT). */
#define CB_KERNEL(kind) .id = CB_KID_##kind, .name = CB_KNAME_##kind

typedef struct {
  int id;
  const char *name;
  const char *what; /* one line, as docs/kernels.md says it */
} cb_catalogue_entry;

extern const cb_catalogue_entry cb_catalogue[CB_NUM_KIDS];

/* NULL when (id, name) is a catalogue entry; else what is wrong (buf). */
const char *cb_catalogue_check(int id, const char *name, char *buf, unsigned long len);

/* 1 for NCCL's own variants (nccl, nccl-sym, nccl-ce): the references the
 * summary's "vs nccl" is taken against (the fastest of them that ran). */
int cb_catalogue_is_nccl(int id);

#ifdef __cplusplus
}
#endif

#endif
