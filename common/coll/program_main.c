/* The main of every collective program. Its collective (src/<program>.c:
 * shape, NCCL call, kernel table) is named by the build: CB_COLLECTIVE is
 * cb_<program>_collective (CMakeLists.txt). */
#include "collective.h"
#include "runner.h"

extern const cb_collective CB_COLLECTIVE;

int main(int argc, char **argv) {
  return cb_main(&CB_COLLECTIVE, argc, argv);
}
