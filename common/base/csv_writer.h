/* CSV fields, RFC 4180 quoting: the pieces both CSV sinks (report_csv.c and
 * copy_report_csv.c) write their rows with. */
#ifndef CB_CSV_WRITER_H
#define CB_CSV_WRITER_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A field, quoted only when it holds a comma, quote or newline. */
void cb_csv_string(FILE *out, const char *s);
/* A number and its comma; empty when not finite, as JSON writes null. */
void cb_csv_number(FILE *out, double v);
/* A count and its comma; empty when negative (not counted: a measurement
 * that was not checked has no #wrong). */
void cb_csv_count(FILE *out, long long v);

#ifdef __cplusplus
}
#endif

#endif
