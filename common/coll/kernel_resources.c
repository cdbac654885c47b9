#include "kernel_resources.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "csv_writer.h"
#include "cuda_check.h"

cb_grid_use *cb_res_grid(cb_kernel_resources *r, const char *role, const void *func,
                         unsigned blocks, unsigned threads, size_t dynamic_smem) {
  if (r->ngrids == CB_RES_MAX_GRIDS) {
    cb_res_note(r, "more than %d grids: the first %d shown", CB_RES_MAX_GRIDS, CB_RES_MAX_GRIDS);
    return NULL;
  }
  cb_grid_use *g = &r->grids[r->ngrids++];
  memset(g, 0, sizeof *g);
  g->role = role;
  g->func = func;
  g->blocks = blocks;
  g->threads = threads;
  g->dynamic_smem = dynamic_smem;
  g->launches = 1;
  return g;
}

void cb_res_note(cb_kernel_resources *r, const char *fmt, ...) {
  size_t used = strlen(r->note);
  if (used && used + 2 < sizeof r->note) {
    memcpy(r->note + used, "; ", 3);
    used += 2;
  }
  if (used + 1 >= sizeof r->note) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->note + used, sizeof r->note - used, fmt, ap);
  va_end(ap);
}

void cb_res_sms_at_once(cb_kernel_resources *r, int gpu_sms) {
  int in_order = 0, beside = 0;
  r->gpu_sms = gpu_sms;
  for (int i = 0; i < r->ngrids; i++) {
    cb_grid_use *g = &r->grids[i];
    g->sms = (int)g->blocks < gpu_sms ? (int)g->blocks : gpu_sms;
    if (g->beside)
      beside += g->sms;
    else if (g->sms > in_order)
      in_order = g->sms;
  }
  int all = in_order + beside;
  r->sms_at_once = all < gpu_sms ? all : gpu_sms;
}

void cb_resources_measure(cb_kernel_resources *r, int device) {
  int sms = 0;
  CB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  for (int i = 0; i < r->ngrids; i++) {
    cb_grid_use *g = &r->grids[i];
    if (!g->func) continue;
    struct cudaFuncAttributes a;
    CB_CUDA(cudaFuncGetAttributes(&a, g->func));
    g->regs = a.numRegs;
    g->static_smem = a.sharedSizeBytes;
    CB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->per_sm, g->func, (int)g->threads,
                                                          g->dynamic_smem));
  }
  cb_res_sms_at_once(r, sms);
}

