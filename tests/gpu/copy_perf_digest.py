#!/usr/bin/env python3
"""The digest of copy_perf's recorded runs: what each run says against its target.

    tests/gpu/copy_perf_digest.py OUTDIR

Reads the JSON files that tests/gpu/copy_perf_runs.sh writes into OUTDIR (<run>.json) and
prints one section per run found (a run absent or without rows is left out):

  ce_large             ce's bandwidth from 64 MiB, pinned (target >= 53 GB/s both ways)
  small_latency        the fastest kernel's latency over ce's, up to 4 KiB (target <= 0.5)
  host_paths(_large)   llhost against ce and the floor, pinned memory, with its four targets:
                       latency <= 0.6 x ce's from 8 B to 4 KiB, <= ce's up to 256 KiB,
                       <= the floor + 0.5 us at 8 B, windowed bandwidth at 4 KiB >= 2 x ce's;
                       beside each size the fastest window of any other kernel, and last the
                       sizes where that window beats llhost's (a line to read, not a target)
  host_paths_gap       the same rows with each latency copy, and the floor's trips, posted
                       after a random gap (--post_gap), without targets
  host_paths_pageable  the same rows with --pageable (flag-staged above the crossover)
  llhost_ll16, llhost_flag
                       llhost's two protocols size by size (CB_LLHOST_*_LL_MAX and
                       CB_LLHOST_*_WINDOW_LL_MAX huge, then 0), and the crossovers they argue
                       for in each direction: the largest size up to which LL16's latency, and
                       its window's time per copy, is at most the flag protocol's at every
                       size
  llhost_blocks_<N>    llhost's latency and bandwidth for each CB_LLHOST_BLOCKS=N
  overlap_gemm         each kernel's bandwidth copies beside a GEMM: the copy's slowdown and
                       the GEMM's
  d2d_1GiB(_mpi)       ce, batch and sm to the peer GPU (target ce >= 390 GB/s)

A target line says "meets" or "MISSES"; the counts close each section. Exit 0 whatever the
targets (they are measurements to read, not checks), 1 when a row reports wrong bytes,
2 when a file cannot be read.
"""

from __future__ import annotations

import collections
import json
import os
import re
import sys

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)
from collbench_results import format_bytes  # noqa: E402

KIB = 1024


class Unreadable(Exception):
    pass


def load(outdir: str, name: str) -> dict | None:
    """The run's JSON document, or None when the run left none."""
    path = os.path.join(outdir, name + ".json")
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise Unreadable(f"{path}: unreadable ({e})") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise Unreadable(f"{path}: no \"results\" list (not a copy_perf -J document)")
    return doc


def rows(doc: dict | None, measurement: str | None = None) -> list:
    """The measured rows (skipped ones left out), of one measurement when named."""
    if not doc:
        return []
    return [r for r in doc["results"] if isinstance(r, dict) and "skipped" not in r
            and "time_us" in r and (measurement is None or r.get("measurement") == measurement)]


def cell(rs: list, kernel: str, direction: str, size: int, measurement: str) -> dict | None:
    for r in rs:
        if (r.get("kernel_name") == kernel and r.get("direction") == direction
                and r.get("size") == size and r.get("measurement") == measurement):
            return r
    return None



class Tally:
    def __init__(self) -> None:
        self.met = 0
        self.missed = 0

    def verdict(self, ok: bool) -> str:
        if ok:
            self.met += 1
            return "meets"
        self.missed += 1
        return "MISSES"

    def line(self) -> str:
        return f"  targets: {self.met} met, {self.missed} missed"


def sizes_of(rs: list, direction: str) -> list:
    return sorted({r["size"] for r in rs if r.get("direction") == direction})


def floor_of(doc: dict | None) -> float | None:
    fl = (doc or {}).get("floor")
    return fl.get("p50_us") if isinstance(fl, dict) else None


def ce_large(doc: dict | None) -> list:
    t = Tally()
    out = ["== ce, pinned, >= 64 MiB (target >= 53 GB/s) =="]
    for r in rows(doc, "bandwidth"):
        if r.get("kernel_name") == "ce":
            out.append(f"  {r['direction']} {format_bytes(r['size']):>8}  {r['algbw']:7.2f} GB/s  "
                       f"{t.verdict(r['algbw'] >= 53)}")
    return out + [t.line()]


