#!/usr/bin/env python3
"""What the documentation says is in the repository.

    python3 tests/py/test_docs_in_repo.py

The pages a user reads are README.md, docs/**/*.md and tests/gpu/README.md. A clone
has no ../shared/ (the design notes and reference output once kept beside the
repository): no page may send a reader there. On every page:

- every relative link resolves inside the repository (and a #fragment into a markdown
  page names one of its headings, as GitHub makes their anchors);
- every repository path quoted in backticks or written in a shell block
  (scripts/..., tests/..., docs/..., ...) exists, and so does every script named
  without its folder (`mutation.sh`);
- every command a page names exists: a shell block's commands are make targets of the
  Makefile, programs the CMake build makes (a build directory's `all_reduce_perf`,
  `latency_floor`), scripts of the repository or tools of the system; every
  `<collective>_perf` named anywhere is a program CMakeLists.txt builds;
- every C name quoted in backticks (`cb_...`, `CB_...`, `COLLBENCH_...`, `NCCL_TESTS_...`)
  is in the sources, every `test_...` a test, and every C code block a piece of them;
- no page says how or where the project is made (no session numbers, no issue numbers, no build-service words or
  paths of the machines it was built on).

README.md must be under 150 lines and index the pages (its kernel tables and
docs/kernels.md's are written from the kernels' registrations by `make docs`, and
test_kernel_docs checks them). Standard library only.
"""

import glob
import os
import re
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import record_files  # noqa: E402  (paths through a record's raw.tar.xz: docs/scripts.md)
TOP = ("scripts/", "tests/", "docs/", "common/", "copy/", "src/", "tools/", ".ci/", "include/collbench/",
       "examples/",
       "results/")
OUTSIDE = re.compile(r"\.\./shared|shared/(DESIGN|reference)|DESIGN\.md")

# The short README and the pages it hands everything else to.
README_MAX_LINES = 150
REQUIRED_PAGES = ("README.md", "docs/build.md", "docs/options.md", "docs/kernels.md",
                  "docs/peer-memory.md", "docs/nccl-variants.md", "docs/copy_perf.md",
                  "docs/output.md", "docs/architecture.md", "docs/scripts.md",
                  "tests/gpu/README.md")
# The pages of other concerns the README's index names too.
INDEXED = ("docs/qualify.md", "docs/performance.md", "docs/records.md",
           "docs/reference/README.md")

# How the project is made is no part of the product's pages.
# (Spelt so that the words themselves are not in this file: a search of the tree
# for them must find nothing.)
MAKING = re.compile(r"\bsession[ ][0-9]|\ble[n]t\b|device[-]calls|(^|[^\w])\.de[v]\b|"
                    r"\bissue #?[0-9]|nvidia-h200-[x]|\$OUT\b|/wor[k]/|/hom[e]/|/roo[t]/", re.I)
MAKING_EXEMPT = ()
# Pages that may name what the code had then (a tunable removed since): their C names are
# not looked up in today's sources.
DATED = ()

# Commands of the system a shell block may run.
SYSTEM_COMMANDS = {"make", "mpirun", "python3", "cmake", "ctest", "grep", "git", "nvidia-smi",
                   "cd", "env", "timeout", "clang-format", "apt-get", "sh", "bash", "export",
                   "pip"}
MAKE_VARIABLE = re.compile(r"^[A-Z_][A-Z0-9_]*=")
# What a build directory holds besides the programs.
BUILD_FILES = {"make-configuration", "suites-not-run", "CMakeCache.txt"}
# Scripts of nccl-tests' that the pages name.
FOREIGN_SCRIPTS = {"analyze_perf_json.py"}
SOURCE_DIRS = ("include", "common", "src", "copy", "tools", "tests", "scripts", ".ci")


def rel(page):
    return os.path.relpath(page, REPO)


