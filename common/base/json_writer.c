#include "json_writer.h"

#include <math.h>
#include <string.h>

#include "error.h"

void cb_json_init(cb_json *j, FILE *out) {
  j->out = out;
  j->depth = 0;
  j->count[0] = 0;
  j->pending_key = 0;
}

/* Before a value: a comma unless first at its level (a key already wrote it). */
static void before_value(cb_json *j) {
  if (j->pending_key) {
    j->pending_key = 0;
    return;
  }
  if (j->count[j->depth]++ > 0) fputc(',', j->out);
}

static void push(cb_json *j, char c) {
  before_value(j);
  fputc(c, j->out);
  if (++j->depth >= CB_JSON_DEPTH) cb_fatal("JSON nesting deeper than %d", CB_JSON_DEPTH);
  j->count[j->depth] = 0;
}

static void pop(cb_json *j, char c) {
  j->depth--;
  fputc(c, j->out);
  if (j->depth == 0) fputc('\n', j->out);
}

void cb_json_begin_object(cb_json *j) {
  push(j, '{');
}
void cb_json_end_object(cb_json *j) {
  pop(j, '}');
}
void cb_json_begin_array(cb_json *j) {
  push(j, '[');
}
void cb_json_end_array(cb_json *j) {
  pop(j, ']');
}

/* The characters JSON escapes by name, and their escapes; any other control
 * character is written as \u00XX. */
static const char named[] = "\"\\\n\t\r";
static const char *const named_escapes[] = {"\\\"", "\\\\", "\\n", "\\t", "\\r"};

static void write_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    const char *hit = strchr(named, *p);
    if (hit)
      fputs(named_escapes[hit - named], out);
    else if (*p < 0x20)
      fprintf(out, "\\u%04x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

void cb_json_key(cb_json *j, const char *key) {
  before_value(j);
  write_string(j->out, key);
  fputc(':', j->out);
  j->pending_key = 1;
}

void cb_json_string(cb_json *j, const char *s) {
  before_value(j);
  write_string(j->out, s);
}

void cb_json_int(cb_json *j, long long v) {
  before_value(j);
  fprintf(j->out, "%lld", v);
}

void cb_json_double(cb_json *j, double v) {
  before_value(j);
  if (isfinite(v))
    fprintf(j->out, "%.10g", v);
  else
    fputs("null", j->out);
}

void cb_json_bool(cb_json *j, int v) {
  before_value(j);
  fputs(v ? "true" : "false", j->out);
}

void cb_json_null(cb_json *j) {
  before_value(j);
  fputs("null", j->out);
}

void cb_json_numbers(cb_json *j, const cb_json_number *v, int n) {
  for (int i = 0; i < n; i++) cb_json_key(j, v[i].key), cb_json_double(j, v[i].value);
}
