/* The kernel catalogue: docs/kernels.md (argv[1]) and the code's table
 * (common/coll/catalogue.c) say the same, row for row; cb_catalogue_check
 * refuses ids and names that are not in it. */
#include <stdio.h>
#include <string.h>

#include "catalogue.h"
#include "check.h"

/* Reads the table rows "| id | name | what |" of the markdown page. */
static int read_doc(const char *path, int *ids, char names[][32], char whats[][160], int max) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f) && n < max) {
    int id;
    char name[32], what[160];
    if (sscanf(line, "| %d | %31[^ |] | %159[^|]|", &id, name, what) != 3) continue;
    size_t w = strlen(what);
    while (w && what[w - 1] == ' ') what[--w] = 0;
    ids[n] = id;
    strcpy(names[n], name);
    strcpy(whats[n], what);
    n++;
  }
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  int ids[32];
  char names[32][32], whats[32][160];
  int n = read_doc(argv[1], ids, names, whats, 32);
  CHECK(n == CB_NUM_KIDS);
  for (int i = 0; i < n && i < CB_NUM_KIDS; i++) {
    CHECK(ids[i] == cb_catalogue[i].id);
    CHECK(ids[i] == i);
    CHECK(strcmp(names[i], cb_catalogue[i].name) == 0);
    CHECK(strcmp(whats[i], cb_catalogue[i].what) == 0);
  }
  char buf[256];
  CHECK(cb_catalogue_check(4, "direct", buf, sizeof buf) == NULL);
  CHECK(cb_catalogue_check(3, "direct", buf, sizeof buf) != NULL);
  CHECK(strstr(buf, "names it 'll2'") != NULL);
  CHECK(cb_catalogue_check(8, "x", buf, sizeof buf) != NULL);
  CHECK(cb_catalogue_check(-1, "x", buf, sizeof buf) != NULL);
  /* NCCL's variants are the summary's references; ours are not. */
  for (int id = 0; id < CB_NUM_KIDS; id++)
    CHECK(cb_catalogue_is_nccl(id) == (strncmp(cb_catalogue[id].name, "nccl", 4) == 0));
  CHECK(!cb_catalogue_is_nccl(-1) && !cb_catalogue_is_nccl(CB_NUM_KIDS));
  return check_summary();
}