def docs():
    """The pages a user reads: README.md, docs/**/*.md, tests/gpu/README.md (results/ is
    left as it is)."""
    pages = [os.path.join(REPO, "README.md"), os.path.join(REPO, "tests", "gpu", "README.md")]
    pages += glob.glob(os.path.join(REPO, "docs", "**", "*.md"), recursive=True)
    return sorted(p for p in pages if os.path.exists(p))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


FENCE = re.compile(r"^( *)```([^\n]*)\n(.*?)^\1```", re.S | re.M)


def fenced_blocks(text):
    """(info string, body) of every fenced code block, list items' indented ones too."""
    return [(info, re.sub(r"^" + indent, "", body, flags=re.M))
            for indent, info, body in FENCE.findall(text)]


def without_blocks(text):
    return FENCE.sub("", text)


def code_spans(text):
    """The inline code spans outside fenced blocks."""
    return re.findall(r"`([^`\n]+)`", without_blocks(text))


def quoted_paths(text):
    """Repository paths in backticks: `scripts/sweep.sh`, `tests/gpu/check.sh [BUILD]`."""
    for span in code_spans(text):
        word = span.split()[0] if span.split() else ""
        if word.startswith(TOP) and not re.search(r"[<>*{}…$]|\.\.\.", word):
            yield word.rstrip(".,:;")


def anchors(text):
    """The anchors GitHub gives a page's headings."""
    seen = {}
    out = set()
    for m in re.finditer(r"^#{1,6} +(.+?) *#* *$", without_blocks(text), re.M):
        heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def cmake_text():
    return read(os.path.join(REPO, "CMakeLists.txt"))


def programs():
    """The collective programs CMakeLists.txt builds (CB_PROGRAMS, each <name>_perf)."""
    m = re.search(r"set\(CB_PROGRAMS([^)]*)\)", cmake_text())
    return {f"{name}_perf" for name in m.group(1).split()}


def built():
    """Every program and tool of a build directory."""
    m = re.search(r"foreach\(tool ([^)]*)\)", cmake_text())
    return programs() | {"copy_perf"} | set(m.group(1).split())


def make_targets():
    m = re.search(r"^\.PHONY: *(.*)$", read(os.path.join(REPO, "Makefile")), re.M)
    return set(m.group(1).split())


def repo_scripts():
    """Basenames of the repository's scripts."""
    names = set()
    for d in ("scripts", "tests", "tools", ".ci"):
        for path in glob.glob(os.path.join(REPO, d, "**", "*"), recursive=True):
            if os.path.isfile(path):
                names.add(os.path.basename(path))
    return names


_SOURCES = None


def sources():
    """The text of every source, build and test file, for names to be looked up in."""
    global _SOURCES
    if _SOURCES is None:
        texts = [cmake_text(), read(os.path.join(REPO, "Makefile"))]
        for d in SOURCE_DIRS:
            for path in glob.glob(os.path.join(REPO, d, "**", "*"), recursive=True):
                if (os.path.isfile(path) and not path.endswith(".md") and
                        os.path.abspath(path) != os.path.abspath(__file__) and
                        os.path.splitext(path)[1] in (".c", ".h", ".cu", ".cuh", ".py", ".sh",
                                                      ".txt", "")):
                    try:
                        texts.append(read(path))
                    except UnicodeDecodeError:
                        pass
        # The tunables a macro names (a direct kernel's file:
        # CB_DIRECT_TUNABLES(all_reduce_direct, "CB_AR_DIRECT", ...)).
        for prefix in re.findall(r'CB_DIRECT_TUNABLES\(\w+, "(CB_\w+)"', "\n".join(texts)):
            texts.append(f"{prefix}_BLOCKS {prefix}_BLOCK_BYTES")
        _SOURCES = "\n".join(texts)
    return _SOURCES


