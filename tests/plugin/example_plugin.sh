#!/usr/bin/env bash
# examples/plugin as its user builds it: collbench installed into a prefix
# (cmake --install), the plugin built out of the tree against that
# installation (find_package(collbench)), the installed all_reduce_perf listing
# its kernel with --plugin, and refusing, in one line, a plugin built for
# another kernel API version.
#   tests/plugin/example_plugin.sh BUILD_DIR WORK_DIR OTHER_API_PLUGIN [CMAKE_ARGS...]
# CMAKE_ARGS configure the plugin's build (the CUDA compiler, say).
set -euo pipefail
build=$1 work=$2 other_api=$3
shift 3
repo=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
fail() { echo "example_plugin.sh: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
  fail "cmake --install failed: $(tail -3 "$work/install.log")"
for f in bin/all_reduce_perf lib/libcollbench.so include/collbench/kernel.h \
  include/collbench/device/handshake.cuh lib/cmake/collbench/collbenchConfig.cmake; do
  [ -e "$work/prefix/$f" ] || fail "the installation lacks $f"
done

{ cmake -S "$repo/examples/plugin" -B "$work/plugin" -DCMAKE_PREFIX_PATH="$work/prefix" "$@" &&
  cmake --build "$work/plugin"; } >"$work/plugin.log" 2>&1 ||
  fail "examples/plugin did not build: $(grep -m3 -E 'error|Error' "$work/plugin.log")"
plugin=$work/plugin/liboneshot.so
[ -f "$plugin" ] || fail "examples/plugin built no liboneshot.so"

list=$("$work/prefix/bin/all_reduce_perf" --plugin "$plugin" -k list) ||
  fail "all_reduce_perf --plugin $plugin -k list failed"
echo "$list" | grep -q '^  12  oneshot     one-shot read: ' ||
  fail "all_reduce_perf -k list does not list the plugin's kernel as 12 oneshot: $list"
[ "$(echo "$list" | grep -c oneshot)" -eq 1 ] || fail "oneshot listed more than once: $list"

set +e
out=$("$work/prefix/bin/all_reduce_perf" --plugin "$other_api" -k list 2>&1)
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
  echo "$out" | grep -q 'was built for kernel API version 99, and this collbench has version' ||
  fail "a plugin of another API version was not refused in one line (exit $rc): $out"
echo "example_plugin.sh: examples/plugin built against $work/prefix and listed; another API version refused"
