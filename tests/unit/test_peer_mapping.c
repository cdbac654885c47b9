/* CB_PEER_MAPPING: its parsing (the env helper's choices), the handle types
 * each mapping allocates with, the agreement of the ranks' probes, auto's
 * pick from them, the process's current mapping across threads, the
 * granularity rounding of cuMem allocations and the registry that finds the
 * allocation a pointer lies in. No GPU: the calls that need one are not here
 * (tests/gpu/peer_mapping.sh runs them). */
#include <cuda.h>
#include <pthread.h>
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
  CHECK_EQ_INT(m, CB_PEER_AUTO); /* unset: auto, cumem where it can serve the run */
  const char *good[4] = {"ipc", "cumem", "fabric", "auto"};
  for (int i = 0; i < 4; i++) {
    m = i == 3 ? CB_PEER_IPC : CB_PEER_AUTO;
    CHECKF(cb_peer_mapping_parse(good[i], &m, why, sizeof why) == NULL, "%s refused", good[i]);
    CHECK_EQ_INT(m, i);
    CHECK_STR(cb_peer_mapping_name((cb_peer_mapping)i), good[i]);
  }
  CHECK_STR(cb_peer_mapping_name((cb_peer_mapping)4), "?");
  const char *bad[] = {"", "IPC", "cuMem", "nvls", "cumem ", "1", "posix", "Auto", "default"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    m = CB_PEER_CUMEM;
    const char *w = cb_peer_mapping_parse(bad[i], &m, why, sizeof why);
    CHECKF(w != NULL, "'%s' accepted", bad[i]);
    if (!w) continue;
    CHECK_EQ_INT(m, CB_PEER_CUMEM); /* left alone */
    CHECK(strchr(w, '\n') == NULL);
    CHECK_CONTAINS(w, "CB_PEER_MAPPING='");
    CHECK_CONTAINS(w, bad[i]);
    CHECK_CONTAINS(w, "expected one of auto, ipc, cumem, fabric");
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
  /* An unresolved auto allocates as ipc does: no kernel of ours maps peer
   * memory then. */
  CHECK_EQ_INT(cb_peer_mapping_handle_types(CB_PEER_AUTO), 0);
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

/* cumem's sockets live in a network namespace: ranks of one group in two
 * cannot exchange file descriptors. Groups (a split, maybe over hosts) are
 * compared each on its own; an unknown namespace (0) is not compared. */
static void test_agree_namespaces(void) {
  cb_peer_mapping_probe all[4];
  memset(all, 0, sizeof all);
  for (int r = 0; r < 4; r++) all[r].netns = 4026531840ull;
  CHECK(cb_peer_mapping_agree(CB_PEER_CUMEM, all, 4, why, sizeof why) == NULL);
  all[2].netns = 4026532999ull;
  CHECK(cb_peer_mapping_agree(CB_PEER_CUMEM, all, 4, why, sizeof why) != NULL);
  CHECK_STR(why, "CB_PEER_MAPPING=cumem is unavailable: ranks 0 and 2 are in different network "
                 "namespaces, which cumem's Unix sockets cannot cross");
  CHECK(cb_peer_mapping_agree(CB_PEER_FABRIC, all, 4, why, sizeof why) == NULL); /* no sockets */
  /* Two groups, [0 1] and [2 3], each in a namespace (a host) of its own. */
  all[2].group = all[3].group = 1;
  all[3].netns = all[2].netns;
  CHECK(cb_peer_mapping_agree(CB_PEER_CUMEM, all, 4, why, sizeof why) == NULL);
  all[1].netns = 0; /* /proc could not say */
  CHECK(cb_peer_mapping_agree(CB_PEER_CUMEM, all, 4, why, sizeof why) == NULL);
  all[3].netns = 7;
  CHECK(cb_peer_mapping_agree(CB_PEER_CUMEM, all, 4, why, sizeof why) != NULL);
  CHECK_CONTAINS(why, "ranks 2 and 3 are in different network namespaces");
  /* A rank's own refusal is named first. */
  snprintf(all[3].why, sizeof all[3].why, "no cuMem");
  CHECK(cb_peer_mapping_agree(CB_PEER_CUMEM, all, 4, why, sizeof why) != NULL);
  CHECK_STR(why, "CB_PEER_MAPPING=cumem is unavailable: no cuMem (rank 3)");
}

/* auto's pick from the ranks' cumem probes: cumem when none refused, else
 * ipc with the first refusal, naming its rank (of the world). */
static void test_auto_pick(void) {
  cb_peer_mapping_probe all[3];
  memset(all, 0, sizeof all);
  cb_peer_mapping_auto a;
  memset(&a, 0xff, sizeof a);
  cb_peer_mapping_auto_pick(all, 3, &a);
  CHECK_EQ_INT(a.resolved, 1);
  CHECK_EQ_INT(a.mapping, CB_PEER_CUMEM);
  CHECK_STR(a.why, "");
  snprintf(all[2].why, sizeof all[2].why,
           "device 1 does not support POSIX file descriptor handles");
  snprintf(all[1].why, sizeof all[1].why, "device 0: a trial cuMemCreate failed");
  cb_peer_mapping_auto_pick(all, 3, &a);
  CHECK_EQ_INT(a.resolved, 1);
  CHECK_EQ_INT(a.mapping, CB_PEER_IPC);
  CHECK_STR(a.why, "device 0: a trial cuMemCreate failed (rank 1)");
  /* One rank (a single GPU, or every rank's probe alike). */
  cb_peer_mapping_auto_pick(all, 1, &a);
  CHECK_EQ_INT(a.mapping, CB_PEER_CUMEM);
  /* The longest reason a probe holds still fits, cut at worst, terminated. */
  memset(all[0].why, 'x', sizeof all[0].why - 1);
  all[0].why[sizeof all[0].why - 1] = '\0';
  cb_peer_mapping_auto_pick(all, 3, &a);
  CHECK_EQ_INT(a.mapping, CB_PEER_IPC);
  CHECK(memchr(a.why, '\0', sizeof a.why) != NULL);
  CHECK_CONTAINS(a.why, "x (rank 0)");
  /* Every device can, but two ranks of the group cannot reach each other's sockets. */
  memset(all, 0, sizeof all);
  all[0].netns = all[1].netns = 11;
  all[2].netns = 12;
  cb_peer_mapping_auto_pick(all, 3, &a);
  CHECK_EQ_INT(a.mapping, CB_PEER_IPC);
  CHECK_STR(a.why, "ranks 0 and 2 are in different network namespaces, which cumem's Unix "
                   "sockets cannot cross");
}

/* The process's mapping: rank threads store auto's pick (the same value)
 * while others load it; each reads back what the ranks picked. Run under
 * -fsanitize=thread, a plain int here is reported as a data race. */
enum { THREADS = 8 };
static int seen[THREADS];

static void *rank_thread(void *arg) {
  int i = (int)(intptr_t)arg;
  for (int k = 0; k < 1000; k++) {
    cb_peer_mapping_use(CB_PEER_CUMEM);
    if (cb_peer_mapping_current() != CB_PEER_CUMEM) seen[i]++;
  }
  return NULL;
}

static void test_current_across_threads(void) {
  cb_peer_mapping_use(CB_PEER_AUTO); /* as the main thread leaves it before the ranks start */
  CHECK_EQ_INT(cb_peer_mapping_current(), CB_PEER_AUTO);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    CHECK(pthread_create(&t[i], NULL, rank_thread, (void *)(intptr_t)i) == 0);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < THREADS; i++) CHECK_EQ_INT(seen[i], 0);
  CHECK_EQ_INT(cb_peer_mapping_current(), CB_PEER_CUMEM);
  cb_peer_mapping_use(CB_PEER_IPC);
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
  test_agree_namespaces();
  test_auto_pick();
  test_current_across_threads();
  test_round_up();
  test_registry();
  return check_summary();
}
