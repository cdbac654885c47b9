#define _POSIX_C_SOURCE 200809L /* access, unlink */
#include "sink.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

int cb_json_sink_write(FILE *out, const cb_json_sink *s, const void *report) {
  cb_json j;
  cb_json_init(&j, out);
  cb_json_begin_object(&j);
  s->keys(&j, report);
  cb_json_end_object(&j);
  return ferror(out) ? -1 : 0;
}

int cb_csv_sink_write(FILE *out, const cb_csv_sink *s, const void *report) {
  fprintf(out, "%s\n", s->header);
  s->rows(out, report);
  return ferror(out) ? -1 : 0;
}

/* flag ("-J", "--csv") names the file in messages. */
static void check_file(const char *path, const char *flag) {
  if (!path[0]) return;
  int existed = access(path, F_OK) == 0;
  FILE *f = fopen(path, "a");
  if (!f) cb_fatal("cannot write %s file '%s': %s", flag, path, strerror(errno));
  fclose(f);
  if (!existed) unlink(path);
}

void cb_sink_files_check(const char *json_path, const char *csv_path) {
  check_file(json_path, "-J");
  check_file(csv_path, "--csv");
}

static FILE *open_file(const char *path, const char *flag) {
  FILE *f = fopen(path, "w");
  if (!f) cb_fatal("cannot write %s file '%s': %s", flag, path, strerror(errno));
  return f;
}

static void close_file(FILE *f, int write_rc, const char *path, const char *flag) {
  if (write_rc != 0 || fclose(f) != 0) cb_fatal("writing %s file '%s' failed", flag, path);
}

void cb_sink_files_write(const cb_json_sink *json, const char *json_path, const cb_csv_sink *csv,
                         const char *csv_path, const void *report) {
  if (json_path[0]) {
    FILE *f = open_file(json_path, "-J");
    close_file(f, cb_json_sink_write(f, json, report), json_path, "-J");
  }
  if (csv_path[0]) {
    FILE *f = open_file(csv_path, "--csv");
    close_file(f, cb_csv_sink_write(f, csv, report), csv_path, "--csv");
  }
}
