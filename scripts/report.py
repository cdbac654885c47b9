#!/usr/bin/env python3
"""Turn a directory of collbench results into a markdown report with plots.

    scripts/report.py RESULTS_DIR [-o OUT_DIR] [--placement out-of-place|in-place]
                      [--ce-ceiling GBPS]

Reads every *.json that the programs wrote with -J (run.json, the manifest of
scripts/sweep.sh, is shown at the top instead) and writes OUT_DIR/report.md with:
a headline table (per collective: the fastest kernel at the smallest size and the best
bus bandwidth at the largest size, each against NCCL, kernel 0); per collective,
datatype and op a table with one row per size and mode (and launch, when the
directory holds both one-process and mpirun runs), the fastest kernel, its speed-up
over NCCL and the sizes where the fastest kernel changes; busbw and latency plots
(PNG, log-log); and every wrong value. A measurement with wrong > 0 is never counted
as the fastest or the best. The copy-engine ceiling of the headline is run.json's
ce_ceiling_gbps (scripts/sweep.sh measures it), or --ce-ceiling. copy_perf's results are
refused (compare.py reads them): their rows are copies by direction, not collectives
beside NCCL. Exit 0 on success, 2 with one line on stderr for input it cannot use or
when matplotlib is missing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collbench_results as cr  # noqa: E402

MODE_ORDER = {m: i for i, m in enumerate(cr.MODES)}
LAUNCH_ORDER = {m: i for i, m in enumerate(cr.LAUNCHES)}
LAUNCH_TEXT = {"single": "one process", "mpi": "mpirun, a process per rank"}
MISSING = "—"  # a kernel that has no measurement at all at this size


# --------------------------------------------------------------------------- analysis

@dataclass
class SizeRow:
    """One row of a per-size table: one (size, mode, launch) of one group."""
    size: int
    mode: str
    launch: str
    cells: dict  # kernel_name -> Row (absent: not measured at this size)
    nccl: cr.Row | None
    fastest: cr.Row | None

    @property
    def ratio(self) -> float | None:
        """NCCL time / fastest time (> 1: the fastest beats NCCL by that factor)."""
        return nccl_ratio(self.nccl, self.fastest)


def nccl_ratio(nccl: cr.Row | None, fastest: cr.Row | None) -> float | None:
    if nccl is None or fastest is None or not nccl.measured or not fastest.time_us:
        return None
    return nccl.time_us / fastest.time_us


def eligible(r: cr.Row | None) -> bool:
    """Counts for fastest/best: measured, has a time, and not wrong."""
    return r is not None and r.measured and not r.is_wrong


def fastest_of(rows) -> cr.Row | None:
    cands = [r for r in rows if eligible(r)]
    return min(cands, key=lambda r: (r.time_us, r.kernel_id)) if cands else None


def best_busbw_of(rows) -> cr.Row | None:
    cands = [r for r in rows if eligible(r) and r.busbw is not None]
    return max(cands, key=lambda r: (r.busbw, -r.kernel_id)) if cands else None


def kernel_order(rows) -> list:
    """Kernel names, NCCL (id 0) first, then by id."""
    ids = {}
    for r in rows:
        ids[r.kernel_name] = min(ids.get(r.kernel_name, r.kernel_id), r.kernel_id)
    return sorted(ids, key=lambda n: (ids[n], n))


@dataclass(frozen=True)
class Series:
    """Sizes followed in order, for crossovers and plot panels: one launch, one or more modes."""
    modes: tuple
    launch: str
    label: str


def series_of(points) -> list:
    """The series of (size, mode, launch) points (Rows or SizeRows), in a stable order.

    Per launch, one series per mode; but when no size was measured in two modes (as
    scripts/sweep.sh runs: graph mode for small sizes, stream mode for large ones), one
    series through all of them, so that a change of kernel where the mode changes shows.
    """
    out = []
    for launch in sorted({p.launch for p in points}, key=lambda v: (LAUNCH_ORDER.get(v, 9), v)):
        sizes = {}
        for p in points:
            if p.launch == launch:
                sizes.setdefault(p.mode, set()).add(p.size)
        modes = sorted(sizes, key=lambda m: (MODE_ORDER.get(m, 9), m))
        overlap = any(sizes[a] & sizes[b] for i, a in enumerate(modes) for b in modes[i + 1:])
        if len(modes) > 1 and not overlap:
            modes.sort(key=lambda m: min(sizes[m]))
            label = ", ".join(f"{m} {cr.format_bytes(min(sizes[m]))}–"
                              f"{cr.format_bytes(max(sizes[m]))}" for m in modes)
            out.append(Series(tuple(modes), launch, label))
        else:
            out += [Series((m,), launch, m) for m in modes]
    return out


def group_rows(rows, placement: str) -> dict:
    """{(collective, type, redop): [rows of that placement]}, in a stable order."""
    groups = {}
    for r in rows:
        if r.placement == placement:
            groups.setdefault((r.collective, r.type, r.redop), []).append(r)
    return dict(sorted(groups.items()))


def build_table(rows) -> list:
    """One SizeRow per (size, mode, launch), sorted by size then mode then launch."""
    index, _ = cr.index_rows(rows)
    by_point = {}
    for r in index.values():
        by_point.setdefault((r.size, r.mode, r.launch), {})[r.kernel_name] = r
    table = []
    for (size, mode, launch), cells in by_point.items():
        nccl = next((r for r in cells.values() if r.is_nccl), None)
        table.append(SizeRow(size=size, mode=mode, launch=launch, cells=cells, nccl=nccl,
                             fastest=fastest_of(cells.values())))
    table.sort(key=lambda t: (t.size, MODE_ORDER.get(t.mode, 9),
                              LAUNCH_ORDER.get(t.launch, 9), t.mode, t.launch))
    return table


def crossovers(table) -> list:
    """[(Series, [(previous size, size, previous fastest, new fastest)])] of a table.

    Sizes where nothing eligible was measured are passed over.
    """
    out = []
    for ser in series_of(table):
        seq = [(t.size, t.fastest.kernel_name) for t in sorted(table, key=lambda t: t.size)
               if t.launch == ser.launch and t.mode in ser.modes and t.fastest is not None]
        out.append((ser, [(seq[i - 1][0], seq[i][0], seq[i - 1][1], seq[i][1])
                          for i in range(1, len(seq)) if seq[i][1] != seq[i - 1][1]]))
    return out


@dataclass
class Headline:
    collective: str
    small_size: int | None = None
    small_fastest: cr.Row | None = None
    small_nccl: cr.Row | None = None
    large_size: int | None = None
    large_best: cr.Row | None = None
    large_nccl: cr.Row | None = None
    ce_ceiling: float | None = None

    @property
    def small_ratio(self):
        return nccl_ratio(self.small_nccl, self.small_fastest)

    @property
    def large_ratio(self):
        b, n = self.large_best, self.large_nccl
        if b is None or n is None or not n.measured or not n.busbw:
            return None
        return b.busbw / n.busbw

    @property
    def ce_ratio(self):
        if self.large_best is None or not self.ce_ceiling:
            return None
        return self.large_best.busbw / self.ce_ceiling


def headline(rows, placement: str, ce_ceiling: float | None) -> list:
    """One Headline per collective, over every type/op/mode/launch of the placement.

    Small: at the smallest non-zero size with an eligible measurement, the fastest kernel of
    the (type, op, mode, launch) where it is fastest, and NCCL in that same setting.
    Large: at the largest such size, the highest busbw, and NCCL's beside it.
    """
    per_coll = {}
    for (coll, _t, _o), grows in group_rows(rows, placement).items():
        per_coll.setdefault(coll, []).extend(build_table(grows))
    out = []
    for coll, table in per_coll.items():
        h = Headline(collective=coll, ce_ceiling=ce_ceiling)
        # A 0-byte row (a size that rounds down to no element per rank) says
        # nothing about latency.
        timed = [t for t in table if t.fastest is not None and t.size > 0]
        if timed:
            h.small_size = min(t.size for t in timed)
            best = min((t for t in timed if t.size == h.small_size),
                       key=lambda t: t.fastest.time_us)
            h.small_fastest, h.small_nccl = best.fastest, best.nccl
        banded = [(t, best_busbw_of(t.cells.values())) for t in table]
        banded = [(t, b) for t, b in banded if b is not None]
        if banded:
            h.large_size = max(t.size for t, _ in banded)
            t, b = max(((t, b) for t, b in banded if t.size == h.large_size),
                       key=lambda tb: tb[1].busbw)
            h.large_best, h.large_nccl = b, t.nccl
        out.append(h)
    return out


# --------------------------------------------------------------------------- markdown

def md_table(header, rows) -> list:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(cr.md_escape(c) for c in row) + " |" for row in rows]
    return lines


def wrong_flag(r: cr.Row) -> str:
    return f" **⚠ {r.wrong} wrong**" if r.is_wrong else ""


def time_cell(r: cr.Row | None) -> str:
    if r is None:
        return MISSING
    if r.skipped is not None:
        return "skipped"
    return cr.format_value(r.time_us) + wrong_flag(r)


def busbw_cell(r: cr.Row | None) -> str:
    if r is None:
        return MISSING
    if r.skipped is not None:
        return "skipped"
    return cr.format_value(r.busbw) + wrong_flag(r)


def variant_label(row: cr.Row, show_type: bool, show_mode: bool, show_launch: bool) -> str:
    """The kernel name, with where it was measured when the collective has several."""
    parts = []
    if show_type:
        parts.append(f"{row.type} {row.redop}")
    if show_mode:
        parts.append(row.mode)
    if show_launch:
        parts.append(row.launch)
    return f"{row.kernel_name} ({', '.join(parts)})" if parts else row.kernel_name


def headline_section(rows, placement, ce_ceiling) -> list:
    heads = headline(rows, placement, ce_ceiling)
    lines = ["## Headline", "",
             f"{placement}. Small messages: at the smallest non-zero size measured, the fastest "
             "kernel and NCCL's time there (NCCL/fastest > 1: faster than NCCL). Large "
             "messages: at the largest size, the highest bus bandwidth, NCCL's, and the "
             "share of the copy-engine ceiling"
             + (f" ({cr.format_value(ce_ceiling)} GB/s)." if ce_ceiling else
                " (n/a: no --ce-ceiling and no ce_ceiling_gbps in run.json)."), ""]
    header = ["collective", "smallest size", "fastest", "time (µs)", "NCCL (µs)",
              "NCCL/fastest", "largest size", "best busbw", "busbw (GB/s)", "NCCL (GB/s)",
              "best/NCCL", "best/CE ceiling"]
    body = []
    for h in heads:
        crows = [r for r in rows if r.collective == h.collective and r.placement == placement]
        show_type = len({(r.type, r.redop) for r in crows}) > 1
        show_mode = len({r.mode for r in crows}) > 1
        show_launch = len({r.launch for r in crows}) > 1
        small = ([cr.format_bytes(h.small_size),
                  variant_label(h.small_fastest, show_type, show_mode, show_launch),
                  cr.format_value(h.small_fastest.time_us),
                  time_cell(h.small_nccl) if h.small_nccl else "n/a",
                  cr.format_ratio(h.small_ratio)]
                 if h.small_fastest else ["n/a"] * 5)
        large = ([cr.format_bytes(h.large_size),
                  variant_label(h.large_best, show_type, show_mode, show_launch),
                  cr.format_value(h.large_best.busbw),
                  busbw_cell(h.large_nccl) if h.large_nccl else "n/a",
                  cr.format_ratio(h.large_ratio),
                  "n/a" if h.ce_ratio is None else f"{h.ce_ratio:.2f}"]
                 if h.large_best else ["n/a"] * 6)
        body.append([h.collective] + small + large)
    if not body:
        return lines + [f"No {placement} measurements.", ""]
    return lines + md_table(header, body) + [""]


def group_section(key, grows, out_dir, make_plots: bool, multi_launch: bool) -> list:
    coll, typ, redop = key
    placement = grows[0].placement
    lines = [f"## {coll} — {typ} {redop} ({placement})", ""]
    kernels = kernel_order(grows)
    table = build_table(grows)
    header = ["size", "mode"] + (["launch"] if multi_launch else [])
    for k in kernels:
        header += [f"{k} (µs)", f"{k} (GB/s)"]
    header += ["fastest", "NCCL/fastest"]
    body = []
    for t in table:
        row = [cr.format_bytes(t.size), t.mode] + ([t.launch] if multi_launch else [])
        for k in kernels:
            r = t.cells.get(k)
            row += [time_cell(r), busbw_cell(r)]
        row += [t.fastest.kernel_name if t.fastest else "n/a", cr.format_ratio(t.ratio)]
        body.append(row)
    lines += md_table(header, body) + [""]

    # Crossovers.
    lines.append("Crossovers (sizes where the fastest kernel changes):")
    lines.append("")
    for ser, changes in crossovers(table):
        label = ser.label + (f", {ser.launch}" if multi_launch else "")
        fast = [t.fastest.kernel_name for t in sorted(table, key=lambda t: t.size)
                if t.launch == ser.launch and t.mode in ser.modes and t.fastest]
        if not fast:
            lines.append(f"- {label}: nothing measured.")
        elif not changes:
            lines.append(f"- {label}: none, {fast[0]} is the fastest at every size.")
        else:
            text = "; ".join(f"at {cr.format_bytes(s)} {b} takes over from {a} "
                             f"(fastest up to {cr.format_bytes(p)})"
                             for p, s, a, b in changes)
            lines.append(f"- {label}: {text}.")
    lines.append("")

    # Skip reasons, one line per (kernel, reason).
    reasons = {}
    for r in grows:
        if r.skipped is not None:
            reasons.setdefault((r.kernel_name, r.skipped), set()).add(r.size)
    if reasons:
        lines.append("Skipped:")
        lines.append("")
        for (k, why), sizes in sorted(reasons.items()):
            lo, hi = min(sizes), max(sizes)
            span = cr.format_bytes(lo) if lo == hi else \
                f"{cr.format_bytes(lo)} to {cr.format_bytes(hi)}"
            lines.append(f"- {k} at {span} ({len(sizes)} size{'s' * (len(sizes) > 1)}): "
                         f"{why}")
        lines.append("")

    if make_plots:
        base = plot_basename(coll, typ, redop)
        for metric, title in (("busbw", "bus bandwidth"), ("latency", "latency")):
            name = f"{base}_{metric}.png"
            plot_group(grows, kernels, metric, os.path.join(out_dir, name),
                       f"{coll} {typ} {redop}, {placement}: {title}")
            lines.append(f"![{coll} {typ} {redop} {title}]({name})")
        lines.append("")
    return lines


def wrong_section(files) -> list:
    rows, stress = cr.wrong_values(files)
    lines = ["## Wrong values", ""]
    unchecked = sum(1 for f in files for r in f.rows if r.measured and r.wrong is None)
    if not rows and not stress:
        lines += ["None: no measurement had wrong > 0.", ""]
    else:
        if rows:
            lines += md_table(["file", "collective", "kernel", "type", "op", "placement",
                               "mode", "launch", "size", "wrong"],
                              [[os.path.basename(r.source), r.collective, r.kernel_name,
                                r.type, r.redop, r.placement, r.mode, r.launch,
                                cr.format_bytes(r.size), f"**{r.wrong}**"] for r in rows])
            lines.append("")
        if stress:
            lines += md_table(["file", "collective", "kernel", "stress calls", "wrong"],
                              [[os.path.basename(s.source), s.collective, s.kernel_name,
                                str(s.calls), f"**{s.wrong}**"] for s in stress])
            lines.append("")
    if unchecked:
        lines += [f"{unchecked} measurement(s) were not checked (wrong is null: run "
                  "with -c 0).", ""]
    return lines


def stress_section(files) -> list:
    stress = [s for f in files for s in f.stress]
    if not stress:
        return []
    lines = ["## Stress runs", ""]
    lines += md_table(["file", "collective", "kernel", "calls", "skipped", "wrong", "seconds"],
                      [[os.path.basename(s.source), s.collective, s.kernel_name, str(s.calls),
                        str(s.skipped), str(s.wrong), cr.format_value(s.seconds)]
                       for s in stress])
    return lines + [""]


MANIFEST_FIELDS = (("date", "date"), ("machine", "machine"),
                   ("collbench_commit", "collbench commit"), ("cuda", "CUDA"),
                   ("cuda_driver", "CUDA driver"), ("nccl", "NCCL"), ("mpi", "MPI"),
                   ("launcher", "launcher"), ("ce_ceiling_gbps", "copy-engine ceiling (GB/s)"),
                   ("exit_status", "exit status of each command"))


def cuda_version(v):
    """13000 -> 13.0 (CUDA's encoding: 1000 * major + 10 * minor); text as it is."""
    return f"{v // 1000}.{v % 1000 // 10}" if cr.is_int(v) and v > 0 else v


def nccl_version(v):
    """22803 -> 2.28.3, 2804 -> 2.8.4 (NCCL_VERSION_CODE); text as it is."""
    if not (cr.is_int(v) and v > 0):
        return v
    if v >= 20900:
        return f"{v // 10000}.{v % 10000 // 100}.{v % 100}"
    return f"{v // 1000}.{v % 1000 // 100}.{v % 100}"


def manifest_value(key, value):
    if key in ("cuda", "cuda_driver"):
        return cuda_version(value)
    if key == "nccl":
        return nccl_version(value)
    if key == "exit_status" and isinstance(value, list):
        text = ", ".join(str(x) for x in value)
        bad = [x for x in value if x != 0]
        return text + (f" **⚠ {len(bad)} command(s) failed**" if bad else "")
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return value


def manifest_section(manifest) -> list:
    if manifest is None:
        return []
    lines = ["## Run (run.json)", ""]
    facts = []
    for key, label in MANIFEST_FIELDS[:3]:
        if key in manifest:
            facts.append((label, manifest_value(key, manifest[key])))
    gpu = manifest.get("gpu")
    if isinstance(gpu, dict):
        desc = f"{gpu.get('count', '?')} × {gpu.get('model', '?')}"
        if gpu.get("driver"):
            desc += f", driver {gpu['driver']}"
        facts.append(("GPUs", desc))
    elif gpu is not None:
        facts.append(("GPUs", gpu))
    for key, label in MANIFEST_FIELDS[3:]:
        if key in manifest:
            facts.append((label, manifest_value(key, manifest[key])))
    known = {k for k, _ in MANIFEST_FIELDS} | {"gpu", "commands"}
    for key in sorted(set(manifest) - known):
        facts.append((key, manifest_value(key, manifest[key])))
    lines += [f"- {label}: {value}" for label, value in facts]
    cmds = manifest.get("commands")
    if cmds:
        lines += ["", "Commands:", "", "```"]
        lines += [str(c) for c in (cmds if isinstance(cmds, list) else [cmds])]
        lines.append("```")
    return lines + [""]


def files_section(files) -> list:
    lines = ["## Input files", ""]
    lines += md_table(["file", "program", "launch", "mode", "date", "ranks", "results",
                       "wrong_total"],
                      [[f.name, f.program, f.launch, ", ".join(f.modes) or "-", f.date,
                        str(f.nranks), str(len(f.rows)),
                        "n/a" if f.wrong_total is None else str(f.wrong_total)]
                       for f in files])
    return lines + [""]


def render_report(results_dir, files, manifest, out_dir, placement="out-of-place",
                  ce_ceiling=None, make_plots=True) -> str:
    """The text of report.md (and, with make_plots, the PNGs in out_dir)."""
    rows = cr.all_rows(files)
    index, dups = cr.index_rows(rows)
    # Sizes that round down to 0 bytes print one 0-byte row each, as in
    # nccl-tests; those repeats are expected, not duplicates worth a warning.
    dups = [(a, b) for a, b in dups if a.size > 0]
    multi_launch = len({r.launch for r in rows}) > 1
    lines = [f"# collbench report: {os.path.basename(os.path.abspath(results_dir))}", ""]
    nwrong = sum(1 for r in rows if r.is_wrong) + sum(1 for f in files for s in f.stress
                                                        if s.wrong > 0)
    if nwrong:
        lines += [f"**⚠ {nwrong} measurement(s) with wrong values: see "
                  "[Wrong values](#wrong-values).**", ""]
    lines += manifest_section(manifest)
    lines += [f"Placement: {placement}. Times in µs (lower is better), bus bandwidth in "
              "GB/s (higher is better). NCCL is kernel 0. NCCL/fastest = NCCL's time / "
              "the fastest kernel's time. \"skipped\": the kernel does not run at that "
              f"size; \"{MISSING}\": no measurement. Measurements with wrong values are "
              "flagged and never counted as fastest."
              + (" launch: single = one process for every rank (-g/-t), mpi = one "
                 "process per rank (mpirun)." if multi_launch else ""), ""]
    lines += headline_section(rows, placement, ce_ceiling)
    lines += wrong_section(files)
    if dups:
        lines += ["## Duplicate measurements", "",
                  f"{len(dups)} measurement(s) appear more than once; the first file's is "
                  "shown:", ""]
        lines += [f"- {cr.describe_key(a.key)}: {os.path.basename(a.source)} kept, "
                  f"{os.path.basename(b.source)} ignored" for a, b in dups[:20]]
        if len(dups) > 20:
            lines.append(f"- … and {len(dups) - 20} more")
        lines.append("")
    groups = group_rows(index.values(), placement)
    if not groups:
        lines += [f"No {placement} measurements in these files.", ""]
    for key, grows in groups.items():
        lines += group_section(key, grows, out_dir, make_plots, multi_launch)
    lines += stress_section(files)
    lines += files_section(files)
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- plots

def plot_basename(coll, typ, redop) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{coll}_{typ}_{redop}")


def _size_ticks(sizes):
    """Powers of two from the smallest to the largest size, at most about 10 of them."""
    lo_e = math.floor(math.log2(min(sizes)))
    hi_e = math.ceil(math.log2(max(sizes)))
    step = max(1, math.ceil((hi_e - lo_e) / 10))
    exps = list(range(lo_e, hi_e + 1, step))
    if exps[-1] != hi_e:
        if hi_e - exps[-1] < step / 2 and len(exps) > 1:
            exps[-1] = hi_e
        else:
            exps.append(hi_e)
    return [2 ** e for e in exps]


def plot_group(rows, kernels, metric, path, title):
    """busbw (metric 'busbw') or time ('latency') vs size, log-log, one line per kernel.

    One panel per (mode, launch); NCCL dashed; wrong values marked with a red x.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    field, ylabel = (("busbw", "bus bandwidth (GB/s)") if metric == "busbw"
                     else ("time_us", "time (µs)"))
    index, _ = cr.index_rows(rows)
    points = list(index.values())
    panels = series_of(points)
    n = len(panels)
    ncols = min(n, 2)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(7.5 * ncols, 5 * nrows), squeeze=False,
                             sharey=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    others = [k for k in kernels if not any(r.is_nccl for r in points if r.kernel_name == k)]
    color_of = {k: colors[i % len(colors)] for i, k in enumerate(others)}  # same in every panel
    all_sizes = sorted({r.size for r in points if r.size > 0}) or [1]
    for i, ser in enumerate(panels):
        ax = axes[i // ncols][i % ncols]
        vrows = [r for r in points if r.launch == ser.launch and r.mode in ser.modes]
        sizes = sorted({r.size for r in vrows if r.size > 0})
        for k in kernels:
            by_size = {r.size: r for r in vrows if r.kernel_name == k}
            if not by_size:
                continue
            ys = []
            for size in sizes:
                r = by_size.get(size)
                v = getattr(r, field) if r is not None and r.measured else None
                ys.append(v if v is not None and v > 0 else float("nan"))
            if all(math.isnan(y) for y in ys):
                continue
            is_nccl = any(r.is_nccl for r in by_size.values())
            style = dict(color="black", linestyle="--") if is_nccl else \
                dict(color=color_of[k], linestyle="-")
            ax.plot(sizes, ys, marker="o", markersize=3, linewidth=1.5, label=k, **style)
            bad = [(size, getattr(r, field)) for size, r in by_size.items()
                   if r.is_wrong and r.measured and size > 0 and (getattr(r, field) or 0) > 0]
            if bad:
                ax.scatter([b[0] for b in bad], [b[1] for b in bad], marker="x", s=80,
                           color="red", zorder=5, label=f"{k}: wrong values")
        if len(ser.modes) > 1:  # where the mode changes
            for a, b in zip(ser.modes, ser.modes[1:]):
                hi = max((r.size for r in vrows if r.mode == a and r.size > 0), default=0)
                lo = min((r.size for r in vrows if r.mode == b and r.size > 0), default=0)
                if hi and lo:
                    ax.axvline(math.sqrt(hi * lo), color="grey", linestyle=":", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ticks = _size_ticks(all_sizes)
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _p: cr.format_bytes(int(x))))
        ax.tick_params(axis="x", labelrotation=45)
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(ylabel)
        ax.set_title(ser.label + ("" if len(ser.modes) > 1 else " mode") + " — "
                     + LAUNCH_TEXT.get(ser.launch, ser.launch))
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
    for j in range(n, nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --------------------------------------------------------------------------- main

def positive_float(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a positive number: {text!r}")
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="report.py",
        description="Write report.md and PNG plots from a directory of collbench JSON "
                    "results (the -J files of the programs; run.json is read as the run "
                    "manifest).",
        epilog="Exit status: 0 on success, 2 for unusable input (one line on stderr).")
    p.add_argument("results_dir", metavar="RESULTS_DIR", help="directory of *.json results")
    p.add_argument("-o", "--out-dir", metavar="OUT_DIR",
                   help="where report.md and the PNGs go (default: RESULTS_DIR)")
    p.add_argument("--placement", choices=cr.PLACEMENTS, default="out-of-place",
                   help="which placement the tables, plots and headline show "
                        "(default: out-of-place)")
    p.add_argument("--ce-ceiling", type=positive_float, metavar="GBPS",
                   help="copy-engine bandwidth ceiling in GB/s for the headline "
                        "(default: run.json's ce_ceiling_gbps, else n/a)")
    return p.parse_args(argv)


def require_matplotlib():
    """The plots need matplotlib: say so in one line before any work."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        raise cr.ResultsError(f"matplotlib cannot be imported ({e}): pip install -r "
                              "scripts/requirements.txt") from None


