"""The report of a record (scripts/report.py RECORD): what its raw output shows.

A record's report.md has, in this order:
- per folder of its raw/ that holds the collective programs' JSON (a sweep): report.py's
  report of that folder (headline, a table per collective, crossovers, wrong values, the
  run's run.json), one heading level down;
- per folder that holds copy_perf's JSON: per run, direction and host memory, the fastest
  path at each size against the copy engine (ce) and, for host<->device copies, against the
  floor that run measured (a CPU -> resident kernel -> CPU round trip);
- the correctness of every run the record's text logs hold (scripts/program_logs.py):
  program x rank count x layout, runs, calls checked, wrong elements.

Everything comes from the record itself (its run.json holds the copy-engine ceiling), so
report.py RECORD, run again with no option, writes the same report.md byte for byte.
"""

from __future__ import annotations

import os
import re

import collbench_results as cr
import program_logs as pl
import record_files as rf

COPY_CE = "ce"  # copy_perf's kernel 0: cudaMemcpyAsync on the copy engine


def result_folders(raw: str) -> list:
    """[(folder, [ResultFile])] of every folder under raw/ that holds result JSON, in path
    order (each file read once; a folder of unreadable JSON is an error, as for report.py)."""
    out = []
    for folder in _folders(raw):
        names = [n for n in rf.listdir(folder) if n.endswith(".json") and n != cr.MANIFEST_NAME
                 and rf.isfile(os.path.join(folder, n))]
        files = []
        for n in sorted(names):
            try:
                files.append(cr.load_result_file(os.path.join(folder, n)))
            except cr.ResultsError:
                continue  # JSON that is not a program's result (a tool's own output)
        if files:
            out.append((folder, files))
    return out


def _folders(path: str):
    yield path
    for name in sorted(rf.listdir(path)):
        sub = os.path.join(path, name)
        if rf.isdir(sub):
            yield from _folders(sub)


def slug(rel: str) -> str:
    """A file-name prefix for a folder's plots: raw/runE/sweep -> runE-sweep-."""
    parts = rel.split("/")[1:] if rel.startswith("raw/") or rel == "raw" else rel.split("/")
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(parts)) + "-" if parts else ""


def demote(lines: list) -> list:
    """Every markdown heading one level down (outside fenced blocks)."""
    out, fenced = [], False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        out.append("#" + line if not fenced and re.match(r"#+ ", line) else line)
    return out


# --------------------------------------------------------------------------- copies

def copy_groups(f) -> dict:
    """{(direction, host_memory): {size: {measurement: [rows]}}} of a copy_perf file."""
    out = {}
    for r in f.rows:
        direction, measurement, memory = r.variant.split(" ")
        out.setdefault((direction, memory), {}).setdefault(r.size, {}) \
            .setdefault(measurement, []).append(r)
    return out


def _eligible(rows, value):
    """Rows that ran, with no wrong value, that have the value."""
    return [r for r in rows if r.measured and not r.is_wrong and value(r) is not None]


def fastest_latency(rows):
    cands = _eligible(rows, lambda r: r.time_us)
    return min(cands, key=lambda r: (r.time_us, r.kernel_id)) if cands else None


def fastest_bandwidth(rows):
    cands = _eligible(rows, lambda r: r.busbw)
    return max(cands, key=lambda r: (r.busbw, -r.kernel_id)) if cands else None


def ce_of(rows):
    return next((r for r in rows if r.kernel_name == COPY_CE and r.measured), None)


def copy_floor(f) -> float | None:
    floor = f.data.get("floor")
    v = floor.get("p50_us") if isinstance(floor, dict) else None
    return float(v) if cr.is_number(v) else None


def copy_rows(sizes: dict, floor: float | None, direction: str) -> list:
    """One table row per size: the fastest path's latency against ce and the floor, and
    the fastest path's bandwidth (a window of copies in flight) against ce's."""
    body = []
    for size in sorted(sizes):
        lat, bw = sizes[size].get("latency", []), sizes[size].get("bandwidth", [])
        fl, fb = fastest_latency(lat), fastest_bandwidth(bw)
        cl, cb = ce_of(lat), ce_of(bw)
        over = (fl.time_us - floor) if (fl and floor is not None and direction != "d2d") else None
        body.append([
            cr.format_bytes(size),
            fl.kernel_name if fl else "n/a", cr.format_value(fl.time_us) if fl else "n/a",
            cr.format_value(cl.time_us) if cl else "n/a",
            cr.format_ratio(cl.time_us / fl.time_us) if (cl and fl and fl.time_us) else "n/a",
            f"+{over:.2f}" if over is not None else "n/a",
            fb.kernel_name if fb else "n/a", cr.format_value(fb.busbw) if fb else "n/a",
            cr.format_value(cb.busbw) if cb else "n/a",
            cr.format_ratio(fb.busbw / cb.busbw) if (cb and fb and cb.busbw) else "n/a"])
    return body


