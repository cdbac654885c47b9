/* copy_perf's --overlap in its report: the header line, the line under a
 * row, the JSON keys and the CSV columns of a bandwidth measurement beside a
 * load (copy_overlap.h). Kept apart from the sinks, which each call them at
 * one place. */
#ifndef CB_COPY_REPORT_OVERLAP_H
#define CB_COPY_REPORT_OVERLAP_H

#include <stdio.h>

#include "copy_report.h"
#include "json_writer.h"
#include "load_report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "# Overlap: ..." naming the load; nothing without --overlap. */
void cb_copy_text_overlap_header(FILE *out, const cb_copy_report *r);
/* Under a row, with --overlap: "#   beside gemm: bandwidth ...". */
void cb_copy_text_overlap(FILE *out, const cb_copy_report *r, const cb_copy_row *row);

/* A measurement's "overlap" object: the bandwidth measurement's (m is
 * CB_COPY_BW) with --overlap, nothing else. */
void cb_copy_json_overlap(cb_json *j, const cb_copy_report *r, const cb_copy_row *row, int m);

/* The CSV columns after the row's own (the header's tail, after a comma),
 * and a row's end: ",<those columns>\n" (empty but for the bandwidth
 * measurement of a row measured with --overlap). */
#define CB_COPY_CSV_OVERLAP_HEADER "," CB_CSV_OVERLAP_HEADER
void cb_copy_csv_row_end(FILE *out, const cb_copy_report *r, const cb_copy_row *row, int m);

#ifdef __cplusplus
}
#endif

#endif
