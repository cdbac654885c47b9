/* The file sinks every program's report has: -J's JSON document and
 * --csv's rows (the collectives' report.h, copy_perf's copy_report.h).
 * A program says what its sinks write; the steps around them are the same
 * for every report and live here: the document's outer object, the CSV
 * header line, and the output files, checked before the run and written at
 * its end. report is the program's own report struct. */
#ifndef CB_SINK_H
#define CB_SINK_H

#include <stdio.h>

#include "json_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A JSON sink: the keys of its document's top-level object. */
typedef struct {
  void (*keys)(cb_json *j, const void *report);
} cb_json_sink;

/* A CSV sink: its header line (no newline) and its rows, a line each. */
typedef struct {
  const char *header;
  void (*rows)(FILE *out, const void *report);
} cb_csv_sink;

/* The whole document, or the whole CSV file, to out: 0, or -1 when
 * writing failed. */
int cb_json_sink_write(FILE *out, const cb_json_sink *s, const void *report);
int cb_csv_sink_write(FILE *out, const cb_csv_sink *s, const void *report);

/* The -J and --csv files (an empty path: none). Before any GPU work, check
 * refuses a path that cannot be written without truncating a file already
 * there: a run that fails later must not destroy earlier results. At the
 * end, write replaces each file with what its sink writes of the report; a
 * write that fails stops the program. */
void cb_sink_files_check(const char *json_path, const char *csv_path);
void cb_sink_files_write(const cb_json_sink *json, const char *json_path, const cb_csv_sink *csv,
                         const char *csv_path, const void *report);

#ifdef __cplusplus
}
#endif

#endif
