/* What a kernel holds of the GPU (kernel_resources.h), without a GPU: the
 * SMs its grids can occupy at once, the text line, the CSV columns, and
 * what the ring, LL and direct families' and NCCL's rows fill in from a
 * setup's state (host arithmetic, states made here). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "direct_mesh.h"
#include "kernel_resources.h"
#include "ll_mesh.h"
#include "nccl_kernels.h"
#include "ring_mesh.h"

static cb_kernel_resources ce_like(void) {
  cb_kernel_resources r;
  memset(&r, 0, sizeof r);
  r.reported = 1;
  cb_grid_use *g = cb_res_grid(&r, "handshake", NULL, 1, 32, 0);
  g->launches = 2;
  g = cb_res_grid(&r, "reduce", NULL, 66, 512, 0);
  g->launches = 4;
  g = cb_res_grid(&r, "signal", NULL, 1, 32, 0);
  g->launches = 4;
  g->beside = 1;
  r.side_streams = 3;
  r.copies = 14;
  r.copy_streams = 2;
  return r;
}

static void test_sms_at_once(void) {
  cb_kernel_resources r = ce_like();
  /* The call's stream runs its grids one after another (the largest, 66),
   * the signal kernel beside them takes one more. */
  cb_res_sms_at_once(&r, 132);
  CHECK_EQ_INT(r.sms_at_once, 67);
  CHECK_EQ_INT(r.gpu_sms, 132);
  CHECK_EQ_INT(r.grids[1].sms, 66);
  /* A grid larger than the GPU occupies every SM, and the total is capped. */
  r.grids[1].blocks = 200;
  cb_res_sms_at_once(&r, 132);
  CHECK_EQ_INT(r.grids[1].sms, 132);
  CHECK_EQ_INT(r.sms_at_once, 132);
  /* Grids beside each other add up. */
  cb_kernel_resources b;
  memset(&b, 0, sizeof b);
  b.reported = 1;
  cb_res_grid(&b, "a", NULL, 10, 64, 0)->beside = 1;
  cb_res_grid(&b, "b", NULL, 20, 64, 0)->beside = 1;
  cb_res_grid(&b, "c", NULL, 5, 64, 0);
  cb_res_sms_at_once(&b, 132);
  CHECK_EQ_INT(b.sms_at_once, 35);
  /* No grid (the copy engines alone): no SM. */
  memset(&b, 0, sizeof b);
  b.reported = 1;
  cb_res_sms_at_once(&b, 132);
  CHECK_EQ_INT(b.sms_at_once, 0);
}

static void test_grid_limit(void) {
  cb_kernel_resources r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < CB_RES_MAX_GRIDS; i++) CHECK(cb_res_grid(&r, "g", NULL, 1, 32, 0) != NULL);
  CHECK(cb_res_grid(&r, "one too many", NULL, 1, 32, 0) == NULL);
  CHECK_EQ_INT(r.ngrids, CB_RES_MAX_GRIDS);
  CHECK_CONTAINS(r.note, "more than 6 grids");
}

static void test_format(void) {
  cb_kernel_resources r = ce_like();
  cb_res_sms_at_once(&r, 132);
  /* Pretend the runtime answered for the reduce grid. */
  int fake = 1;
  r.grids[1].func = &fake;
  r.grids[1].regs = 40;
  r.grids[1].static_smem = 16;
  r.grids[1].per_sm = 4;
  char buf[512];
  cb_resources_format(&r, buf, sizeof buf);
  CHECK_STR(buf, "67 of 132 SMs at once: handshake 1x32 x2 (1 SM), reduce 66x512 x4 (40 regs, "
                 "16+0 B shared, 4/SM, 66 SMs), signal 1x32 x4 beside (1 SM); 3 side streams; "
                 "14 copies on 2 streams");
  cb_resources_grids_text(&r, buf, sizeof buf);
  CHECK_STR(buf, "handshake 1x32 x2;reduce 66x512 x4;signal 1x32 x4 beside");
  CHECK_EQ_INT(cb_resources_max_regs(&r), 40);
  CHECK_EQ_INT((int)cb_resources_max_smem(&r), 16);
  /* A short buffer is cut, never overrun. */
  char tiny[24];
  memset(tiny, 'x', sizeof tiny);
  cb_resources_format(&r, tiny, sizeof tiny);
  CHECK_EQ_INT((int)strlen(tiny), (int)sizeof tiny - 1);
  /* Not reported: the note alone. */
  cb_kernel_resources n;
  memset(&n, 0, sizeof n);
  cb_res_note(&n, "NCCL does not report the CTAs it launches");
  cb_res_note(&n, "NCCL_MAX_CTAS=%d asked", 8);
  cb_resources_format(&n, buf, sizeof buf);
  CHECK_STR(buf, "not reported (NCCL does not report the CTAs it launches; NCCL_MAX_CTAS=8 asked)");
}

/* The CSV columns: nine, each ending with its comma, for every case. */
static int commas_of(const cb_kernel_resources *r) {
  FILE *f = tmpfile();
  cb_csv_resources(f, r);
  long n = ftell(f);
  rewind(f);
  char buf[512] = {0};
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  (void)n;
  int commas = 0, quoted = 0;
  for (size_t i = 0; i < got; i++) {
    if (buf[i] == '"') quoted = !quoted;
    if (buf[i] == ',' && !quoted) commas++;
  }
  return commas;
}

