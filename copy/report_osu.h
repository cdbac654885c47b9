/* OSU micro-benchmarks' text layout (osu_bw, osu_latency), for copy_perf's
 * --osu: OSU parsers and plots read it unchanged. Bandwidth in MB/s with
 * MB = 10^6 bytes, as osu_bw. Widths as OSU 5.x/7.x print them:
 *   # Size      Bandwidth (MB/s)
 *   1024                 1878.35 */
#ifndef CB_REPORT_OSU_H
#define CB_REPORT_OSU_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CB_OSU_SIZE_WIDTH  10
#define CB_OSU_FIELD_WIDTH 18

/* "# <title>" then the column line. */
void cb_osu_bw_header(FILE *out, const char *title);
void cb_osu_bw_row(FILE *out, size_t size, double mb_per_s);
void cb_osu_latency_header(FILE *out, const char *title);
void cb_osu_latency_row(FILE *out, size_t size, double us);

#ifdef __cplusplus
}
#endif

#endif