COPY_HEADER = ["size", "fastest (latency)", "µs", "ce (µs)", "ce/fastest", "over the floor (µs)",
               "fastest (window)", "GB/s", "ce (GB/s)", "fastest/ce"]


def copy_section(rel: str, files: list, md_table) -> list:
    lines = [f"## Copies: `{rel}`", "",
             "copy_perf (docs/copy_perf.md). Latency: one copy, then wait for it (p50); "
             "window: copies in flight, then one wait (time per copy, as osu_bw). The fastest "
             "path of each size beside the copy engine (ce, cudaMemcpyAsync); ce/fastest > 1: "
             "the fastest path is faster by that factor. Over the floor: the fastest latency "
             "less the run's floor, a CPU -> resident GPU kernel -> CPU flag round trip, which "
             "no host<->device copy can beat. A measurement with wrong values is never the "
             "fastest.", ""]
    for f in files:
        floor = copy_floor(f)
        wrong = [r for r in f.rows if r.is_wrong]
        lines += [f"### {f.name}", "",
                  f"{f.nranks} rank(s); floor p50: "
                  + (f"{cr.format_value(floor)} µs" if floor is not None else "not measured")
                  + f"; wrong values: {sum(r.wrong for r in wrong) if wrong else 0}.", ""]
        for (direction, memory), sizes in sorted(copy_groups(f).items()):
            lines += [f"{direction}, {memory} host memory:", ""]
            lines += md_table(COPY_HEADER, copy_rows(sizes, floor, direction)) + [""]
    return lines


# --------------------------------------------------------------------------- correctness

CORRECTNESS_HEADER = ["program", "ranks", "layout", "runs", "calls checked", "of them --stress",
                      "wrong elements", "runs cut short"]


def correctness_rows(cells: list) -> list:
    return [[c.program, str(c.nranks), c.layout, str(c.runs), str(c.calls),
             str(c.stress_calls), f"**{c.wrong}**" if c.wrong else "0", str(c.unfinished)]
            for c in cells]


def correctness_section(raw: str, md_table) -> list:
    runs = pl.runs_under(raw)
    lines = ["## Correctness", "",
             "Every run of a collective program in the record's text logs (the checks, the "
             "stress runs, the sweep): per program, rank count and layout, the calls it "
             "checked (every measured size of every kernel, datatype, op and placement, and "
             "each --stress call) and the wrong elements found. A run cut short printed no "
             "closing count (a refusal, a timeout, a mutant meant to fail: its log says "
             "which).", ""]
    if not runs:
        return lines + ["No run of a collective program in this record's logs.", ""]
    lines += md_table(CORRECTNESS_HEADER, correctness_rows(pl.matrix(runs))) + [""]
    return lines


# --------------------------------------------------------------------------- the record

def render_record(record: str, out_dir: str, render_folder, md_table, make_plots=True) -> str:
    """report.md of a record: render_folder(folder, files, rel, prefix) gives a collective
    folder's report lines (report.py's)."""
    raw = os.path.join(record, "raw")
    name = os.path.basename(os.path.normpath(record))
    lines = [f"# collbench report: {name}", "",
             "scripts/report.py of this record's raw output (manifest.md says what ran, "
             f"where and with what); re-made by `scripts/report.py {_as_in_repo(record)}`. "
             "Plots are drawn beside this page when it is re-made; they are not kept.", ""]
    if not rf.isdir(raw):
        return "\n".join(lines + ["This record has no raw/ output.", ""])
    folders = result_folders(raw)
    for folder, files in folders:
        rel = os.path.relpath(folder, record).replace(os.sep, "/")
        coll = [f for f in files if not f.is_copy]
        copy = [f for f in files if f.is_copy]
        if coll:
            lines += [f"## Collectives: `{rel}`", ""]
            lines += demote(render_folder(folder, coll, rel, slug(rel), make_plots))
        if copy:
            lines += copy_section(rel, copy, md_table)
    lines += correctness_section(raw, md_table)
    return "\n".join(lines).rstrip() + "\n"


def _as_in_repo(record: str) -> str:
    """results/<machine>/<name>, wherever this copy of the record is."""
    path = os.path.normpath(os.path.abspath(record))
    return f"results/{os.path.basename(os.path.dirname(path))}/{os.path.basename(path)}"