static void test_csv(void) {
  cb_kernel_resources r = ce_like();
  cb_res_sms_at_once(&r, 132);
  CHECK_EQ_INT(commas_of(&r), 9);
  CHECK_EQ_INT(commas_of(NULL), 9);
  cb_kernel_resources n;
  memset(&n, 0, sizeof n);
  cb_res_note(&n, "a, b");
  CHECK_EQ_INT(commas_of(&n), 9);
}

/* Stand-ins for a kernel's instances: distinct addresses, never called. */
static const char instances[CB_NUM_DTYPES * CB_NUM_OPS];
static const void *ring_instance(cb_dtype t, cb_redop op) {
  return &instances[t * CB_NUM_OPS + op];
}

static cb_call call_of(cb_dtype t, cb_redop op, size_t count) {
  cb_call c;
  memset(&c, 0, sizeof c);
  c.dtype = t;
  c.op = op;
  c.count = count;
  return c;
}

static void test_ring_rows(void) {
  cb_ring_state st;
  memset(&st, 0, sizeof st);
  st.channels = 24;
  st.spec = (cb_ring_spec){1, 256, ring_instance};
  cb_kernel_ctx ctx = {.rank = 0, .nranks = 2, .state = &st};
  cb_kernel_resources r;
  memset(&r, 0, sizeof r);
  cb_call c = call_of(CB_HALF, CB_MAX, 1024);
  cb_ring_resources(&ctx, &c, &r);
  CHECK_EQ_INT(r.ngrids, 1);
  CHECK_EQ_INT(r.grids[0].blocks, 24);
  CHECK_EQ_INT(r.grids[0].threads, 256);
  CHECK(r.grids[0].func == ring_instance(CB_HALF, CB_MAX));
  /* A count of 0 launches nothing. */
  memset(&r, 0, sizeof r);
  c.count = 0;
  cb_ring_resources(&ctx, &c, &r);
  CHECK_EQ_INT(r.ngrids, 0);
}

static void test_ll_rows(void) {
  cb_ll_state st;
  memset(&st, 0, sizeof st);
  st.nfuncs = CB_NUM_DTYPES * CB_NUM_OPS;
  for (int i = 0; i < st.nfuncs; i++) st.funcs[i] = &instances[i];
  cb_kernel_ctx ctx = {.rank = 0, .nranks = 2, .state = &st};
  cb_kernel_resources r;
  memset(&r, 0, sizeof r);
  /* 64 KiB of float: 8192 packets, 256 tiles, a warp each in blocks of 4. */
  cb_call c = call_of(CB_FLOAT, CB_SUM, 16384);
  cb_ll_resources(&ctx, &c, &r);
  const cb_ll_grid g = cb_ll_grid_for(&st, 8192);
  CHECK_EQ_INT(r.ngrids, 1);
  CHECK_EQ_INT(r.grids[0].blocks, g.blocks);
  CHECK_EQ_INT(r.grids[0].threads, g.threads);
  CHECK_EQ_INT(g.blocks, 64);
  CHECK_EQ_INT(g.threads, 128);
  CHECK(r.grids[0].func == &instances[CB_FLOAT * CB_NUM_OPS + CB_SUM]);
  /* One instance for every datatype (a kernel that moves bytes). */
  st.nfuncs = 1;
  memset(&r, 0, sizeof r);
  c = call_of(CB_INT8, CB_PROD, 100);
  cb_ll_resources(&ctx, &c, &r);
  CHECK(r.grids[0].func == &instances[0]);
  memset(&r, 0, sizeof r);
  c.count = 0;
  cb_ll_resources(&ctx, &c, &r);
  CHECK_EQ_INT(r.ngrids, 0);
}

static void test_direct_rows(void) {
  cb_direct_state st;
  memset(&st, 0, sizeof st);
  st.max_blocks = 32;
  st.block_bytes = 1 << 20;
  st.nfuncs = 1;
  st.funcs[0] = &instances[5];
  cb_kernel_ctx ctx = {.rank = 1, .nranks = 4, .state = &st};
  cb_kernel_resources r;
  memset(&r, 0, sizeof r);
  /* Runs of 4 MiB to each of 3 peers: 12 MiB, a block a MiB. */
  cb_call c = call_of(CB_UINT8, CB_SUM, 4 << 20);
  cb_direct_resources(&ctx, &c, &r);
  CHECK_EQ_INT(r.grids[0].blocks, 12);
  CHECK_EQ_INT(r.grids[0].threads, CB_DIRECT_THREADS);
  /* At most the fitted grid. */
  memset(&r, 0, sizeof r);
  c.count = 64 << 20;
  cb_direct_resources(&ctx, &c, &r);
  CHECK_EQ_INT(r.grids[0].blocks, 32);
}

static void test_nccl_rows(void) {
  cb_kernel_resources r;
  memset(&r, 0, sizeof r);
  r.reported = 1;
  setenv("NCCL_MAX_CTAS", "8", 1);
  cb_kernel_ctx ctx = {.rank = 0, .nranks = 2, .state = NULL};
  cb_call c = call_of(CB_FLOAT, CB_SUM, 1024);
  cb_nccl_resources(&ctx, &c, &r);
  unsetenv("NCCL_MAX_CTAS");
  CHECK(!r.reported);
  CHECK_EQ_INT(r.ngrids, 0);
  CHECK_CONTAINS(r.note, "NCCL does not report the CTAs it launches");
  CHECK_CONTAINS(r.note, "NCCL_MAX_CTAS=8 asked");
}

int main(void) {
  test_ring_rows();
  test_ll_rows();
  test_direct_rows();
  test_nccl_rows();
  test_sms_at_once();
  test_grid_limit();
  test_format();
  test_csv();
  return check_summary();
}
