/* A measurement beside a load (load_window.h's cb_overlap_result) in the
 * JSON and CSV files: the keys and columns the collective programs and
 * copy_perf write alike (docs/output.md). */
#ifndef CB_LOAD_REPORT_H
#define CB_LOAD_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "json_writer.h"
#include "load_window.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "overlap": {load, time_us, call_slowdown, load_alone, load_beside,
 * load_slowdown, load_rate_unit, load_units_inside, why} of a measurement
 * whose own time (without the load) is time_alone_us; {load, skipped} when
 * it was not measured beside the load. Nothing for --overlap none. */
void cb_json_overlap(cb_json *j, int kind, const cb_overlap_result *o, double time_alone_us);

/* "overlap" (the load's name, none without one) and "overlap_size" (null
 * without one), among a document's options. */
void cb_json_overlap_options(cb_json *j, int kind, uint64_t size);

/* "# Overlap: --overlap KIND: <the load>, on a stream of its own beside
 * <beside>; under each row <rows>" (nothing for CB_LOAD_NONE). */
void cb_text_overlap_header(FILE *out, int kind, uint64_t size, const char *beside,
                            const char *rows);

/* The load's part of a row's "beside" line, the same in every program:
 * ", load R UNIT alone", then ", R beside xS (N units inside)" or ", beside
 * not measured: <why>". */
void cb_text_overlap_load(FILE *out, int kind, const cb_overlap_result *v);

/* The CSV columns, after a comma that the row's earlier columns end with:
 * empty for --overlap none and for a measurement that did not run. The last
 * column ends the row (no comma after it). */
#define CB_CSV_OVERLAP_HEADER                                                                      \
  "overlap_load,overlap_time_us,call_slowdown,load_alone,load_beside,load_slowdown,"               \
  "load_rate_unit,overlap_note"
void cb_csv_overlap(FILE *out, int kind, const cb_overlap_result *o, int ran, double time_alone_us);

#ifdef __cplusplus
}
#endif

#endif
