/* The kernel catalogue (common/coll/catalogue.c) and the tables the
 * programs collect from the kernels' registrations (registry.h): ids are
 * the catalogue's, in order, whatever order the registrations come in; a
 * row naming no kind, a kind twice, or a name that is no -k word makes no
 * table; the rows of every program are those docs/kernels.md lists (its
 * generated tables are checked by test_kernel_docs). */
#include <stdio.h>
#include <string.h>

#include "catalogue.h"
#include "check.h"
#include "collectives.h"
#include "registry.h"

static void test_catalogue_table(void) {
  char buf[256];
  CHECK(cb_catalogue_size >= 12);
  for (int i = 0; i < cb_catalogue_size; i++) {
    const cb_catalogue_entry *e = &cb_catalogue[i];
    CHECKF(e->id == i, "entry %d has id %d", i, e->id);
    CHECKF(cb_kernel_name_check(e->name, buf, sizeof buf) == NULL, "%s", buf);
    CHECKF(cb_catalogue_find(e->name) == e, "%s: named twice", e->name);
    CHECKF(e->what && e->what[0] && !strchr(e->what, '|'), "%s: its line", e->name);
    /* NCCL's variants are the summary's references; ours are not. */
    CHECK(cb_catalogue_is_nccl(i) == (strncmp(e->name, "nccl", 4) == 0));
  }
  CHECK(!cb_catalogue_is_nccl(-1) && !cb_catalogue_is_nccl(cb_catalogue_size));
  CHECK(cb_catalogue_find("oneshot") == NULL);
  CHECK_STR(cb_catalogue[CB_KID_NCCL].name, "nccl");
  CHECK(cb_catalogue_check(4, "direct", buf, sizeof buf) == NULL);
  CHECK(cb_catalogue_check(3, "direct", buf, sizeof buf) != NULL);
  CHECK_CONTAINS(buf, "names it 'll2'");
  CHECK(cb_catalogue_check(cb_catalogue_size, "x", buf, sizeof buf) != NULL);
  CHECK(cb_catalogue_check(-1, "x", buf, sizeof buf) != NULL);
}

static void test_names(void) {
  char buf[256];
  CHECK(cb_kernel_name_check("hier-direct", buf, sizeof buf) == NULL);
  CHECK(cb_kernel_name_check("oneshot-read-16", buf, sizeof buf) == NULL); /* 15 */
  CHECK_STR(cb_kernel_name_check("oneshot-read-160", buf, sizeof buf),
            "kernel name 'oneshot-read-160' has 16 characters: a name takes 1 to 15");
  CHECK_STR(cb_kernel_name_check("", buf, sizeof buf),
            "kernel name '' has 0 characters: a name takes 1 to 15");
  CHECK_STR(cb_kernel_name_check("one,shot", buf, sizeof buf),
            "kernel name 'one,shot': a name takes only a-z, 0-9 and '-'");
  CHECK(cb_kernel_name_check("Ring", buf, sizeof buf) != NULL);
  CHECK(cb_kernel_name_check("one shot", buf, sizeof buf) != NULL);
  CHECK_STR(cb_kernel_name_check("2shot", buf, sizeof buf),
            "kernel name '2shot' starts with a digit: -k would take it for an id");
}

/* Rows registered by hand, in no order. */
static const cb_kernel ring = {.name = "ring", .summary = "r"}, ll = {.name = "ll", .summary = "l"},
                       nccl = {.name = "nccl", .summary = "n"}, odd = {.name = "oneshot"},
                       wide = {.name = "a-name-of-16-chr"};
static const cb_kernel_entry e_ring = {"all_reduce", &ring, NULL}, e_ll = {"all_reduce", &ll, NULL},
                             e_nccl = {"all_reduce", &nccl, NULL},
                             e_other = {"all_gather", &ll, NULL},
                             e_odd = {"all_reduce", &odd, NULL},
                             e_wide = {"all_reduce", &wide, NULL};