def small_latency(doc: dict | None) -> list:
    t = Tally()
    out = ["== <= 4 KiB latency: the fastest kernel over ce (target <= 0.5) =="]
    lat = rows(doc, "latency")
    for d in ("h2d", "d2h"):
        for size in sizes_of(lat, d):
            here = [r for r in lat if r["direction"] == d and r["size"] == size]
            ce = cell(here, "ce", d, size, "latency")
            best = min(here, key=lambda r: r["time_us"])
            if not ce:
                continue
            ratio = best["time_us"] / ce["time_us"]
            out.append(f"  {d} {format_bytes(size):>8}  ce {ce['time_us']:6.2f} us  fastest "
                       f"{best['kernel_name']:8} {best['time_us']:6.2f} us (p99 "
                       f"{best['p99_us']:6.2f})  {ratio:.2f}  {t.verdict(ratio <= 0.5)}")
    return out + [t.line()]


def llhost_targets(size: int) -> list:
    """(what, test on (latency ratio, over floor, bandwidth ratio)) for one size."""
    targets = []
    if size <= 4 * KIB:
        targets.append(("latency <= 0.6 x ce", lambda lr, of, br: lr is not None and lr <= 0.6))
    elif size <= 256 * KIB:
        targets.append(("latency <= ce", lambda lr, of, br: lr is not None and lr <= 1.0))
    if size == 8:
        targets.append(("<= floor + 0.5 us", lambda lr, of, br: of is not None and of <= 0.5))
    if size == 4 * KIB:
        targets.append(("window bw >= 2 x ce", lambda lr, of, br: br is not None and br >= 2.0))
    return targets


def host_paths(title: str, docs: list, with_targets: bool) -> list:
    """llhost beside ce, size by size: latency, over the floor, windowed bandwidth."""
    all_rows = [r for doc in docs for r in rows(doc)]
    if not all_rows:
        return []
    fl = next((floor_of(doc) for doc in docs if floor_of(doc) is not None), None)
    out = [f"== {title} ==",
           f"  floor (CPU -> resident kernel -> CPU flag round trip): "
           + (f"p50 {fl:.2f} us" if fl is not None else "not measured"),
           f"  {'dir':4} {'size':>8}  {'protocol':12} {'ce us':>7} {'llhost':>7} {'ratio':>5} "
           f"{'+floor':>6}  {'ce GB/s':>7} {'llhost':>7} {'ratio':>5}  {'best other GB/s':>15}  "
           "targets"]
    t = Tally()
    behind = []  # sizes where another path's window is faster than llhost's
    for d in ("h2d", "d2h"):
        for size in sizes_of(all_rows, d):
            ce_l, ll_l = (cell(all_rows, k, d, size, "latency") for k in ("ce", "llhost"))
            ce_b, ll_b = (cell(all_rows, k, d, size, "bandwidth") for k in ("ce", "llhost"))
            if not ll_l:
                continue
            lr = ll_l["time_us"] / ce_l["time_us"] if ce_l and ce_l["time_us"] > 0 else None
            of = ll_l.get("over_floor_us")
            br = ll_b["algbw"] / ce_b["algbw"] if ll_b and ce_b and ce_b["algbw"] > 0 else None
            best = best_other(all_rows, d, size)
            if ll_b and best and ll_b["algbw"] < best["algbw"]:
                behind.append(f"{d} {format_bytes(size)} ({ll_b['algbw']:.3g} against "
                              f"{best['kernel_name']}'s {best['algbw']:.3g} GB/s)")
            verdicts = [f"{what}: {t.verdict(test(lr, of, br))}"
                        for what, test in (llhost_targets(size) if with_targets else [])]
            out.append(
                f"  {d:4} {format_bytes(size):>8}  {ll_l.get('protocol', '-'):12} "
                f"{num(ce_l and ce_l['time_us'], '7.2f')} {ll_l['time_us']:7.2f} "
                f"{num(lr, '5.2f')} {num(of, '+6.2f')}  "
                f"{num(ce_b and ce_b['algbw'], '7.3f')} {num(ll_b and ll_b['algbw'], '7.3f')} "
                f"{num(br, '5.2f')}  {best['kernel_name'] if best else '-':>7} "
                f"{num(best and best['algbw'], '7.3f')}  " + "; ".join(verdicts))
    out.append("  llhost's window against the best other path's: "
               + ("behind at " + ", ".join(behind) if behind else "as fast or faster at every size"))
    if with_targets:
        out.append(t.line())
    return out


