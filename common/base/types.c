#include "types.h"

#include <stdio.h>
#include <strings.h>

#include "option_parse.h"

static const struct {
  const char *name;
  size_t size;
  int is_float;
  double epsilon, min_normal; /* the floating types' (0 for the integers) */
} dtype_info[CB_NUM_DTYPES] = {
    [CB_INT8] = {"int8", 1, 0, 0, 0},
    [CB_UINT8] = {"uint8", 1, 0, 0, 0},
    [CB_INT32] = {"int32", 4, 0, 0, 0},
    [CB_UINT32] = {"uint32", 4, 0, 0, 0},
    [CB_INT64] = {"int64", 8, 0, 0, 0},
    [CB_UINT64] = {"uint64", 8, 0, 0, 0},
    [CB_HALF] = {"half", 2, 1, 0x1p-10, 0x1p-14},
    [CB_FLOAT] = {"float", 4, 1, 0x1p-23, 0x1p-126},
    [CB_DOUBLE] = {"double", 8, 1, 0x1p-52, 0x1p-1022},
    [CB_BFLOAT16] = {"bfloat16", 2, 1, 0x1p-7, 0x1p-126},
    /* nccl-tests 2.19.6's names (src/common.cu, test_typenames). */
    [CB_F8E4M3] = {"f8e4m3", 1, 1, 0x1p-3, 0x1p-6},
    [CB_F8E5M2] = {"f8e5m2", 1, 1, 0x1p-2, 0x1p-14},
};

/* Aliases accepted on the command line, as nccl-tests accepts them. */
static const struct {
  const char *alias;
  cb_dtype type;
} dtype_aliases[] = {
    {"char", CB_INT8},   {"uint", CB_UINT32},   {"int", CB_INT32},       {"float16", CB_HALF},
    {"fp16", CB_HALF},   {"float32", CB_FLOAT}, {"fp32", CB_FLOAT},      {"float64", CB_DOUBLE},
    {"fp64", CB_DOUBLE}, {"bf16", CB_BFLOAT16}, {"bfloat", CB_BFLOAT16},
};

static const char *const redop_names[CB_NUM_OPS] = {"sum", "prod", "min", "max", "avg", "mulsum"};

const char *cb_dtype_name(cb_dtype t) {
  return t < CB_NUM_DTYPES ? dtype_info[t].name : "?";
}
size_t cb_dtype_size(cb_dtype t) {
  return t < CB_NUM_DTYPES ? dtype_info[t].size : 0;
}
int cb_dtype_is_float(cb_dtype t) {
  return t < CB_NUM_DTYPES && dtype_info[t].is_float;
}
double cb_dtype_epsilon(cb_dtype t) {
  return t < CB_NUM_DTYPES ? dtype_info[t].epsilon : 0;
}
double cb_dtype_min_normal(cb_dtype t) {
  return t < CB_NUM_DTYPES ? dtype_info[t].min_normal : 0;
}

int cb_dtype_parse(const char *name) {
  for (int t = 0; t < CB_NUM_DTYPES; t++)
    if (strcasecmp(name, dtype_info[t].name) == 0) return t;
  for (size_t i = 0; i < sizeof dtype_aliases / sizeof dtype_aliases[0]; i++)
    if (strcasecmp(name, dtype_aliases[i].alias) == 0) return (int)dtype_aliases[i].type;
  return -1;
}

const char *cb_redop_name(cb_redop op) {
  return op < CB_NUM_OPS ? redop_names[op] : "?";
}

int cb_redop_parse(const char *name) {
  for (int o = 0; o < CB_NUM_OPS; o++)
    if (strcasecmp(name, redop_names[o]) == 0) return o;
  return -1;
}

uint32_t cb_dtype_mask_parse(const char *list, char *bad, size_t bad_len, int *twice) {
  return cb_name_mask_parse(list, cb_dtype_parse, CB_ALL_DTYPES, bad, bad_len, twice);
}

uint32_t cb_redop_mask_parse(const char *list, char *bad, size_t bad_len, int *twice) {
  return cb_name_mask_parse(list, cb_redop_parse, CB_ALL_OPS, bad, bad_len, twice);
}

/* The names of n entries, space-separated; truncated (never overrun) when
 * buf is too short. */
static const char *join_names(const char *(*name_of)(int), int n, char *buf, size_t len) {
  size_t used = 0;
  if (len) buf[0] = '\0';
  for (int i = 0; i < n && used < len; i++) {
    int w = snprintf(buf + used, len - used, "%s%s", i ? " " : "", name_of(i));
    if (w < 0) break;
    used += (size_t)w;
  }
  return buf;
}

static const char *dtype_name_of(int t) {
  return cb_dtype_name((cb_dtype)t);
}
static const char *redop_name_of(int o) {
  return cb_redop_name((cb_redop)o);
}

const char *cb_dtype_names(char *buf, size_t len) {
  return join_names(dtype_name_of, CB_NUM_DTYPES, buf, len);
}

const char *cb_redop_names(char *buf, size_t len) {
  return join_names(redop_name_of, CB_NUM_OPS, buf, len);
}