static void test_collect_from(void) {
  char why[256];
  cb_collective c;
  const cb_kernel_entry *const some[] = {&e_ll, &e_other, &e_ring, &e_nccl};
  CHECK(cb_collective_collect_from(&cb_shape_all_reduce, some, 4, NULL, 0, &c, why, sizeof why) ==
        NULL);
  CHECK_EQ_INT(c.nkernels, 3);
  if (c.nkernels == 3) {
    CHECK(c.kernels[0]->id == 0 && !strcmp(c.kernels[0]->name, "nccl"));
    CHECK(c.kernels[1]->id == 1 && !strcmp(c.kernels[1]->name, "ring"));
    CHECK(c.kernels[2]->id == 2 && !strcmp(c.kernels[2]->summary, "l"));
  }
  cb_collective_free(&c);
  /* A plugin's rows follow, ids as given. */
  cb_kernel extra = {.id = 12, .name = "oneshot"};
  const cb_kernel *const extras[] = {&extra};
  CHECK(cb_collective_collect_from(&cb_shape_all_gather, some, 4, extras, 1, &c, why, sizeof why) ==
        NULL);
  CHECK_EQ_INT(c.nkernels, 2);
  if (c.nkernels == 2) CHECK(c.kernels[0]->id == 2 && c.kernels[1]->id == 12);
  cb_collective_free(&c);
  const cb_kernel_entry *const twice[] = {&e_ll, &e_ring, &e_ll};
  CHECK_STR(
      cb_collective_collect_from(&cb_shape_all_reduce, twice, 3, NULL, 0, &c, why, sizeof why),
      "all_reduce has two kernels named 'll'");
  CHECK(c.kernels == NULL && c.nkernels == 0);
  const cb_kernel_entry *const unknown[] = {&e_ring, &e_odd};
  CHECK_STR(
      cb_collective_collect_from(&cb_shape_all_reduce, unknown, 2, NULL, 0, &c, why, sizeof why),
      "all_reduce's kernel 'oneshot' names no kind of the catalogue "
      "(common/coll/catalogue.c)");
  const cb_kernel_entry *const too_long[] = {&e_wide};
  CHECK(cb_collective_collect_from(&cb_shape_all_reduce, too_long, 1, NULL, 0, &c, why,
                                   sizeof why) != NULL);
}

/* The tables the programs collect from this library's registrations. */
static void check_program(const cb_coll_shape *shape, const char *ids) {
  char why[256], got[64] = "";
  cb_collective c;
  CHECKF(cb_collective_collect(shape, NULL, 0, &c, why, sizeof why) == NULL, "%s: %s", shape->name,
         why);
  for (int i = 0; i < c.nkernels; i++) {
    size_t used = strlen(got);
    snprintf(got + used, sizeof got - used, "%s%d", i ? " " : "", c.kernels[i]->id);
  }
  CHECKF(!strcmp(got, ids), "%s: ids %s, expected %s", shape->name, got, ids);
  cb_collective_free(&c);
}

static void test_programs(void) {
  size_t n;
  CHECK(cb_registry_kernels(&n) != NULL && n > 60);
  check_program(&cb_shape_all_reduce, "0 1 2 3 4 5 6 7 8 9 10 11");
  check_program(&cb_shape_all_gather, "0 1 2 4 5 6 7 8 9 10 11");
  check_program(&cb_shape_reduce_scatter, "0 1 2 4 5 6 7 8 9 10 11");
  check_program(&cb_shape_alltoall, "0 1 2 4 5 6 7");
  check_program(&cb_shape_sendrecv, "0 1 2 4 5 6 7");
  check_program(&cb_shape_broadcast, "0 1 2 4 5 6 7 8 9 10 11");
  check_program(&cb_shape_reduce, "0 1 2 4 6 7");
  check_program(&cb_shape_gather, "0 2 4 5 6 7");
  check_program(&cb_shape_scatter, "0 2 4 5 6 7");
  check_program(&cb_shape_alltoallv, "0 6 7");
  check_program(&cb_shape_hypercube, "0 6 7");
}

int main(void) {
  test_catalogue_table();
  test_names();
  test_collect_from();
  test_programs();
  return check_summary();
}
