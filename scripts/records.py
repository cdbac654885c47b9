#!/usr/bin/env python3
"""The records under results/: their layout, packing, and the budget they are held to.

    scripts/records.py list [RESULTS]            every record, newest first per machine
    scripts/records.py pack RECORD [--budget B]  raw/ -> raw.tar.xz (and raw/ removed)
    scripts/records.py unpack RECORD             raw.tar.xz -> raw/ (the archive kept)
    scripts/records.py budget [RESULTS]          exit 1 naming each record or file over
                                                 the budget (docs/scripts.md, "Records")

A record is results/<machine>/<date>-<commit>[-<what>]/ with manifest.md (commands,
machine, versions, commit, date), report.md (scripts/report.py RECORD writes it), and
its raw output as one archive, raw.tar.xz, holding raw/: the JSON of every run (run.json
beside a sweep's), the text logs. scripts/record_files.py reads paths through raw/ from
the archive. PNGs are drawn again by report.py and are not kept (results/.gitignore),
but for the few a page under docs/ shows.

The budget: results/ at most 8 MB and 250 files, one record at most 1 MB, no PNG that
no page links to, no record kept unpacked. Exit 0, 1 (over the budget, or a refusal),
2 (bad input), one line each.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import program_logs as pl  # noqa: E402
import record_files as rf  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "results")
ARCHIVE = "raw" + rf.ARCHIVE_SUFFIX
MANIFEST = "manifest.md"
REPORT = "report.md"
BUDGET_BYTES = 8 * 1000 * 1000
BUDGET_FILES = 250
RECORD_BYTES = 1000 * 1000
DATE_ROW = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T, ]+(?:from )?(\d{2}:\d{2}))?")
NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})-([0-9a-f]{7,40})(?:-([a-z0-9-]+))?$")


class RecordError(Exception):
    """A record that cannot be used as asked; str() is one line."""


@dataclass(frozen=True)
class Record:
    path: str

    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.path))

    @property
    def machine(self) -> str:
        return os.path.basename(os.path.dirname(os.path.normpath(self.path)))

    @property
    def date(self) -> str:
        m = NAME.match(self.name)
        return m.group(1) if m else ""

    @property
    def commit(self) -> str:
        m = NAME.match(self.name)
        return m.group(2) if m else ""

    @property
    def raw(self) -> str:
        """raw/ of the record (a folder, or read through raw.tar.xz)."""
        return os.path.join(self.path, "raw")

    def part(self, *names) -> str:
        return os.path.join(self.raw, *names)

    def has(self, *names) -> bool:
        return rf.exists(self.part(*names))

    @property
    def started(self) -> str:
        """When it ran, as its manifest's date row says ("2026-12-06T17:10:36Z",
        "2026-11-30, 03:58-04:14 UTC"): "YYYY-MM-DD HH:MM", or the name's date."""
        try:
            with open(os.path.join(self.path, MANIFEST), encoding="utf-8") as f:
                row = next((l for l in f if l.startswith("| date |")), "")
        except OSError:
            row = ""
        m = DATE_ROW.search(row)
        if not m:
            return self.date
        return f"{m.group(1)} {m.group(2) or ''}".strip()

    @property
    def sort_key(self) -> tuple:
        """Newest last: when it ran, then the name."""
        return (self.started, self.name)


def is_record(path: str) -> bool:
    return os.path.isfile(os.path.join(path, MANIFEST))


def find_records(results: str = RESULTS) -> list:
    """Every record under results/<machine>/, oldest first within a machine."""
    out = []
    if not os.path.isdir(results):
        return out
    for machine in sorted(os.listdir(results)):
        mdir = os.path.join(results, machine)
        if not os.path.isdir(mdir):
            continue
        recs = [Record(os.path.join(mdir, n)) for n in os.listdir(mdir)
                if is_record(os.path.join(mdir, n))]
        out += sorted(recs, key=lambda r: r.sort_key)
    return out


