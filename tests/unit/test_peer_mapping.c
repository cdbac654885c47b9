/* CB_PEER_MAPPING: its parsing (the env helper's choices), the handle types
 * each mapping allocates with, the agreement of the ranks' probes, the
 * granularity rounding of cuMem allocations and the registry that finds the
 * allocation a pointer lies in. No GPU: the calls that need one are not here
 * (tests/gpu/peer_mapping.sh runs them). */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "cumem.h"
#include "env.h"
#include "peer_mapping.h"

static char why[256];

static void test_parse(void) {
  cb_peer_mapping m = CB_PEER_FABRIC;
  CHECK(cb_peer_mapping_parse(NULL, &m, why, sizeof why) == NULL);
  CHECK_EQ_INT(m, CB_PEER_IPC); /* unset: the validated default */
  const char *good[3] = {"ipc", "cumem", "fabric"};
  for (int i = 0; i < 3; i++) {
    CHECKF(cb_peer_mapping_parse(good[i], &m, why, sizeof why) == NULL, "%s refused", good[i]);
    CHECK_EQ_INT(m, i);
    CHECK_STR(cb_peer_mapping_name((cb_peer_mapping)i), good[i]);
  }
  const char *bad[] = {"", "IPC", "cuMem", "nvls", "cumem ", "1", "posix"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    m = CB_PEER_CUMEM;
    const char *w = cb_peer_mapping_parse(bad[i], &m, why, sizeof why);
    CHECKF(w != NULL, "'%s' accepted", bad[i]);
    if (!w) continue;
    CHECK_EQ_INT(m, CB_PEER_CUMEM); /* left alone */
    CHECK(strchr(w, '\n') == NULL);
    CHECK_CONTAINS(w, "CB_PEER_MAPPING='");
    CHECK_CONTAINS(w, bad[i]);
    CHECK_CONTAINS(w, "expected one of ipc, cumem, fabric");
  }
  /* The env helper itself: the fallback when unset, an index otherwise. */
  static const char *const abc[] = {"a", "b", "c"};
  int x = -1;
  CHECK(cb_env_choice_parse("X", NULL, abc, 3, 2, &x, why, sizeof why) == NULL);
  CHECK_EQ_INT(x, 2);
  CHECK(cb_env_choice_parse("X", "b", abc, 3, 2, &x, why, sizeof why) == NULL);
  CHECK_EQ_INT(x, 1);
  CHECK(cb_env_choice_parse("X", "d", abc, 3, 2, &x, why, sizeof why) != NULL);
  CHECK_STR(why, "X='d': expected one of a, b, c");
  /* A message longer than its buffer is cut, still terminated. */
  char small[12];
  CHECK(cb_env_choice_parse("X", "dddddddd", abc, 3, 0, &x, small, sizeof small) != NULL);
  CHECK_EQ_INT(strlen(small), sizeof small - 1);
}

static void test_handle_types(void) {
  CHECK_EQ_INT(cb_peer_mapping_handle_types(CB_PEER_IPC), 0);
  CHECK_EQ_INT(cb_peer_mapping_handle_types(CB_PEER_CUMEM),
               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  CHECK_EQ_INT(cb_peer_mapping_handle_types(CB_PEER_FABRIC), CU_MEM_HANDLE_TYPE_FABRIC);
  /* ipc needs no probe (and no driver). */
  cb_peer_mapping_probe p;
  CHECK(cb_peer_mapping_probe_device(CB_PEER_IPC, 0, &p) == NULL);
}

static void test_agree(void) {
  cb_peer_mapping_probe all[4];
  memset(all, 0, sizeof all);
  for (int r = 0; r < 4; r++) all[r].clique = 7;
  CHECK(cb_peer_mapping_agree(CB_PEER_CUMEM, all, 4, why, sizeof why) == NULL);
  CHECK(cb_peer_mapping_agree(CB_PEER_FABRIC, all, 4, why, sizeof why) == NULL);
  all[3].clique = 8; /* another NVLink domain */
  CHECK(cb_peer_mapping_agree(CB_PEER_CUMEM, all, 4, why, sizeof why) == NULL);
  CHECK(cb_peer_mapping_agree(CB_PEER_FABRIC, all, 4, why, sizeof why) != NULL);
  CHECK_CONTAINS(why, "CB_PEER_MAPPING=fabric is unavailable");
  CHECK_CONTAINS(why, "ranks 0 and 3 are in different NVLink domains");
  all[3].clique = 7;
  all[2].cluster[5] = 1; /* another cluster */
  CHECK(cb_peer_mapping_agree(CB_PEER_FABRIC, all, 4, why, sizeof why) != NULL);
  CHECK_CONTAINS(why, "ranks 0 and 2");
  snprintf(all[1].why, sizeof all[1].why, "device 1 does not support fabric handles");
  CHECK(cb_peer_mapping_agree(CB_PEER_FABRIC, all, 4, why, sizeof why) != NULL);
  CHECK_STR(why, "CB_PEER_MAPPING=fabric is unavailable: device 1 does not support fabric "
                 "handles (rank 1)");
}

static void test_round_up(void) {
  const size_t mib2 = 2u << 20;
  CHECK_EQ_U64(cb_cumem_round_up(0, mib2), mib2); /* an empty buffer still maps */
  CHECK_EQ_U64(cb_cumem_round_up(1, mib2), mib2);
  CHECK_EQ_U64(cb_cumem_round_up(mib2, mib2), mib2);
  CHECK_EQ_U64(cb_cumem_round_up(mib2 + 1, mib2), 2 * mib2);
  CHECK_EQ_U64(cb_cumem_round_up((1ull << 30) + 8, mib2), (1ull << 30) + mib2);
  CHECK_EQ_U64(cb_cumem_round_up(10, 3), 12); /* not a power of two */
  CHECK_EQ_U64(cb_cumem_round_up(4096, 4096), 4096);
}

static void test_registry(void) {
  char *base = (char *)(uintptr_t)0x7f0000200000ull;
  cb_cumem_region r = {base, 4u << 20, 1, CB_CUMEM_POSIX_FD}, got;
  CHECK(cb_cumem_find(base, &got) != 0);
  cb_cumem_register(&r);
  CHECK(cb_cumem_find(base + 12345, &got) == 0);
  CHECK(got.base == base);
  CHECK_EQ_U64(got.size, 4u << 20);
  CHECK_EQ_INT(got.device, 1);
  CHECK_EQ_U64((size_t)(base + 12345 - (char *)got.base), 12345); /* the offset kept */
  CHECK(cb_cumem_find(base + (4u << 20) - 1, &got) == 0);
  CHECK(cb_cumem_find(base + (4u << 20), &got) != 0); /* one past the end */
  CHECK(cb_cumem_find(base - 1, &got) != 0);
  cb_cumem_region r2 = {base + (4u << 20), 2u << 20, 0, CB_CUMEM_FABRIC};
  cb_cumem_register(&r2);
  CHECK(cb_cumem_find(base + (4u << 20), &got) == 0 && got.base == r2.base);
  cb_cumem_unregister(base);
  CHECK(cb_cumem_find(base, &got) != 0);
  CHECK(cb_cumem_find(base + (5u << 20), &got) == 0 && got.device == 0);
  cb_cumem_unregister(r2.base);
  CHECK(cb_cumem_find(r2.base, &got) != 0);
}

int main(void) {
  test_parse();
  test_handle_types();
  test_agree();
  test_round_up();
  test_registry();
  return check_summary();
}
