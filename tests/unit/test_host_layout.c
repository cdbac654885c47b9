/* host_layout: which host each process is on (by identity, NCCL_HOSTID's
 * rule), the simulated hosts of CB_HOSTS and their refusals, uneven hosts,
 * and the node groups and rails of the ranks. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "host_layout.h"

enum { MAXP = 16, ID = 32 };

/* The places of the processes whose identities are ids (n of them). */
static int places_of(const char *const *ids, int n, cb_host_place *places) {
  static char packed[MAXP][ID];
  for (int p = 0; p < n; p++) snprintf(packed[p], ID, "%s", ids[p]);
  return cb_host_places(packed[0], ID, n, places);
}

static void check_identity(void) {
  char id[CB_HOST_ID_MAX];
  cb_host_identity("node7", NULL, id, sizeof id);
  CHECKF(!strcmp(id, "node7"), "no NCCL_HOSTID: the machine's name, got %s", id);
  cb_host_identity("node7", "rack2-a", id, sizeof id);
  CHECKF(!strcmp(id, "rack2-a"), "NCCL_HOSTID wins, got %s", id);
}

/* Hosts numbered by their first process; local indices in process order. */
static void check_places(void) {
  const char *ids[] = {"b", "a", "b", "c", "a", "b"};
  cb_host_place pl[MAXP];
  int n = places_of(ids, 6, pl);
  CHECKF(n == 3, "3 hosts, got %d", n);
  const int host[] = {0, 1, 0, 2, 1, 0}, local[] = {0, 0, 1, 0, 1, 2}, count[] = {3, 2, 3, 1, 2, 3};
  for (int p = 0; p < 6; p++)
    CHECKF(pl[p].host == host[p] && pl[p].local_proc == local[p] && pl[p].local_nprocs == count[p],
           "process %d: host %d, local %d of %d; expected %d, %d of %d", p, pl[p].host,
           pl[p].local_proc, pl[p].local_nprocs, host[p], local[p], count[p]);
  char why[128];
  const char *u = cb_host_uneven(pl, 6, n, why, sizeof why);
  CHECKF(u && !strcmp(u, "hosts of 3, 2 and 1 processes"), "uneven: %s", u ? u : "(null)");
  const char *one[] = {"x", "x", "x"};
  CHECK(places_of(one, 3, pl) == 1 && pl[2].local_proc == 2 && pl[2].local_nprocs == 3);
  CHECK(cb_host_uneven(pl, 3, 1, why, sizeof why) == NULL);
}

/* CB_HOSTS=H over P processes: blocks of P / H, each its own identity, and
 * those identities give back the same layout. */
static void check_simulated(int nhosts, int nprocs) {
  char ids[MAXP][ID], why[256];
  for (int p = 0; p < nprocs; p++) {
    const char *bad = cb_host_simulated_id(nhosts, p, nprocs, "m1", ids[p], ID, why, sizeof why);
    CHECKF(!bad, "CB_HOSTS=%d, %d processes: refused: %s", nhosts, nprocs, bad ? bad : "");
    if (bad) return;
  }
  cb_host_place pl[MAXP];
  int n = cb_host_places(ids[0], ID, nprocs, pl);
  CHECKF(n == nhosts, "CB_HOSTS=%d, %d processes: %d hosts", nhosts, nprocs, n);
  int per = nprocs / nhosts;
  for (int p = 0; p < nprocs; p++) {
    char want[ID];
    snprintf(want, sizeof want, "m1-host%d", p / per);
    CHECKF(!strcmp(ids[p], want), "process %d: %s, expected %s", p, ids[p], want);
    CHECKF(pl[p].host == p / per && pl[p].local_proc == p % per && pl[p].local_nprocs == per,
           "CB_HOSTS=%d, %d processes: process %d on host %d, local %d of %d", nhosts, nprocs, p,
           pl[p].host, pl[p].local_proc, pl[p].local_nprocs);
  }
  CHECK(cb_host_uneven(pl, nprocs, n, why, sizeof why) == NULL);
}

static void check_simulated_refused(int nhosts, int nprocs, const char *says) {
  char id[ID] = "untouched", why[256];
  const char *bad = cb_host_simulated_id(nhosts, 0, nprocs, "m1", id, sizeof id, why, sizeof why);
  CHECKF(bad && strstr(bad, says) && !strchr(bad, '\n'), "CB_HOSTS=%d, %d processes: %s", nhosts,
         nprocs, bad ? bad : "(accepted)");
  CHECKF(!strcmp(id, "untouched"), "a refusal wrote an identity: %s", id);
}

/* Node groups and rails: 3 hosts x 2 processes x 2 ranks a process. */
static void check_groups(void) {
  const char *ids[] = {"h0", "h0", "h1", "h1", "h2", "h2"};
  cb_host_place pl[MAXP];
  places_of(ids, 6, pl);
  enum { RPP = 2 };
  int node_size[3] = {0}, rail_size[4] = {0};
  for (int p = 0; p < 6; p++)
    for (int t = 0; t < RPP; t++) {
      int node = cb_host_node_of(&pl[p]), rail = cb_host_rail_of(&pl[p], RPP, t);
      CHECKF(node == p / 2 && rail == (p % 2) * RPP + t, "rank %d: node %d, rail %d", p * RPP + t,
             node, rail);
      if (node >= 0 && node < 3) node_size[node]++;
      if (rail >= 0 && rail < 4) rail_size[rail]++;
    }
  for (int h = 0; h < 3; h++) CHECKF(node_size[h] == 4, "node %d: %d ranks", h, node_size[h]);
  for (int r = 0; r < 4; r++) CHECKF(rail_size[r] == 3, "rail %d: %d ranks", r, rail_size[r]);
}

static void check_counts_text(void) {
  char buf[64];
  const int two[] = {4, 2}, three[] = {1, 2, 3};
  cb_process_counts_text("groups", two, 2, buf, sizeof buf);
  CHECKF(!strcmp(buf, "groups of 4 and 2 processes"), "%s", buf);
  cb_process_counts_text("hosts", three, 3, buf, sizeof buf);
  CHECKF(!strcmp(buf, "hosts of 1, 2 and 3 processes"), "%s", buf);
  char tiny[12];
  cb_process_counts_text("hosts", three, 3, tiny, sizeof tiny);
  CHECKF(strlen(tiny) == sizeof tiny - 1, "cut to the buffer: '%s'", tiny);
}

int main(void) {
  check_identity();
  check_places();
  check_simulated(1, 1);
  check_simulated(2, 2);
  check_simulated(2, 4);
  check_simulated(3, 6);
  check_simulated(4, 4);
  check_simulated_refused(2, 3, "a multiple of 2");
  check_simulated_refused(2, 1, "this run has 1 process (");
  check_simulated_refused(4, 2, "this run has 2 processes");
  check_groups();
  check_counts_text();
  return check_summary();
}
