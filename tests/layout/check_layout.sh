#!/usr/bin/env bash
# The source tree's layout, as docs/architecture.md states it (Layout): common/ holds
# only the folders that name its parts; includes point one way (include/collbench, the
# public kernel API and device kit, below everything: include <- base <- peer <- coll <-
# src, base <- load <- coll, base <- peer <- copy, base <- load <- copy, and include <-
# mesh <- src/kernels: our kernels see the public API alone); every quoted include of a
# file resolves in its own folder or in a layer below it, never by climbing out with
# "../"; the public API includes nothing but itself.
# Usage: check_layout.sh REPO_ROOT. Exits non-zero naming each violation.
set -u
root=${1:?usage: check_layout.sh REPO_ROOT}
cd "$root" || exit 2
bad=0
fail() { echo "layout: $*" >&2; bad=1; }

# common/ has folders only, and exactly these. An empty folder is no part
# (git does not keep one; a checkout moved from an older layout may leave it).
for f in common/*; do
  case "$f" in
    common/base | common/peer | common/load | common/coll | common/mesh) ;;
    *) [ -d "$f" ] && [ -z "$(find "$f" -type f | head -1)" ] ||
      fail "$f: common/ holds only base/, peer/, load/, coll/ and mesh/" ;;
  esac
done

# The include roots each folder may use, lowest layer last.
SRC_ROOTS="src common/mesh common/coll common/load common/peer common/base include"
roots_for() {
  case "$1" in
    include/collbench*) echo "include" ;;
    common/base*) echo "common/base include" ;;
    common/peer*) echo "common/peer common/base include" ;;
    common/load*) echo "common/load common/base include" ;;
    common/coll*) echo "common/coll common/load common/peer common/base include" ;;
    # What our kernels' families share is written against the public API alone.
    common/mesh*) echo "common/mesh include" ;;
    copy*) echo "copy common/load common/peer common/base include" ;;
    # A family of kernels (src/kernels/<family>/) includes its own folder, what the
    # families share and the public API, nothing of the harness: our kernels are
    # written as a plugin is. The ce kernels copy with the direct family's copy
    # too (ce_push.cu).
    src/kernels/ce/*) echo "src/kernels/ce src/kernels/direct common/mesh include" ;;
    src/kernels/*) echo "$(echo "$1" | cut -d/ -f1-3) common/mesh include" ;;
    src* | tools*) echo "$SRC_ROOTS" ;;
  esac
}

# include/ holds the public API's one folder.
for f in include/*; do
  [ "$f" = include/collbench ] || fail "$f: include/ holds only collbench/"
done

for f in $(find include common copy src tools -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort); do
  dir=$(dirname "$f")
  roots=$(roots_for "$f")
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
    case "$inc" in ../*) fail "$f: #include \"$inc\" climbs out of its folder" && continue ;; esac
    found=
    case "$f:$inc" in
      include/*:collbench/*) ;;
      include/*) fail "$f: #include \"$inc\": the public API includes only collbench/..." && continue ;;
    esac
    [ -f "$dir/$inc" ] && found=1
    for r in $roots; do [ -f "$r/$inc" ] && found=1; done
    [ -n "$found" ] || fail "$f: #include \"$inc\" is not in its folder or a layer below ($roots)"
  done
done

# Every C/CUDA source of a library folder is built.
for f in $(find common copy -maxdepth 2 -type f \( -name '*.c' -o -name '*.cu' \) | grep -v '^copy/kernels/' | grep -v '^copy/copy_perf.c$' | sort); do
  grep -q "$f" CMakeLists.txt || fail "$f is not in any library of CMakeLists.txt"
done

[ $bad = 0 ] && echo "layout: OK"
exit $bad
