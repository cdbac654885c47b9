#include "rows.h"

#include <stdlib.h>

#include "error.h"

void *cb_rows_reserve(void *rows, size_t *cap, size_t nrows, size_t row_size) {
  if (nrows < *cap) return rows;
  size_t more = *cap ? 2 * *cap : 64;
  rows = realloc(rows, more * row_size);
  if (!rows) cb_fatal("out of host memory for results");
  *cap = more;
  return rows;
}
