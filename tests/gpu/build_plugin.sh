#!/usr/bin/env bash
# A plugin built as its user builds it, against a build of collbench:
#   tests/gpu/build_plugin.sh BUILD_DIR SOURCE_DIR
# builds the plugin of SOURCE_DIR (a CMake project that finds collbench:
# examples/plugin) against BUILD_DIR's own package (BUILD_DIR/package, the
# build tree's libcollbench and headers), into BUILD_DIR/plugin-NAME, NAME
# SOURCE_DIR's last folder, and prints the path of the one shared object it
# made, for --plugin or CB_PLUGINS (relative to the current folder when it is
# below it, so that the logs that name it carry no path of the machine). A
# mutant build's plugin is a mutant too
# (the package passes the mutation on). The log is BUILD_DIR/plugin-NAME.log.
# Fails with one line naming what failed.
set -uo pipefail
build=${1:?usage: build_plugin.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: build_plugin.sh BUILD_DIR SOURCE_DIR}
name=$(basename "$(cd "$src" && pwd)")
out=$build/plugin-$name
log=$out.log
fail() { echo "build_plugin.sh: $*" >&2; exit 1; }
[ -f "$src/CMakeLists.txt" ] || fail "$src has no CMakeLists.txt"
[ -f "$build/package/collbenchConfig.cmake" ] || fail "$build has no package (configure it first)"
[ -f "$build/libcollbench.so" ] || fail "$build has no libcollbench.so (build it first)"
cuda=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
{ cmake -S "$src" -B "$out" -Dcollbench_DIR="$(cd "$build" && pwd)/package" \
  ${cuda:+-DCMAKE_CUDA_COMPILER="$cuda"} && cmake --build "$out" -j "$(nproc)"; } >"$log" 2>&1 ||
  fail "$src did not build against $build (see $log)"
so=$(find "$out" -maxdepth 1 -name 'lib*.so' | head -2)
[ "$(echo "$so" | grep -c .)" -eq 1 ] || fail "$out holds $(echo "$so" | grep -c .) shared objects, not 1"
realpath --relative-base="$PWD" "$so"
