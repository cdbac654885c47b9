/* Reading the reference nccl-tests outputs of tests/fixtures: the header's
 * run parameters and every data row, as numbers and as the printed words. */
#ifndef CB_TEST_FIXTURE_H
#define CB_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_shape.h"
#include "collectives.h"

#define FX_MAX_LINES 128
#define FX_MAX_ROWS  64
#define FX_LINE      512

/* Word indexes of a data row after size count type redop root. */
enum {
  FX_OOP_TIME,
  FX_OOP_ALGBW,
  FX_OOP_BUSBW,
  FX_OOP_WRONG,
  FX_IP_TIME,
  FX_IP_ALGBW,
  FX_IP_BUSBW,
  FX_IP_WRONG,
  FX_NFIELDS
};

typedef struct {
  int line_no;        /* 1-based line of the file */
  const char *line;   /* the whole line, without newline */
  size_t size, count; /* the size (B) and count (elements) columns */
  char type[16], redop[16];
  int root;
  char f[FX_NFIELDS][16]; /* the printed words of the two placements */
} fx_row;

typedef struct {
  char path[512];
  char program[64];    /* "all_gather_perf" */
  char collective[64]; /* "all_gather" */
  /* "# nThread ..." line */
  int nthread, ngpus, warmup, iters, agg, validation, graph;
  unsigned long long min_bytes, max_bytes, step;
  char step_kind[16]; /* "factor" or "bytes" */
  int nranks;         /* from the "#  Rank" lines */
  int nlines;
  char lines[FX_MAX_LINES][FX_LINE];
  int nrows;
  fx_row rows[FX_MAX_ROWS];
} fx_file;

/* Loads and parses path; 0 on success, -1 (with a message) on anything odd. */
static inline int fx_load(const char *path, fx_file *fx) {
  memset(fx, 0, sizeof *fx);
  snprintf(fx->path, sizeof fx->path, "%s", path);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot open fixture %s\n", path);
    return -1;
  }
  char buf[FX_LINE];
  int header_ok = 0;
  while (fgets(buf, sizeof buf, f)) {
    if (fx->nlines == FX_MAX_LINES) {
      fprintf(stderr, "%s: more than %d lines\n", path, FX_MAX_LINES);
      fclose(f);
      return -1;
    }
    buf[strcspn(buf, "\n")] = '\0';
    char *line = fx->lines[fx->nlines++];
    snprintf(line, FX_LINE, "%s", buf);
    if (sscanf(line, "# Collective test starting: %63s", fx->program) == 1) {
      snprintf(fx->collective, sizeof fx->collective, "%s", fx->program);
      char *suffix = strstr(fx->collective, "_perf");
      if (suffix) *suffix = '\0';
    } else if (strncmp(line, "# nThread", 9) == 0) {
      header_ok =
          sscanf(line,
                 "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%15[a-z]) "
                 "warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d",
                 &fx->nthread, &fx->ngpus, &fx->min_bytes, &fx->max_bytes, &fx->step, fx->step_kind,
                 &fx->warmup, &fx->iters, &fx->agg, &fx->validation, &fx->graph) == 11;
    } else if (strncmp(line, "#  Rank", 7) == 0) {
      fx->nranks++;
    } else if (line[0] != '#' && line[0] != '\0') {
      if (fx->nrows == FX_MAX_ROWS) {
        fprintf(stderr, "%s: more than %d rows\n", path, FX_MAX_ROWS);
        fclose(f);
        return -1;
      }
      fx_row *r = &fx->rows[fx->nrows];
      r->line_no = fx->nlines;
      r->line = line;
      int n = sscanf(line, "%zu %zu %15s %15s %d %15s %15s %15s %15s %15s %15s %15s %15s", &r->size,
                     &r->count, r->type, r->redop, &r->root, r->f[0], r->f[1], r->f[2], r->f[3],
                     r->f[4], r->f[5], r->f[6], r->f[7]);
      if (n != 13) {
        fprintf(stderr, "%s:%d: cannot read the data row '%s'\n", path, fx->nlines, line);
        fclose(f);
        return -1;
      }
      fx->nrows++;
    }
  }
  fclose(f);
  if (!header_ok || !fx->collective[0] || fx->nrows == 0 || fx->nranks == 0) {
    fprintf(stderr, "%s: not an nccl-tests output (header %d, program '%s', %d rows)\n", path,
            header_ok, fx->collective, fx->nrows);
    return -1;
  }
  return 0;
}

/* Our shape of a collective by its nccl-tests name, or NULL. */
static inline const cb_coll_shape *fx_shape(const char *collective) {
  static const cb_coll_shape *const shapes[] = {
      &cb_shape_all_reduce, &cb_shape_all_gather, &cb_shape_reduce_scatter, &cb_shape_alltoall,
      &cb_shape_sendrecv,   &cb_shape_broadcast,  &cb_shape_reduce,         &cb_shape_gather,
      &cb_shape_scatter,    &cb_shape_alltoallv,  &cb_shape_hypercube,
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    if (strcmp(shapes[i]->name, collective) == 0) return shapes[i];
  return NULL;
}

/* Base name of a path, for messages. */
static inline const char *fx_base(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

#endif
