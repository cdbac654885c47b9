/* Growing arrays of result rows, shared by both reports. */
#ifndef CB_ROWS_H
#define CB_ROWS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for one more row in an array of nrows rows of row_size bytes (*cap
 * allocated): doubles it, from 64, when full, and returns it, moved or not;
 * stops the program when host memory runs out. Both reports' rows grow so. */
void *cb_rows_reserve(void *rows, size_t *cap, size_t nrows, size_t row_size);

#ifdef __cplusplus
}
#endif

#endif
