#!/usr/bin/env python3
"""What the documentation points at lives in the repository.

    python3 tests/py/test_docs_in_repo.py

A clone has no ../shared/ (the design notes and reference output once kept beside
the repository): the README, docs/ and the results' READMEs must not send a reader
there, their relative links must resolve, and every repository path they quote in
backticks (scripts/..., tests/..., docs/..., ...) must exist. Standard library only.
"""

import glob
import os
import re
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOP = ("scripts/", "tests/", "docs/", "common/", "copy/", "src/", "tools/", ".ci/")
OUTSIDE = re.compile(r"\.\./shared|shared/(DESIGN|reference)|DESIGN\.md")


def docs():
    """The pages a user reads: README.md and docs/**/*.md (results/ is left as it is)."""
    pages = [os.path.join(REPO, "README.md")]
    pages += glob.glob(os.path.join(REPO, "docs", "**", "*.md"), recursive=True)
    return sorted(pages)


def quoted_paths(text):
    """Repository paths in backticks: `scripts/sweep.sh`, `tests/gpu/check.sh [BUILD]`."""
    for m in re.finditer(r"`([^`\n]+)`", text):
        word = m.group(1).split()[0] if m.group(1).split() else ""
        if word.startswith(TOP) and not re.search(r"[<>*{}…$]|\.\.\.", word):
            yield word.rstrip(".,:;")


class DocsStayInTheRepo(unittest.TestCase):
    def test_nothing_points_outside(self):
        for page in docs():
            with open(page, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    self.assertIsNone(OUTSIDE.search(line),
                                      f"{os.path.relpath(page, REPO)}:{n} points outside the "
                                      f"repository: {line.strip()}")

    def test_relative_links_resolve(self):
        for page in docs():
            text = open(page, encoding="utf-8").read()
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                if re.match(r"[a-z]+://|#|mailto:", target):
                    continue
                path = os.path.normpath(os.path.join(os.path.dirname(page),
                                                     target.split("#")[0]))
                self.assertTrue(path.startswith(REPO + os.sep) and os.path.exists(path),
                                f"{os.path.relpath(page, REPO)}: link {target} does not "
                                "resolve inside the repository")

    def test_quoted_paths_exist(self):
        for page in docs():
            text = open(page, encoding="utf-8").read()
            for p in quoted_paths(text):
                self.assertTrue(os.path.exists(os.path.join(REPO, p)),
                                f"{os.path.relpath(page, REPO)}: `{p}` is not in the "
                                "repository")


if __name__ == "__main__":
    unittest.main(verbosity=2)
