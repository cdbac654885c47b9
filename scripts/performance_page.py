#!/usr/bin/env python3
"""Writes docs/performance.md: which kernel wins where, from the newest records.

    scripts/performance_page.py [-o FILE] [--check] [--results DIR]

For each machine under results/ (docs/scripts.md, "Records"), from the newest record that
holds each kind of run:
- a sweep of the collectives at two ranks or more (a folder with run.json and the programs'
  JSON): at a few sizes, the fastest kernel of each collective and its ratio to NCCL's
  fastest variant in the same mode and launch, then per collective the size bands where one
  kernel is the fastest (latency up to 1 MiB, bus bandwidth above, against the copy-engine
  ceiling of the run), and the crossovers between them;
- copy_perf's host<->device runs: the size bands where one path is the fastest, against the
  copy engine and against the floor of the run;
- correctness: every run of every record of the machine, by rank count and layout.

Every figure links the record it comes from. --check exits 1 when FILE differs from what
the script would write (a test runs it); exit 2 for input it cannot use.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collbench_results as cr  # noqa: E402
import program_logs as pl  # noqa: E402
import record_files as rf  # noqa: E402
import record_report as rr  # noqa: E402
import records  # noqa: E402
import report  # noqa: E402

PAGE = os.path.join(records.REPO, "docs", "performance.md")
GRID_SIZES = (8, 1 << 10, 64 << 10, 1 << 20, 16 << 20, 1 << 30)
LATENCY_MAX = 1 << 20  # up to here the fastest is the lowest time; above, the highest busbw
PLACEMENT = "out-of-place"
MACHINE_WORDS = {"h200": "NVIDIA H200", "h100": "NVIDIA H100"}


def machine_words(machine: str) -> str:
    gpu, _, n = machine.rpartition("x")
    return f"{n} × {MACHINE_WORDS.get(gpu, gpu)}"


def link(record: records.Record, page_dir: str, target: str = "report.md") -> str:
    rel = os.path.relpath(os.path.join(record.path, target), page_dir).replace(os.sep, "/")
    return f"[{record.name}]({rel})"


# --------------------------------------------------------------------------- finding runs

def sweep_of(record: records.Record):
    """(folder, collective ResultFiles) of the record's sweep at 2+ ranks, or None: the
    folder with run.json and the most collective files."""
    if not rf.isdir(record.raw):
        return None
    best = None
    for folder, files in rr.result_folders(record.raw):
        coll = [f for f in files if not f.is_copy and f.nranks >= 2 and not f.times_void]
        if coll and rf.exists(os.path.join(folder, cr.MANIFEST_NAME)):
            if best is None or len(coll) > len(best[1]):
                best = (folder, coll)
    return best


HOST_PATHS = "host_paths.json"  # copy_perf_runs.sh's run of every path at the defaults


def host_copies_of(record: records.Record):
    """The record's host_paths run (every host<->device path at the defaults, with the
    floor: tests/gpu/copy_perf_runs.sh), or None."""
    if not rf.isdir(record.raw):
        return None
    for _folder, files in rr.result_folders(record.raw):
        for f in files:
            if f.is_copy and f.name == HOST_PATHS and rr.copy_floor(f) is not None:
                return f
    return None


def newest(recs: list, find):
    for rec in reversed(recs):
        got = find(rec)
        if got:
            return rec, got
    return None, None


# --------------------------------------------------------------------------- collectives

def size_points(files) -> dict:
    """{collective: {size: SizeRow}}: at each size, the (mode, launch) where our fastest
    kernel (or NCCL's, where none of ours ran) is fastest, with NCCL's beside it."""
    rows = cr.all_rows(files)
    out = {}
    for (coll, _t, _o), grows in report.group_rows(rows, PLACEMENT).items():
        for t in report.build_table(grows):
            if t.size == 0:
                continue
            lead = t.ours or t.nccl
            if lead is None:
                continue
            cur = out.setdefault(coll, {}).get(t.size)
            if cur is None or _better(t, cur, t.size):
                out[coll][t.size] = t
    return out


def _lead(t):
    return t.ours or t.nccl


def _better(a, b, size) -> bool:
    la, lb = _lead(a), _lead(b)
    if size <= LATENCY_MAX or la.busbw is None or lb.busbw is None:
        return la.time_us < lb.time_us
    return la.busbw > lb.busbw


def ratio(t) -> float | None:
    """NCCL's fastest over ours at this point (> 1: ours is faster); None without both."""
    if t.ours is None or t.nccl is None:
        return None
    return report.nccl_ratio(t.nccl, t.ours)


def cell(t, size) -> str:
    lead = _lead(t)
    if t.ours is None:
        return f"NCCL only: {lead.kernel_name} {_figure(lead, size)}"
    r = ratio(t)
    return f"{lead.kernel_name} {_figure(lead, size)}" + (f" ({r:.2f}×)" if r else "")


def _figure(row, size) -> str:
    if size <= LATENCY_MAX or row.busbw is None:
        return f"{cr.format_value(row.time_us)} µs"
    return f"{cr.format_value(row.busbw)} GB/s"


def grid(points: dict) -> list:
    sizes = [s for s in GRID_SIZES if any(s in p for p in points.values())]
    header = ["collective"] + [cr.format_bytes(s) for s in sizes]
    body = [[coll] + [cell(points[coll][s], s) if s in points[coll] else "—" for s in sizes]
            for coll in sorted(points)]
    return report.md_table(header, body)


def bands(per_size: dict) -> list:
    """[(first size, last size, kernel, [SizeRows])]: runs of sizes with the same leader."""
    out = []
    for size in sorted(per_size):
        t = per_size[size]
        name = _lead(t).kernel_name if t.ours else f"NCCL only ({_lead(t).kernel_name})"
        if out and out[-1][2] == name:
            out[-1][1] = size
            out[-1][3].append(t)
        else:
            out.append([size, size, name, [t]])
    return out


def _span(values, fmt) -> str:
    lo, hi = min(values), max(values)
    return fmt(lo) if abs(hi - lo) < 1e-9 else f"{fmt(lo)}–{fmt(hi)}"


def band_text(band, ce_ceiling) -> str:
    first, last, name, points = band
    sizes = (cr.format_bytes(first) if first == last
             else f"{cr.format_bytes(first)}–{cr.format_bytes(last)}")
    small = [t for t in points if t.size <= LATENCY_MAX]
    large = [t for t in points if t.size > LATENCY_MAX and _lead(t).busbw is not None]
    figs = []
    if small:
        figs.append(_span([_lead(t).time_us for t in small], cr.format_value) + " µs")
    if large:
        figs.append(_span([_lead(t).busbw for t in large], cr.format_value) + " GB/s")
        if ce_ceiling:
            figs.append(f"up to {max(_lead(t).busbw for t in large) / ce_ceiling:.2f} of the "
                        "copy-engine ceiling")
    ratios = [r for r in (ratio(t) for t in points) if r]
    if ratios:
        figs.append(_span(ratios, lambda v: f"{v:.2f}") + "× NCCL's fastest")
    return f"{sizes}: **{name}**, {', '.join(figs)}"


def collectives_section(rec, found, page_dir) -> list:
    folder, files = found
    manifest = cr.load_manifest(folder) or {}
    ce = manifest.get("ce_ceiling_gbps")
    nranks = sorted({f.nranks for f in files})
    points = size_points(files)
    lines = [f"### The fastest kernel at each size ({'/'.join(map(str, nranks))} ranks)", "",
             f"From {link(rec, page_dir)}, `{os.path.relpath(folder, rec.path)}` (commit "
             f"{rec.commit}, {rec.date}; " + _versions(manifest) + "). Out of place, float, "
             "sum where the collective reduces; each cell the fastest kernel, its latency (up "
             "to 1 MiB) or bus bandwidth (above), and NCCL's fastest variant's time over its "
             "own in the same mode and launch (> 1: ours is faster)"
             + (f"; copy-engine ceiling {cr.format_value(ce)} GB/s." if ce else "."), ""]
    lines += grid(points) + [""]
    lines += ["Per collective, the sizes where one kernel is the fastest, and the crossovers "
              "between them:", ""]
    for coll in sorted(points):
        lines.append(f"- {coll}: " + "; ".join(band_text(b, ce) for b in bands(points[coll]))
                     + ".")
    return lines + [""]


def _versions(manifest) -> str:
    parts = []
    if manifest.get("nccl"):
        parts.append(f"NCCL {report.nccl_version(manifest['nccl'])}")
    if manifest.get("cuda"):
        parts.append(f"CUDA {report.cuda_version(manifest['cuda'])}")
    return ", ".join(parts) or "versions in the record"


# --------------------------------------------------------------------------- copies

def copy_bands(sizes: dict, measurement: str, pick) -> list:
    """[(first, last, path, [(fastest, ce)])]: runs of sizes with the same fastest path."""
    out = []
    for size in sorted(sizes):
        rows = sizes[size].get(measurement, [])
        best, ce = pick(rows), rr.ce_of(rows)
        if best is None:
            continue
        if out and out[-1][2] == best.kernel_name:
            out[-1][1] = size
            out[-1][3].append((best, ce))
        else:
            out.append([size, size, best.kernel_name, [(best, ce)]])
    return out


def _sizes(first, last) -> str:
    return (cr.format_bytes(first) if first == last
            else f"{cr.format_bytes(first)}–{cr.format_bytes(last)}")


def copies_section(rec, f, page_dir) -> list:
    floor = rr.copy_floor(f)
    lines = ["### Host↔device copies", "",
             f"From {link(rec, page_dir)}, `{f.name}` (commit {rec.commit}, {rec.date}): "
             "copy_perf, every path at its defaults. Latency: one copy, then a wait (p50), "
             "against the copy engine's (ce, cudaMemcpyAsync) and against the floor of the run "
             f"({cr.format_value(floor)} µs: a CPU -> resident GPU kernel -> CPU round trip, "
             "which no copy beats). Window: copies in flight, then one wait (as osu_bw).", ""]
    body = []
    for (direction, memory), sizes in sorted(rr.copy_groups(f).items()):
        if direction == "d2d":
            continue
        where = f"{direction}{'' if memory == 'pinned' else ' ' + memory}"
        for first, last, name, pts in copy_bands(sizes, "latency", rr.fastest_latency):
            vs_ce = [b.time_us / c.time_us for b, c in pts if c and c.time_us]
            body.append([where, "latency", _sizes(first, last), name,
                         _span([b.time_us for b, _ in pts], cr.format_value) + " µs",
                         _span(vs_ce, lambda v: f"{v:.2f}") + "× ce's time" if vs_ce else "n/a",
                         _span([b.time_us - floor for b, _ in pts], lambda v: f"+{v:.2f}")])
        for first, last, name, pts in copy_bands(sizes, "bandwidth", rr.fastest_bandwidth):
            vs_ce = [b.busbw / c.busbw for b, c in pts if c and c.busbw]
            body.append([where, "window", _sizes(first, last), name,
                         _span([b.busbw for b, _ in pts], cr.format_value) + " GB/s",
                         _span(vs_ce, lambda v: f"{v:.2f}") + "× ce's rate" if vs_ce else "n/a",
                         "—"])
    lines += report.md_table(["direction", "measured", "sizes", "fastest", "figure",
                              "against ce", "over the floor (µs)"], body)
    return lines + [""]


# --------------------------------------------------------------------------- correctness

def correctness_section(recs, page_dir) -> list:
    """One row per (ranks, layout): the programs run, calls, wrong, from the newest record
    that has each program there."""
    newest_cell = {}
    for rec in recs:  # oldest first: a newer record's cell replaces an older one's
        if not rf.isdir(rec.raw):
            continue
        for c in pl.matrix(pl.runs_under(rec.raw)):
            newest_cell[(c.nranks, c.layout, c.program)] = (c, rec)
    if not newest_cell:
        return []
    rows = {}
    for (nranks, layout, program), (c, rec) in newest_cell.items():
        rows.setdefault((nranks, layout), []).append((program, c, rec))
    lines = ["### Correctness", "",
             "Every run of a collective program in the machine's records (scripts/report.py's "
             "correctness table of each), the newest record for each program: calls checked "
             "(every measured size of every kernel, datatype, op and placement, and each "
             "--stress call) and wrong elements. Ranks sharing a GPU and simulated hosts check "
             "correctness only.", ""]
    body = []
    for (nranks, layout) in sorted(rows):
        items = sorted(rows[(nranks, layout)])
        progs = ", ".join(p.replace("_perf", "") for p, _c, _r in items)
        recs_used = sorted({r.name: r for _p, _c, r in items}.values(), key=lambda r: r.sort_key)
        body.append([str(nranks), layout, progs, str(sum(c.calls for _p, c, _r in items)),
                     str(sum(c.wrong for _p, c, _r in items)),
                     str(sum(c.unfinished for _p, c, _r in items)),
                     ", ".join(link(r, page_dir) for r in recs_used)])
    lines += report.md_table(["ranks", "layout", "programs", "calls checked", "wrong elements",
                              "runs cut short", "records"], body)
    return lines + [""]


# --------------------------------------------------------------------------- the page

INTRO = """# Performance: which kernel wins where

Generated by `scripts/performance_page.py` from the newest records under `results/`
([scripts.md](scripts.md#records)); do not edit it by hand: a test checks that it is what the
script writes. Each figure links its record, whose `report.md` has every size, mode, launch and
kernel, and whose `manifest.md` the commands, machine, versions, commit and date. NCCL's fastest
variant is the fastest of `nccl`, `nccl-sym` and `nccl-ce` in the same run, mode and launch; a
measurement with wrong values never counts as the fastest. Times with ranks sharing one GPU, or
across hosts simulated on one machine, mean nothing: those runs check correctness only. Why the
kernels are built as they are: [kernels.md](kernels.md), [copy_perf.md](copy_perf.md); records
that left the tree: [records.md](records.md)."""


def render(results: str, page: str) -> str:
    page_dir = os.path.dirname(os.path.abspath(page))
    per_machine = records.by_machine(records.find_records(results))
    order = sorted(per_machine, key=lambda m: (-int(m.rpartition("x")[2] or 0), m))
    lines = [INTRO, "", "Machines: " + ", ".join(f"[{m}](#{m})" for m in order) + ".", ""]
    for machine in order:
        recs = per_machine[machine]
        lines += [f"## {machine}", "", f"{machine_words(machine)}.", ""]
        rec, found = newest(recs, sweep_of)
        if found:
            lines += collectives_section(rec, found, page_dir)
        rec, f = newest(recs, host_copies_of)
        if f:
            lines += copies_section(rec, f, page_dir)
        lines += correctness_section(recs, page_dir)
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="performance_page.py", description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--out", default=PAGE, metavar="FILE",
                   help="the page (default: docs/performance.md)")
    p.add_argument("--results", default=records.RESULTS, metavar="DIR",
                   help="the records (default: results/)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when FILE is not what the script writes")
    args = p.parse_args(argv)
    try:
        text = render(args.results, args.out)
    except (cr.ResultsError, OSError) as e:
        print(f"performance_page.py: error: {e}", file=sys.stderr)
        return 2
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print(f"performance_page.py: {args.out} is not what the records give: run "
                  "scripts/performance_page.py", file=sys.stderr)
            return 1
        return 0
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
