/* A small streaming JSON writer: it tracks nesting and commas, escapes
 * strings, and writes non-finite numbers as null, so the output always parses. */
#ifndef CB_JSON_WRITER_H
#define CB_JSON_WRITER_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CB_JSON_DEPTH 16

typedef struct {
  FILE *out;
  int depth;
  int count[CB_JSON_DEPTH]; /* items written at each level, for commas */
  int pending_key;          /* a key was written: its value needs no comma */
} cb_json;

void cb_json_init(cb_json *j, FILE *out);
void cb_json_begin_object(cb_json *j);
void cb_json_end_object(cb_json *j);
void cb_json_begin_array(cb_json *j);
void cb_json_end_array(cb_json *j);
void cb_json_key(cb_json *j, const char *key); /* the next value belongs to it */
void cb_json_string(cb_json *j, const char *s);
void cb_json_int(cb_json *j, long long v);
void cb_json_double(cb_json *j, double v);
void cb_json_bool(cb_json *j, int v);
void cb_json_null(cb_json *j);

/* One "key": number of a run of them, for writing the run from a table. */
typedef struct {
  const char *key;
  double value;
} cb_json_number;
/* Each of the n numbers, as cb_json_key and cb_json_double write them. */
void cb_json_numbers(cb_json *j, const cb_json_number *v, int n);

#ifdef __cplusplus
}
#endif

#endif
