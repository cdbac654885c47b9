/* Pieces of nccl-tests' text table that every program's table shares (the
 * collectives' report_text.c, copy_perf's copy_report_text.c). */
#ifndef CB_TEXT_PIECES_H
#define CB_TEXT_PIECES_H

#include <stdio.h>

#include "device_info.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_VERSION "0.1.0"
/* The nccl-tests whose options and output collbench follows: the version its
 * header's first line and its JSON's nccl-tests fields are those of. */
#define CB_NCCL_TESTS_VERSION "2.19.6"

/* A mutant build's warning line (-DCOLLBENCH_MUTATE: tests/gpu/mutation.sh);
 * nothing in any other build. */
void cb_text_mutant(FILE *out);

/* nccl-tests' number format: %.2f, then fewer decimals, then %e to fit width. */
void cb_format_fixed(double v, int width, char *buf);

/* "# Using devices" and one line per rank: */
void cb_text_devices(FILE *out, const cb_device_info *devices, int n);
/* A kernel that cannot run at all, in the header. */
void cb_text_kernel_skipped(FILE *out, int id, const char *name, const char *why);
/* nccl-tests' "Out of bounds values" line. */
void cb_text_wrong_total(FILE *out, long long wrong);
/* One cell of the fastest-kernel summary: the kernel's name (name_width
 * wide, at least CB_SUMMARY_NAME_WIDTH), its value (8 wide) and, with a
 * reference kernel, ref_us / time_us as "N.NNx" ("-" without one); name NULL
 * (nothing ran) prints dashes. */
void cb_text_fastest_cell(FILE *out, int name_width, const char *name, double value, double time_us,
                          int has_ref, double ref_us);

#ifdef __cplusplus
}
#endif

#endif
