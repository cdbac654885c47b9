"""Paths and helpers shared by the tests of scripts/report.py and scripts/compare.py.

    python3 -m pytest tests/py/scripts -q

Fixtures (tests/py/scripts/fixtures/):
  real_run2_128ch/   two files written by build/all_reduce_perf -J on 2 x H200, copied
                     unchanged from results/h200x2/2026-11-30-6c67057/raw/run2-128ch
                     (one process, graph and stream mode; kernels nccl, ring, ll)
  real_kernel0/      one file from results/h200x2/2026-11-30-81f6854/raw (mpirun, graph,
                     NCCL only; an older writer without the "stress" key)
  handmade_*         made by hand for edge cases (handmade_variants/: NCCL's three
                     variants beside ours); see fixtures/README.md
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SCRIPTS = os.path.join(REPO, "scripts")
FIXTURES = os.path.join(HERE, "fixtures")
REAL_DIR = os.path.join(FIXTURES, "real_run2_128ch")
REAL_GRAPH = os.path.join(REAL_DIR, "all_reduce_perf_single_graph.json")
REAL_STREAM = os.path.join(REAL_DIR, "all_reduce_perf_single_stream.json")
REAL_KERNEL0 = os.path.join(FIXTURES, "real_kernel0", "all_reduce_perf_mpi_graph.json")
REAL_ALL_GATHER_DIR = os.path.join(FIXTURES, "real_all_gather")
EDGE_DIR = os.path.join(FIXTURES, "handmade_edge")
VARIANTS_DIR = os.path.join(FIXTURES, "handmade_variants")
OVERLAP_DIR = os.path.join(FIXTURES, "handmade_overlap")
EMPTY = os.path.join(FIXTURES, "handmade_empty.json")
TRUNCATED = os.path.join(FIXTURES, "handmade_truncated.json")
MISSING_KEYS = os.path.join(FIXTURES, "handmade_missing_keys.json")

if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)
import record_files as rf  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run_script(name, *args, timeout=600):
    """Run scripts/NAME with this Python; returns the CompletedProcess (text). The tests'
    time limits (600 s everywhere) only catch a hang: no verdict depends on the load."""
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, name), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)


def load_json(path):
    """A JSON file, on disk or inside a record's raw.tar.xz (scripts/record_files.py)."""
    return json.loads(rf.read_bytes(str(path)).decode("utf-8"))


def json_files(folder):
    """The *.json of a folder, on disk or inside a record's raw.tar.xz, in name order."""
    folder = str(folder)
    return [os.path.join(folder, n) for n in sorted(rf.listdir(folder)) if n.endswith(".json")
            and rf.isfile(os.path.join(folder, n))]


def write_json(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return str(path)


def md_table_after(text, heading):
    """The first markdown table after the line `heading`: a list of {column: cell}.

    Columns that repeat keep the first cell under their name.
    """
    lines = text.splitlines()
    start = lines.index(heading)
    rows, header = [], None
    for line in lines[start + 1:]:
        if line.startswith("#") and header is not None:
            break
        if not line.startswith("|"):
            if header is not None:
                break
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if header is None:
            header = cells
        elif set("".join(cells)) <= set("- "):
            continue
        else:
            rows.append(dict(zip(header, cells)))
    assert header is not None, f"no table after {heading!r}"
    return rows


def section(text, heading):
    """The text from `heading` up to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text.splitlines()
    start = lines.index(heading)
    out = []
    for line in lines[start + 1:]:
        m = re.match(r"^(#+) ", line)
        if m and len(m.group(1)) <= level:
            break
        out.append(line)
    return "\n".join(out)


def fmt(v):
    """The scripts' number format (collbench_results.format_value), restated."""
    a = abs(v)
    if a >= 100:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"
