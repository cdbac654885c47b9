#!/usr/bin/env python3
"""A kernel of a new kind added to a copy of the tree as docs/adding-a-kernel.md says
(its steps are read from the page): the copy differs from the tree in one new file
and one line of the catalogue, it builds, and its all_reduce_perf lists the kernel.
Then a kernel of a kind the catalogue has, for a program that lacks it, is one more
new file, which its program lists after an incremental build.

    python3 tests/py/test_new_kernel.py REPO BUILD_DIR WORK_DIR

The copy's build takes the original build's object of every source the change left
as it was (tests/py/reuse_objects.py, as an incremental build of the tree would) and
compiles the rest, so BUILD_DIR must be built. Standard library only.
"""

import difflib
import os
import re
import shutil
import subprocess
import sys
import unittest

REPO = BUILD = WORK = None
GUIDE = "docs/adding-a-kernel.md"
CATALOGUE = "common/coll/catalogue.c"

# A kernel of the kind ring for gather_perf, which has none: a row registered by its
# own file, whose setup refuses every run (the copy is only built and listed).
GATHER_RING = r'''/* A stand-in of the copy-the-tree test: gather -k ring. */
#include "collbench/kernel.h"

static void refuse(cb_kernel_ctx *ctx, cb_setup_reply *reply) {
  (void)ctx;
  cb_kernel_refuse(reply, "a stand-in");
}
static void nothing(cb_kernel_ctx *ctx) { (void)ctx; }
static void launch(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  (void)ctx, (void)call, (void)stream;
}
static const cb_kernel gather_ring = {
    .name = "ring",
    .summary = "a stand-in ring for gather",
    .limits = {.placements = CB_OUT_OF_PLACE, .dtypes = CB_ALL_DTYPES, .ops = CB_ALL_OPS},
    .setup = refuse,
    .teardown = nothing,
    .launch = launch,
};
CB_REGISTER_KERNEL(gather, gather_ring, NULL);
'''


def tree_files(root):
    """The tree's files: as git has them when root is a checkout's top (tracked, and
    untracked ones it does not ignore), else every file outside build directories and
    virtual environments (a copy)."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if os.path.realpath(top) != os.path.realpath(root):
            raise OSError("not the checkout's top")
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"],
                             capture_output=True, check=True).stdout
        return sorted(p for p in out.decode().split("\0") if p and os.path.isfile(
            os.path.join(root, p)))
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(("build", ".venv", ".git"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return sorted(files)


def copy_tree(src, dst):
    for p in tree_files(src):
        os.makedirs(os.path.dirname(os.path.join(dst, p)), exist_ok=True)
        shutil.copy2(os.path.join(src, p), os.path.join(dst, p))


def guide_steps():
    """The page's two steps for a new kind: its shell block's cp command (from,
    to) and the catalogue's new line."""
    text = open(os.path.join(REPO, GUIDE), encoding="utf-8").read()
    cp = re.search(r"<!-- a new kind: the file -->\s*```text\n\s*cp (\S+) (\S+)\n```", text)
    line = re.search(r"<!-- a new kind: the catalogue's line -->\s*```text\n(.*)\n```", text)
    assert cp and line, f"{GUIDE} has no steps for a new kind"
    return cp.group(1), cp.group(2), line.group(1)


def cache_value(key):
    for line in open(os.path.join(BUILD, "CMakeCache.txt"), encoding="utf-8"):
        if line.startswith(key + ":"):
            return line.split("=", 1)[1].strip()
    return None


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
    return proc.stdout


class NewKernel(unittest.TestCase):
    def test_one_file_and_one_catalogue_line(self):
        copy = os.path.join(WORK, "tree")
        shutil.rmtree(WORK, ignore_errors=True)
        copy_tree(REPO, copy)
        src, dst, line = guide_steps()
        shutil.copyfile(os.path.join(copy, src), os.path.join(copy, dst))
        cat = os.path.join(copy, CATALOGUE)
        text = open(cat, encoding="utf-8").read()
        text = text.replace("};\n/* clang-format on */", line + "\n};\n/* clang-format on */", 1)
        open(cat, "w", encoding="utf-8").write(text)

        # The change: one new file, one line more in the catalogue, nothing else.
        before, after = tree_files(REPO), tree_files(copy)
        self.assertEqual(sorted(set(after) - set(before)), [dst])
        self.assertEqual(set(before) - set(after), set())
        changed = [p for p in before if open(os.path.join(REPO, p), "rb").read() !=
                   open(os.path.join(copy, p), "rb").read()]
        self.assertEqual(changed, [CATALOGUE])
        diff = [d for d in difflib.unified_diff(
            open(os.path.join(REPO, CATALOGUE), encoding="utf-8").read().splitlines(),
            text.splitlines(), lineterm="", n=0) if d[:1] in "+-" and d[:3] not in ("+++", "---")]
        self.assertEqual(diff, ["+" + line])

        # It builds, and the program lists the kernel.
        build = os.path.join(copy, "build")
        launcher = os.path.join(REPO, "tests", "py", "reuse_objects.py")
        env = dict(os.environ, REUSE_FROM=BUILD, REUSE_COMPILE=f"{dst}:{CATALOGUE}")
        run(["cmake", "-S", copy, "-B", build, "-DBUILD_TESTING=OFF",
             f"-DCMAKE_CUDA_COMPILER={cache_value('CMAKE_CUDA_COMPILER')}",
             f"-DCMAKE_CUDA_ARCHITECTURES={cache_value('CMAKE_CUDA_ARCHITECTURES')}",
             f"-DCMAKE_C_COMPILER_LAUNCHER={launcher}",
             f"-DCMAKE_CUDA_COMPILER_LAUNCHER={launcher}"], env=env)
        run(["cmake", "--build", build, "--target", "all_reduce_perf", "gather_perf", "-j2"],
            env=env)
        listing = run([os.path.join(build, "all_reduce_perf"), "-k", "list"])
        self.assertRegex(listing, r"\n  12  oneshot     one-shot read: ")

        # A kind the catalogue has, for a program without it: one more file.
        self.assertNotRegex(run([os.path.join(build, "gather_perf"), "-k", "list"]),
                            r"\n   1  ring ")
        new = "src/kernels/gather_ring.cu"
        open(os.path.join(copy, new), "w", encoding="utf-8").write(GATHER_RING)
        self.assertEqual(sorted(set(tree_files(copy)) - set(before)), sorted([dst, new]))
        env["REUSE_COMPILE"] += ":" + new
        run(["cmake", "--build", build, "--target", "gather_perf", "-j2"], env=env)
        self.assertRegex(run([os.path.join(build, "gather_perf"), "-k", "list"]),
                         r"\n   1  ring        a stand-in ring for gather\n")


if __name__ == "__main__":
    REPO, BUILD, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
    unittest.main(argv=sys.argv[:1], verbosity=2)