def refuse_copy_results(files):
    """copy_perf's rows are copies (direction, latency or bandwidth, host memory) with the
    copy engine as kernel 0: a collective report would set them beside NCCL."""
    for f in files:
        if f.is_copy:
            raise cr.ResultsError(f"{f.path}: a copy_perf result (copies by direction, "
                                  "measurement and host memory, not a collective): report.py "
                                  "reports the collective programs; compare.py compares "
                                  "copy_perf results")


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        require_matplotlib()
        if not os.path.isdir(args.results_dir):
            raise cr.ResultsError(f"{args.results_dir}: not a directory")
        files = cr.load_results(args.results_dir)
        refuse_copy_results(files)
        manifest = cr.load_manifest(args.results_dir)
        ce = args.ce_ceiling
        if ce is None and manifest is not None:
            ce = manifest.get("ce_ceiling_gbps")
        out_dir = args.out_dir or args.results_dir
        try:
            os.makedirs(out_dir, exist_ok=True)
            text = render_report(args.results_dir, files, manifest, out_dir,
                                 placement=args.placement, ce_ceiling=ce)
            path = os.path.join(out_dir, "report.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise cr.ResultsError(f"{e.filename or out_dir}: cannot write: "
                                  f"{e.strerror or e}") from None
    except cr.ResultsError as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