def best_other(rs: list, direction: str, size: int) -> dict | None:
    """The fastest window of any kernel but llhost at this size: the path llhost's windows
    must match."""
    others = [r for r in rs if r.get("direction") == direction and r.get("size") == size
              and r.get("measurement") == "bandwidth" and r.get("kernel_name") != "llhost"]
    return max(others, key=lambda r: r["algbw"], default=None)


def ahead_up_to(a: list, b: list, direction: str, measurement: str) -> int:
    """The largest size up to which LL16's time (rows a) is at most flag's (rows b) at every
    size measured from the smallest; 0 where flag is ahead from the smallest."""
    end = 0
    for size in sizes_of(a, direction):
        x = cell(a, "llhost", direction, size, measurement)
        y = cell(b, "llhost", direction, size, measurement)
        if not x or not y:
            continue
        if x["time_us"] > y["time_us"]:
            break
        end = size
    return end


def crossover(ll16: dict | None, flag: dict | None) -> list:
    """LL16 against the flag protocol at each size, and the crossovers they argue for: of a
    single copy's latency (CB_LLHOST_*_LL_MAX) and of a window's time per copy
    (CB_LLHOST_*_WINDOW_LL_MAX)."""
    a, b = rows(ll16, "latency"), rows(flag, "latency")
    if not a or not b:
        return []
    ab, bb = rows(ll16, "bandwidth"), rows(flag, "bandwidth")
    out = ["== llhost's protocols: LL16 (llhost_ll16) against flag (llhost_flag) ==",
           f"  {'dir':4} {'size':>8}  {'LL16 us':>8} {'flag us':>8}  {'LL16 GB/s':>9} "
           f"{'flag GB/s':>9}  faster latency, window"]
    for d in ("h2d", "d2h"):
        for size in sizes_of(a, d):
            x, y = cell(a, "llhost", d, size, "latency"), cell(b, "llhost", d, size, "latency")
            if not x or not y:
                continue
            xb, yb = cell(ab, "llhost", d, size, "bandwidth"), cell(bb, "llhost", d, size,
                                                                    "bandwidth")
            faster = "LL16" if x["time_us"] <= y["time_us"] else "flag"
            window = "-" if not xb or not yb else \
                "LL16" if xb["time_us"] <= yb["time_us"] else "flag"
            out.append(f"  {d:4} {format_bytes(size):>8}  {x['time_us']:8.2f} {y['time_us']:8.2f}  "
                       f"{num(xb and xb['algbw'], '9.3f')} "
                       f"{num(yb and yb['algbw'], '9.3f')}  {faster}, {window}")
    for d in ("h2d", "d2h"):
        for what, m, rs, var in (("latency", "latency", (a, b), "LL_MAX"),
                                 ("window", "bandwidth", (ab, bb), "WINDOW_LL_MAX")):
            end = ahead_up_to(rs[0], rs[1], d, m)
            out.append(f"  {d}: LL16's {what} is at most flag's at every size up to "
                       f"{format_bytes(end) if end else 'none (flag from the smallest size)'}"
                       f" (CB_LLHOST_{d.upper()}_{var}={end})")
    return out


def blocks(docs: dict) -> list:
    """llhost's latency and bandwidth for each CB_LLHOST_BLOCKS run found."""
    found = sorted((int(m.group(1)), doc) for name, doc in docs.items()
                   if (m := re.fullmatch(r"llhost_blocks_(\d+)", name)))
    if not found:
        return []
    counts = [n for n, _ in found]
    out = ["== llhost by CB_LLHOST_BLOCKS: latency us / window GB/s ==",
           f"  {'dir':4} {'size':>8}  " + "  ".join(f"{'B=' + str(n):>15}" for n in counts)]
    sizes = sorted({(r["direction"], r["size"]) for _, doc in found for r in rows(doc)},
                   key=lambda x: (x[0] != "h2d", x[1]))
    for d, size in sizes:
        cells = []
        for _, doc in found:
            lat = cell(rows(doc), "llhost", d, size, "latency")
            bw = cell(rows(doc), "llhost", d, size, "bandwidth")
            cells.append(f"{num(lat and lat['time_us'], '6.2f')} / "
                         f"{num(bw and bw['algbw'], '6.2f')}")
        out.append(f"  {d:4} {format_bytes(size):>8}  " + "  ".join(f"{c:>15}" for c in cells))
    return out