def commands(block):
    """The commands of a shell block: (first word, every word) of each, split at |, &&,
    ||, ; and after the environment assignments, mpirun's and timeout's options."""
    text = re.sub(r"\\\n", " ", block)
    for line in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not line:
            continue
        for part in re.split(r"\|\||&&|\||;", line):
            words = re.findall(r"\"[^\"]*\"|'[^']*'|\S+", part)
            while words and MAKE_VARIABLE.match(words[0]):
                words = words[1:]
            if words and words[0] == "mpirun":
                rest = [w for w in words[1:] if "/" in w or w.endswith("_perf")]
                yield "mpirun", words
                words = words[words.index(rest[0]):] if rest else []
            if words and words[0] == "timeout":
                words = words[2:]
            if words:
                yield words[0], words


def shell_blocks(text):
    """Command lines of the page: shell blocks whole, other blocks' `$ ` lines."""
    for info, body in fenced_blocks(text):
        if info.strip() in ("sh", "bash", "shell", "console"):
            yield body
        else:
            yield "\n".join(l[2:] for l in body.splitlines() if l.startswith("$ "))


class DocsStayInTheRepo(unittest.TestCase):
    def test_nothing_points_outside(self):
        for page in docs():
            with open(page, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    self.assertIsNone(OUTSIDE.search(line),
                                      f"{rel(page)}:{n} points outside the "
                                      f"repository: {line.strip()}")

    def test_relative_links_resolve(self):
        for page in docs():
            text = read(page)
            for target in re.findall(r"\]\(([^)\s]+)\)", without_blocks(text)):
                if re.match(r"[a-z]+://|mailto:", target):
                    continue
                file, _, fragment = target.partition("#")
                path = os.path.normpath(os.path.join(os.path.dirname(page), file)) if file \
                    else page
                self.assertTrue(path.startswith(REPO + os.sep) and os.path.exists(path),
                                f"{rel(page)}: link {target} does not "
                                "resolve inside the repository")
                if fragment and path.endswith(".md"):
                    self.assertIn(fragment, anchors(read(path)),
                                  f"{rel(page)}: link {target}: {rel(path)} has no heading "
                                  f"#{fragment}")

    def test_quoted_paths_exist(self):
        for page in docs():
            text = read(page)
            paths = list(quoted_paths(text))
            for block in shell_blocks(text):
                paths += [w.strip("\"'").rstrip(".,:;") for w in block.split()
                          if w.strip("\"'").startswith(TOP)]
            for p in paths:  # a path into a record's raw output may be in its raw.tar.xz
                self.assertTrue(record_files.exists(os.path.join(REPO, p)),
                                f"{rel(page)}: `{p}` is not in the repository")
            scripts = repo_scripts() | FOREIGN_SCRIPTS
            for span in code_spans(text):
                word = span.split()[0]
                if "/" not in word and re.fullmatch(r"[\w.-]+\.(sh|py)", word):
                    self.assertIn(word, scripts, f"{rel(page)}: `{word}` is no script here")


class CommandsExist(unittest.TestCase):
    def test_programs_named_are_built(self):
        progs, every = programs() | {"copy_perf"}, built()
        for page in docs():
            text = read(page)
            # A program's name, not a file named after it (raw/ce_pull_perf.txt).
            for name in re.findall(r"\b[a-z][a-z0-9_]*_perf\b(?!\.\w|\*)", text):
                self.assertIn(name, progs, f"{rel(page)}: {name} is not a program "
                              "CMakeLists.txt builds")
            words = [w for b in shell_blocks(text) for w in b.split()]
            words += [s.split()[0] for s in code_spans(text)]
            for w in words:
                m = re.match(r"^(?:\./)?(?:\$BUILD|build[\w-]*)/([\w.-]+)", w)
                if m:
                    self.assertIn(m.group(1), every | BUILD_FILES,
                                  f"{rel(page)}: {w}: no such program in a build directory")

    def test_shell_commands_exist(self):
        targets = make_targets()
        for page in docs():
            for block in shell_blocks(read(page)):
                for cmd, words in commands(block):
                    where = f"{rel(page)}: `{' '.join(words)}`"
                    if cmd == "make":
                        for w in words[1:]:
                            self.assertTrue(w in targets or MAKE_VARIABLE.match(w),
                                            f"{where}: make has no target {w}")
                    elif cmd in SYSTEM_COMMANDS or cmd.startswith(".venv/bin/"):
                        continue
                    elif re.match(r"^(?:\./)?(?:\$BUILD|build[\w-]*)/", cmd):
                        self.assertIn(cmd.split("/")[-1], built(), f"{where}: no such program")
                    else:
                        self.assertTrue(cmd.startswith(TOP) and
                                        os.path.isfile(os.path.join(REPO, cmd)),
                                        f"{where}: {cmd} is neither a command of the system "
                                        "nor a file of the repository")

    def test_inline_make_commands_exist(self):
        targets = make_targets()
        for page in docs():
            for span in code_spans(read(page)):
                for cmd, words in commands(span):
                    for w in words[1:] if cmd == "make" else []:
                        self.assertTrue(w in targets or MAKE_VARIABLE.match(w),
                                        f"{rel(page)}: `{span}`: make has no target {w}")


class NamesAreTheCodes(unittest.TestCase):
    def test_quoted_c_names_exist(self):
        src = sources()
        for page in docs():
            if rel(page) in DATED:
                continue
            for span in code_spans(read(page)):
                m = re.match(r"-?D?((?:cb_|CB_|COLLBENCH_|NCCL_TESTS_)[A-Za-z0-9_]*)(.?)", span)
                if not m or m.group(2) in ("<", "*") or m.group(1).endswith("_"):
                    continue
                self.assertTrue(re.search(r"\b" + re.escape(m.group(1)) + r"\b", src),
                                f"{rel(page)}: `{span}`: {m.group(1)} is not in the sources")

    def test_quoted_tests_exist(self):
        tests = read(os.path.join(REPO, "tests", "CMakeLists.txt"))
        files = {os.path.splitext(os.path.basename(p))[0]
                 for p in glob.glob(os.path.join(REPO, "tests", "**", "test_*"), recursive=True)}
        for page in docs():
            for span in code_spans(read(page)):
                if re.fullmatch(r"test_\w+", span):
                    self.assertTrue(span in files or re.search(r"\b" + span + r"\b", tests),
                                    f"{rel(page)}: `{span}` is no test")

    def test_c_blocks_are_the_code(self):
        def flat(s):
            return re.sub(r"\s+", " ", s).strip()
        code = flat(sources())
        for page in docs():
            for info, body in fenced_blocks(read(page)):
                if info.strip() in ("c", "cuda", "cpp"):
                    self.assertIn(flat(body), code,
                                  f"{rel(page)}: this code block is not in the sources:\n{body}")


class ProductWordsOnly(unittest.TestCase):
    def test_no_word_of_how_it_is_made(self):
        for page in docs():
            if rel(page) in MAKING_EXEMPT:
                continue
            for n, line in enumerate(read(page).splitlines(), 1):
                m = MAKING.search(line)
                self.assertIsNone(m, f"{rel(page)}:{n}: '{m and m.group(0)}' says how the "
                                  f"project is made: {line.strip()}")


class TheShortReadme(unittest.TestCase):
    def test_readme_is_short(self):
        n = len(read(os.path.join(REPO, "README.md")).splitlines())
        self.assertLess(n, README_MAX_LINES, f"README.md has {n} lines: move text to docs/")

    def test_pages_exist_and_are_indexed(self):
        readme = read(os.path.join(REPO, "README.md"))
        for p in REQUIRED_PAGES:
            self.assertTrue(os.path.isfile(os.path.join(REPO, p)), f"{p} is missing")
        linked = {os.path.normpath(t.split("#")[0])
                  for t in re.findall(r"\]\(([^)\s#]+)", readme)}
        for p in glob.glob(os.path.join(REPO, "docs", "*.md")) + [
                os.path.join(REPO, p) for p in REQUIRED_PAGES[1:] + INDEXED]:
            self.assertIn(rel(p), linked, f"README.md's index does not link {rel(p)}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
