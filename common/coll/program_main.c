/* The main of every collective program. The build names its collective
 * (CMakeLists.txt: CB_COLLECTIVE_NAME, "all_reduce"), whose file
 * src/<program>.c registers its shape; its kernels are those registered for
 * that name (registry.h). */
#include "error.h"
#include "registry.h"
#include "runner.h"

int main(int argc, char **argv) {
  const cb_coll_shape *shape = cb_registry_collective(CB_COLLECTIVE_NAME);
  if (!shape) cb_fatal("no collective %s is registered in this build", CB_COLLECTIVE_NAME);
  return cb_main(shape, argc, argv);
}