def by_machine(records: list) -> dict:
    """{machine: [records, oldest first]}."""
    out = {}
    for r in records:
        out.setdefault(r.machine, []).append(r)
    return out


# --------------------------------------------------------------------------- pack

def record_bytes(path: str) -> int:
    """What the record weighs in the tree: its files but raw/ (kept as the archive) and plots."""
    return sum(os.path.getsize(os.path.join(path, n)) for n in os.listdir(path)
               if os.path.isfile(os.path.join(path, n)) and not n.endswith(".png"))


def pack(path: str, budget: int | None = None) -> str:
    """Packs RECORD/raw/ into RECORD/raw.tar.xz and removes the folder; returns the archive.

    With a budget (bytes), a record over it leaves out the logs of the checks' runs that
    passed (every run in the file finished with no wrong element): their runs go into
    raw/checks/passed-runs.tsv, which the correctness tables read as they read the logs,
    and manifest.md says so. A record still over it is packed and refused (RecordError)."""
    if not is_record(path):
        raise RecordError(f"{path}: not a record (no {MANIFEST})")
    raw = os.path.join(path, "raw")
    if not os.path.isdir(raw):
        raise RecordError(f"{path}: no raw/ folder to pack")
    archive = os.path.join(path, ARCHIVE)
    rf.pack(raw, archive)
    if budget is not None and record_bytes(path) > budget:
        left = leave_out_passing_logs(raw)
        if left:
            with open(os.path.join(path, MANIFEST), "a", encoding="utf-8") as f:
                f.write(f"\nLeft out to keep the record within its budget "
                        f"({budget // 1000} KB): the logs of {left} check run(s) that passed; "
                        f"`raw/checks/{pl.DIGEST_NAME}` keeps what each printed (program, "
                        "ranks, layout, calls checked, wrong elements).\n")
            rf.pack(raw, archive)
    shutil.rmtree(raw)
    if budget is not None and record_bytes(path) > budget:
        raise RecordError(f"{path}: {record_bytes(path)} bytes, over a record's budget of "
                          f"{budget}: leave out what the manifest does not need")
    return archive


def leave_out_passing_logs(raw: str) -> int:
    """Removes raw/checks' logs whose every run passed, writing their digest; the count."""
    checks = os.path.join(raw, "checks")
    if not os.path.isdir(checks):
        return 0
    lines, gone = [], 0
    for path in list(rf.walk_files(checks)):
        if not path.endswith((".txt", ".log")) or os.path.basename(path) == "summary.txt":
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            runs = pl.parse_text(f.read(), path)
        if runs and all(r.finished and r.wrong_elements == 0 for r in runs):
            lines += [pl.digest_line(r, checks) for r in runs]
            os.remove(path)
            gone += 1
    if gone:
        with open(os.path.join(checks, pl.DIGEST_NAME), "w", encoding="utf-8") as f:
            f.write("\t".join(pl.DIGEST_FIELDS) + "\n" + "\n".join(lines) + "\n")
    return gone


def unpack(path: str) -> str:
    """Unpacks RECORD/raw.tar.xz into RECORD/raw/ (which must not exist)."""
    archive = os.path.join(path, ARCHIVE)
    if not os.path.isfile(archive):
        raise RecordError(f"{path}: no {ARCHIVE} to unpack")
    if os.path.exists(os.path.join(path, "raw")):
        raise RecordError(f"{path}: raw/ is already there (remove it, or pack it again)")
    try:
        rf.unpack(archive, path)
    except ValueError as e:
        raise RecordError(str(e)) from None
    return os.path.join(path, "raw")


# --------------------------------------------------------------------------- budget

