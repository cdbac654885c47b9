#!/usr/bin/env python3
"""A compiler launcher (CMAKE_<LANG>_COMPILER_LAUNCHER) for a build of a copy of
the tree that differs from the tree only in files the caller names: the object of
a source named in REUSE_COMPILE (relative paths, colon-separated) is compiled;
any other object is the original build's own, copied, since its source and
every header are the same as there (what an incremental build of the original
tree would keep). Used by test_new_kernel.py.

    REUSE_FROM=<original build> REUSE_COMPILE=<src>:<src> reuse_objects.py COMPILER ARGS...
"""

import os
import shutil
import subprocess
import sys


def arg_after(args, flag):
    for i, a in enumerate(args[:-1]):
        if a == flag:
            return args[i + 1]
    return None


def main():
    cmd = sys.argv[1:]
    obj, src = arg_after(cmd, "-o"), arg_after(cmd, "-c")
    build = os.getcwd()
    while build != "/" and not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        build = os.path.dirname(build)
    compile_these = [p for p in os.environ.get("REUSE_COMPILE", "").split(":") if p]
    if obj and src and not any(src.endswith("/" + p) for p in compile_these):
        rel = os.path.relpath(os.path.abspath(obj), build)
        old = os.path.join(os.environ["REUSE_FROM"], rel)
        if os.path.exists(old):
            shutil.copyfile(old, obj)
            for dep in (old + ".d", old[:-2] + ".d"):
                if os.path.exists(dep):
                    shutil.copyfile(dep, os.path.join(os.path.dirname(obj), os.path.basename(dep)))
            return 0
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