/* snprintf at *at within buf (len), advancing *at; stops quietly when full. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...) {
  if (*at + 1 >= len) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *at, len - *at, fmt, ap);
  va_end(ap);
  if (n > 0) *at = *at + (size_t)n < len ? *at + (size_t)n : len - 1;
}

static void put_grid(char *buf, size_t len, size_t *at, const cb_grid_use *g, int detail) {
  put(buf, len, at, "%s %ux%u", g->role, g->blocks, g->threads);
  if (g->launches > 1) put(buf, len, at, " x%d", g->launches);
  if (g->beside) put(buf, len, at, " beside");
  if (!detail) return;
  if (g->func)
    put(buf, len, at, " (%d regs, %zu+%zu B shared, %d/SM, %d SM%s)", g->regs, g->static_smem,
        g->dynamic_smem, g->per_sm, g->sms, g->sms == 1 ? "" : "s");
  else
    put(buf, len, at, " (%d SM%s)", g->sms, g->sms == 1 ? "" : "s");
}

void cb_resources_format(const cb_kernel_resources *r, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  if (!r->reported) {
    put(buf, len, &at, "not reported%s%s%s", r->note[0] ? " (" : "", r->note,
        r->note[0] ? ")" : "");
    return;
  }
  put(buf, len, &at, "%d of %d SMs at once", r->sms_at_once, r->gpu_sms);
  for (int i = 0; i < r->ngrids; i++) {
    put(buf, len, &at, i ? ", " : ": ");
    put_grid(buf, len, &at, &r->grids[i], 1);
  }
  if (r->ngrids == 0) put(buf, len, &at, ": no grid");
  if (r->side_streams)
    put(buf, len, &at, "; %d side stream%s", r->side_streams, r->side_streams == 1 ? "" : "s");
  if (r->copies)
    put(buf, len, &at, "; %d cop%s on %d stream%s", r->copies, r->copies == 1 ? "y" : "ies",
        r->copy_streams, r->copy_streams == 1 ? "" : "s");
  if (r->note[0]) put(buf, len, &at, "; %s", r->note);
}

void cb_resources_grids_text(const cb_kernel_resources *r, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (int i = 0; i < r->ngrids; i++) {
    if (i) put(buf, len, &at, ";");
    put_grid(buf, len, &at, &r->grids[i], 0);
  }
}

int cb_resources_max_regs(const cb_kernel_resources *r) {
  int most = 0;
  for (int i = 0; i < r->ngrids; i++)
    if (r->grids[i].func && r->grids[i].regs > most) most = r->grids[i].regs;
  return most;
}

size_t cb_resources_max_smem(const cb_kernel_resources *r) {
  size_t most = 0;
  for (int i = 0; i < r->ngrids; i++) {
    size_t s = r->grids[i].dynamic_smem + (r->grids[i].func ? r->grids[i].static_smem : 0);
    if (s > most) most = s;
  }
  return most;
}

static void json_grid(cb_json *j, const cb_grid_use *g) {
  cb_json_begin_object(j);
  cb_json_key(j, "role"), cb_json_string(j, g->role);
  cb_json_key(j, "blocks"), cb_json_int(j, g->blocks);
  cb_json_key(j, "threads"), cb_json_int(j, g->threads);
  cb_json_key(j, "registers");
  if (g->func)
    cb_json_int(j, g->regs);
  else
    cb_json_null(j);
  cb_json_key(j, "static_smem");
  if (g->func)
    cb_json_int(j, (long long)g->static_smem);
  else
    cb_json_null(j);
  cb_json_key(j, "dynamic_smem"), cb_json_int(j, (long long)g->dynamic_smem);
  cb_json_key(j, "blocks_per_sm");
  if (g->func)
    cb_json_int(j, g->per_sm);
  else
    cb_json_null(j);
  cb_json_key(j, "sms"), cb_json_int(j, g->sms);
  cb_json_key(j, "launches"), cb_json_int(j, g->launches > 1 ? g->launches : 1);
  cb_json_key(j, "beside"), cb_json_bool(j, g->beside);
  cb_json_end_object(j);
}

void cb_json_resources(cb_json *j, const cb_kernel_resources *r) {
  cb_json_key(j, "resources");
  cb_json_begin_object(j);
  cb_json_key(j, "reported"), cb_json_bool(j, r->reported);
  if (r->reported) {
    cb_json_key(j, "sms_at_once"), cb_json_int(j, r->sms_at_once);
    cb_json_key(j, "gpu_sms"), cb_json_int(j, r->gpu_sms);
    cb_json_key(j, "grids");
    cb_json_begin_array(j);
    for (int i = 0; i < r->ngrids; i++) json_grid(j, &r->grids[i]);
    cb_json_end_array(j);
    cb_json_key(j, "side_streams"), cb_json_int(j, r->side_streams);
    cb_json_key(j, "copies"), cb_json_int(j, r->copies);
    cb_json_key(j, "copy_streams"), cb_json_int(j, r->copy_streams);
  }
  cb_json_key(j, "note");
  if (r->note[0])
    cb_json_string(j, r->note);
  else
    cb_json_null(j);
  cb_json_end_object(j);
}

void cb_csv_resources(FILE *out, const cb_kernel_resources *r) {
  if (!r) {
    fputs(",,,,,,,,,", out);
    return;
  }
  if (!r->reported) {
    fputs(",,,,,,,,", out);
  } else {
    char grids[256];
    cb_resources_grids_text(r, grids, sizeof grids);
    cb_csv_string(out, grids);
    fprintf(out, ",%d,%zu,%d,%d,%d,%d,%d,", cb_resources_max_regs(r), cb_resources_max_smem(r),
            r->sms_at_once, r->gpu_sms, r->side_streams, r->copies, r->copy_streams);
  }
  cb_csv_string(out, r->note);
  fputc(',', out);
}