def overlap(doc: dict | None) -> list:
    rs = [r for r in rows(doc, "bandwidth") if isinstance(r.get("overlap"), dict)]
    if not rs:
        return []
    load_name = rs[0]["overlap"].get("load", "?")
    out = [f"== bandwidth copies beside {load_name}: the copy's slowdown and the load's ==",
           f"  {'dir':4} {'size':>8}  {'kernel':8} {'alone us':>9} {'beside us':>9} "
           f"{'copy x':>7} {'load x':>7}"]
    for r in sorted(rs, key=lambda r: (r["direction"] != "h2d", r["size"], r["kernel_name"])):
        ov = r["overlap"]
        if "skipped" in ov or ov.get("time_us") is None:
            why = ov.get("skipped") or ov.get("why") or "not measured"
            out.append(f"  {r['direction']:4} {format_bytes(r['size']):>8}  {r['kernel_name']:8} "
                       f"not measured: {why}")
            continue
        cs, ls = ov.get("call_slowdown"), ov.get("load_slowdown")
        line = (f"  {r['direction']:4} {format_bytes(r['size']):>8}  {r['kernel_name']:8} "
                f"{r['time_us']:9.2f} {ov['time_us']:9.2f} {slowdown(cs)} {slowdown(ls)}")
        # A slowdown copy_perf could not measure: its reason, where it gave one.
        if (cs is None or ls is None) and ov.get("why"):
            line += f"  ({ov['why']})"
        out.append(line)
    return out


def num(x: float | None, spec: str) -> str:
    """x formatted by spec, or a dash as wide where the run has no such cell."""
    width = int(re.match(r"[+ -]?(\d+)", spec).group(1))
    return f"{x:{spec}}" if x is not None else f"{'-':>{width}}"


def slowdown(x: float | None) -> str:
    return num(x, "7.3f")


def d2d(docs: dict) -> list:
    t = Tally()
    out = ["== d2d, 1 GiB (target ce >= 390 GB/s) =="]
    for name, doc in docs.items():
        for r in rows(doc, "bandwidth"):
            ok = t.verdict(r["algbw"] >= 390) if r.get("kernel_name") == "ce" else ""
            out.append(f"  {name:13} {r['kernel_name']:6} {r['algbw']:7.2f} GB/s  {ok}".rstrip())
    return out + [t.line()] if len(out) > 1 else []


def wrong_rows(docs: dict) -> list:
    bad = []
    for name in sorted(docs):
        for r in rows(docs[name]):
            if isinstance(r.get("wrong"), int) and r["wrong"] > 0:
                bad.append(f"{name}.json: {r['kernel_name']} {r['direction']} {r['size']} B: "
                           f"{r['wrong']} wrong")
    return bad


def digest(outdir: str) -> tuple:
    # Every run's document, read once: name (the file less .json) -> document.
    docs = collections.defaultdict(lambda: None, {
        name[:-5]: load(outdir, name[:-5]) for name in os.listdir(outdir)
        if name.endswith(".json")})
    sections = [
        ce_large(docs["ce_large"]) if rows(docs["ce_large"]) else [],
        small_latency(docs["small_latency"]) if rows(docs["small_latency"]) else [],
        host_paths("llhost against ce and the floor, pinned (host_paths)",
                   [docs["host_paths"], docs["host_paths_large"]], True),
        host_paths("llhost against ce and the floor, posted at random times (host_paths_gap)",
                   [docs["host_paths_gap"]], False),
        host_paths("llhost against ce and the floor, pageable (host_paths_pageable)",
                   [docs["host_paths_pageable"]], False),
        crossover(docs["llhost_ll16"], docs["llhost_flag"]),
        blocks(docs),
        overlap(docs["overlap_gemm"]),
        overlap(docs["overlap_gemm_large"]),
        d2d({k: docs[k] for k in ("d2d_1GiB", "d2d_1GiB_mpi")}),
    ]
    text = "\n\n".join("\n".join(s) for s in sections if s)
    return text or "no copy_perf run with rows in " + outdir, wrong_rows(docs)


def main(argv: list) -> int:
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 else 2
    if not os.path.isdir(argv[1]):
        print(f"copy_perf_digest.py: {argv[1]}: no such directory", file=sys.stderr)
        return 2
    try:
        text, wrong = digest(argv[1])
    except Unreadable as e:
        print(f"copy_perf_digest.py: {e}", file=sys.stderr)
        return 2
    print(text)
    for w in wrong:
        print(f"WRONG: {w}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
