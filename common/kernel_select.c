#include "collective.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sizes.h"

static int find_kernel(const cb_collective *c, const char *word) {
  char *end;
  long id = strtol(word, &end, 10);
  int numeric = *word && *end == '\0';
  for (int i = 0; i < c->nkernels; i++) {
    if (numeric ? c->kernels[i].id == id : strcmp(c->kernels[i].name, word) == 0) return i;
  }
  return -1;
}

int cb_kernels_select(const cb_collective *c, const char *spec, int *selected, int *explicit_pick,
                      char *err, size_t err_len) {
  memset(selected, 0, sizeof *selected * (size_t)c->nkernels);
  *explicit_pick = strcmp(spec, "all") != 0;
  if (!*explicit_pick) {
    for (int i = 0; i < c->nkernels; i++) selected[i] = 1;
    return 0;
  }
  const char *p = spec;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char word[64];
    if (len == 0 || len >= sizeof word) {
      snprintf(err, err_len, "bad -k '%s': expected kernel ids or names, a comma list, all or list",
               spec);
      return -1;
    }
    memcpy(word, p, len);
    word[len] = '\0';
    int k = find_kernel(c, word);
    if (k < 0) {
      snprintf(err, err_len, "unknown kernel '%s' for %s_perf (-k list shows the kernels)", word,
               c->shape->name);
      return -1;
    }
    selected[k] = 1;
    if (!comma) return 0;
    p = comma + 1;
  }
}

const char *cb_kernel_world_reason(const cb_kernel *k, int nranks, int multi_host, char *buf,
                                   size_t len) {
  const char *why = k->unavailable ? k->unavailable() : NULL;
  if (why) return why;
  if (k->limits.min_ranks && nranks < k->limits.min_ranks) {
    snprintf(buf, len, "needs at least %d ranks, this run has %d", k->limits.min_ranks, nranks);
    return buf;
  }
  if (k->limits.max_ranks && nranks > k->limits.max_ranks) {
    snprintf(buf, len, "serves at most %d ranks, this run has %d", k->limits.max_ranks, nranks);
    return buf;
  }
  if (k->limits.single_host && multi_host)
    return "uses node-local peer memory, and the ranks span several hosts";
  return NULL;
}

const char *cb_kernel_call_reason(const cb_kernel *k, const cb_coll_shape *shape,
                                  const cb_call *call, uint64_t table_bytes, char *buf,
                                  size_t len) {
  unsigned placement = call->in_place ? CB_IN_PLACE : CB_OUT_OF_PLACE;
  if (!(k->limits.placements & placement))
    return call->in_place ? "in-place not supported" : "out-of-place not supported";
  if (!(k->limits.dtypes & CB_DTYPE_BIT(call->dtype))) {
    snprintf(buf, len, "%s not supported", cb_dtype_name(call->dtype));
    return buf;
  }
  if (shape->reduces && !(k->limits.ops & CB_OP_BIT(call->op))) {
    snprintf(buf, len, "op %s not supported", cb_redop_name(call->op));
    return buf;
  }
  if (k->limits.max_bytes && table_bytes > k->limits.max_bytes) {
    char lim[32];
    cb_format_bytes(k->limits.max_bytes, lim, sizeof lim);
    snprintf(buf, len, "above the kernel's %s limit", lim);
    return buf;
  }
  return NULL;
}

static void print_limits(FILE *out, const cb_kernel_limits *l) {
  char lim[32];
  fprintf(out, "      %s%s", l->placements & CB_OUT_OF_PLACE ? "out-of-place" : "",
          l->placements == (CB_OUT_OF_PLACE | CB_IN_PLACE) ? " and in-place"
          : l->placements == CB_IN_PLACE                   ? "in-place only"
                                                           : " only");
  if (l->max_bytes) {
    cb_format_bytes(l->max_bytes, lim, sizeof lim);
    fprintf(out, "; up to %s", lim);
  }
  if (l->min_ranks && l->max_ranks)
    fprintf(out, "; %d..%d ranks", l->min_ranks, l->max_ranks);
  else if (l->max_ranks)
    fprintf(out, "; at most %d ranks", l->max_ranks);
  else if (l->min_ranks)
    fprintf(out, "; at least %d ranks", l->min_ranks);
  if (l->single_host) fprintf(out, "; one host only");
  if (l->dtypes != CB_ALL_DTYPES) {
    fprintf(out, "; types:");
    for (int t = 0; t < CB_NUM_DTYPES; t++)
      if (l->dtypes & CB_DTYPE_BIT(t)) fprintf(out, " %s", cb_dtype_name((cb_dtype)t));
  }
  if (l->ops != CB_ALL_OPS) {
    fprintf(out, "; ops:");
    for (int o = 0; o < CB_NUM_OPS; o++)
      if (l->ops & CB_OP_BIT(o)) fprintf(out, " %s", cb_redop_name((cb_redop)o));
  }
  fputc('\n', out);
}

void cb_kernels_print(FILE *out, const cb_collective *c) {
  fprintf(out, "# kernels of %s_perf (-k takes an id, a name, a comma list, or all)\n",
          c->shape->name);
  for (int i = 0; i < c->nkernels; i++) {
    const cb_kernel *k = &c->kernels[i];
    const char *why = k->unavailable ? k->unavailable() : NULL;
    if (why)
      fprintf(out, "  %2d  %-8s %s  [unavailable: %s]\n", k->id, k->name, k->summary, why);
    else
      fprintf(out, "  %2d  %-8s %s\n", k->id, k->name, k->summary);
    print_limits(out, &k->limits);
  }
}