def tracked_files(results: str) -> list:
    """The files under results/ that git tracks (every file, outside a checkout)."""
    try:
        out = subprocess.run(["git", "-C", results, "ls-files", "-z", "."], check=True,
                             capture_output=True).stdout
        names = [n for n in out.decode().split("\0") if n]
        return [os.path.join(results, n) for n in names if os.path.isfile(os.path.join(results, n))]
    except (OSError, subprocess.CalledProcessError):
        return [os.path.join(root, f) for root, _d, files in os.walk(results) for f in files]


def linked_images(repo: str = REPO) -> set:
    """Absolute paths of every image a page of README.md or docs/ shows."""
    pages = [os.path.join(repo, "README.md")]
    for root, _d, files in os.walk(os.path.join(repo, "docs")):
        pages += [os.path.join(root, f) for f in files if f.endswith(".md")]
    out = set()
    for page in pages:
        if not os.path.isfile(page):
            continue
        with open(page, encoding="utf-8") as f:
            text = f.read()
        for target in re.findall(r"\]\(([^)\s#]+\.png)\)", text):
            out.add(os.path.normpath(os.path.join(os.path.dirname(page), target)))
    return out


def budget_problems(results: str = RESULTS, repo: str = REPO) -> list:
    """One line for each breach of the budget."""
    files = tracked_files(results)
    problems = []
    total = sum(os.path.getsize(f) for f in files)
    if total > BUDGET_BYTES:
        problems.append(f"results/ holds {total} bytes, over the budget of {BUDGET_BYTES}: "
                        "records that back no claim leave the tree (docs/records.md)")
    if len(files) > BUDGET_FILES:
        problems.append(f"results/ holds {len(files)} files, over the budget of {BUDGET_FILES}")
    per_record = {}
    for f in files:
        rel = os.path.relpath(f, results).split(os.sep)
        if len(rel) >= 3:
            per_record.setdefault(os.path.join(results, rel[0], rel[1]), []).append(f)
    for rec, rfiles in sorted(per_record.items()):
        size = sum(os.path.getsize(f) for f in rfiles)
        name = os.path.relpath(rec, os.path.dirname(results))
        if size > RECORD_BYTES:
            problems.append(f"{name}: {size} bytes, over a record's budget of {RECORD_BYTES}")
        if not is_record(rec):
            problems.append(f"{name}: no {MANIFEST}: not a record")
        if any(os.sep + "raw" + os.sep in os.sep + os.path.relpath(f, rec) for f in rfiles):
            problems.append(f"{name}: raw/ is kept as a folder: pack it "
                            f"(scripts/records.py pack {name})")
    shown = linked_images(repo)
    for f in files:
        if f.endswith(".png") and os.path.normpath(f) not in shown:
            problems.append(f"{os.path.relpath(f, os.path.dirname(results))}: a plot "
                            "scripts/report.py draws again and no page shows: leave it out")
    return problems


# --------------------------------------------------------------------------- main

def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="records.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    packer = sub.add_parser("pack")
    packer.add_argument("record", metavar="RECORD")
    packer.add_argument("--budget", type=int, metavar="BYTES", default=RECORD_BYTES,
                        help=f"leave out the logs of passing check runs when the record would "
                             f"weigh more (default {RECORD_BYTES}; 0: no budget)")
    sub.add_parser("unpack").add_argument("record", metavar="RECORD")
    for verb in ("list", "budget"):
        sub.add_parser(verb).add_argument("results", metavar="RESULTS", nargs="?",
                                          default=RESULTS)
    args = p.parse_args(argv)
    try:
        if args.verb == "pack":
            print(f"wrote {pack(args.record, args.budget or None)}")
        elif args.verb == "unpack":
            print(f"wrote {unpack(args.record)}/")
        elif args.verb == "list":
            for machine, recs in by_machine(find_records(args.results)).items():
                for r in reversed(recs):
                    print(f"{machine}\t{r.name}")
        else:
            problems = budget_problems(args.results)
            for line in problems:
                print(f"records.py: {line}", file=sys.stderr)
            return 1 if problems else 0
    except RecordError as e:
        print(f"records.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
