"""Reading collbench result files: the one place that parses and validates them.

A collbench program run with `-J FILE` writes one JSON document (common/coll/report_json.c):
nccl-tests' own -J keys at the top level (for nccl-tests' tools), and collbench's document
under "collbench" (files written before that have collbench's document at the top level;
both are read):

    {"program", "collective", "date", "nranks", "options", "versions", "devices",
     "kernels", "results": [...], "stress": [...], "wrong_total", "avg_busbw"}

Every results[] entry names its kernel (id and name), type, redop, root, size (bytes),
count, placement ("out-of-place"/"in-place") and mode ("graph"/"stream"), and then
either "skipped": reason, or time_us, algbw, busbw (GB/s; null when not finite) and
wrong (an int, or null when the run did not check). scripts/sweep.sh writes a run
manifest, run.json, beside the result files; it is not a result file.

Both scripts/report.py and scripts/compare.py read their input through this module, and
through scripts/record_files.py a path into a record's raw/ folder reads the same whether
the folder is unpacked or kept as the record's raw.tar.xz.
Anything wrong with an input raises ResultsError with a one-line message that names
the file; the scripts print it and exit 2.

Rows carry a "launch" besides the fields of the file: "single" when every rank ran in
one process (`-g`/`-t`), "mpi" when the ranks were spread over processes (mpirun).
The two launches of the same sweep measure the same (kernel, size, mode), so the
launch is part of a row's identity (Row.key).

A row measured with --overlap carries "overlap": {load, time_us, call_slowdown,
load_alone, load_beside, load_slowdown, load_rate_unit, load_units_inside, why} (the
call's time beside a load and both slowdowns; null where not measured), or {load,
skipped} when it was not measured beside the load (Row.overlap, as the file has it).

copy_perf writes the same document with collective "copy", and every row adds
direction (h2d, d2h, d2d), measurement (latency, bandwidth) and host_memory (pinned,
pageable): together they are the row's "variant" ("d2d bandwidth pinned"), part of its
identity. Its kernel 0 is the copy engine, not NCCL (Row.is_nccl is False).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import record_files as rf

MANIFEST_NAME = "run.json"
NCCL_KERNEL_ID = 0
# NCCL's own variants (docs/kernels.md): nccl, nccl-sym (symmetric windows) and nccl-ce
# (copy engines). Our kernels are measured against the fastest of them that ran.
NCCL_KERNEL_IDS = (0, 6, 7)
COPY_COLLECTIVE = "copy"  # copy_perf's documents
COPY_ROW_KEYS = ("direction", "measurement", "host_memory")
PLACEMENTS = ("out-of-place", "in-place")
MODES = ("graph", "stream")
LAUNCHES = ("single", "mpi")

# Top-level keys every result document has (stress, wrong_total and avg_busbw came
# later and are optional: older files lack "stress").
REQUIRED_TOP_KEYS = ("program", "collective", "date", "nranks", "options", "versions",
                     "devices", "kernels", "results")
REQUIRED_ROW_KEYS = ("kernel", "kernel_name", "type", "redop", "root", "size", "count",
                     "placement", "mode")
MEASURED_ROW_KEYS = ("time_us", "algbw", "busbw", "wrong")

KEY_FIELDS = ("collective", "kernel_name", "variant", "type", "redop", "placement", "mode",
              "launch", "size")


class ResultsError(Exception):
    """An input that cannot be read as collbench results; str() is one line."""


@dataclass(frozen=True)
class Row:
    """One measurement (one results[] entry) of one file."""
    source: str  # the file it came from
    collective: str
    launch: str
    kernel_id: int
    kernel_name: str
    type: str
    redop: str
    root: int
    size: int
    count: int
    placement: str
    mode: str
    time_us: float | None = None
    algbw: float | None = None
    busbw: float | None = None
    wrong: int | None = None
    skipped: str | None = None
    iter_stats: dict | None = None
    variant: str = ""  # copy_perf: "direction measurement host_memory"; "" otherwise
    overlap: dict | None = None  # --overlap: the row's "overlap" object (None: no load)

    @property
    def is_copy(self) -> bool:
        return self.collective == COPY_COLLECTIVE

    @property
    def is_nccl(self) -> bool:
        """One of NCCL's variants (kernel 0, 6 or 7), not a kernel of ours (copy_perf has none)."""
        return not self.is_copy and self.kernel_id in NCCL_KERNEL_IDS

    @property
    def measured(self) -> bool:
        """Ran and has a time (not skipped, time not null)."""
        return self.skipped is None and self.time_us is not None

    @property
    def is_wrong(self) -> bool:
        return self.wrong is not None and self.wrong > 0

    def _overlap_number(self, key: str) -> float | None:
        v = (self.overlap or {}).get(key)
        return float(v) if is_number(v) else None

    @property
    def overlap_time_us(self) -> float | None:
        """The call's time beside the load (µs), or None."""
        return self._overlap_number("time_us")

    @property
    def call_slowdown(self) -> float | None:
        """The call's time beside the load over its time alone, or None."""
        return self._overlap_number("call_slowdown")

    @property
    def load_slowdown(self) -> float | None:
        """The load's rate alone over its rate beside the call, or None."""
        return self._overlap_number("load_slowdown")

    @property
    def overlap_measured(self) -> bool:
        """Measured beside a load, with both slowdowns."""
        return (self.overlap_time_us is not None and self.call_slowdown is not None
                and self.load_slowdown is not None)

    @property
    def key(self) -> tuple:
        """The identity used to match rows across runs (see KEY_FIELDS)."""
        return tuple(getattr(self, f) for f in KEY_FIELDS)


@dataclass(frozen=True)
class StressRow:
    source: str
    collective: str
    launch: str
    kernel_id: int
    kernel_name: str
    calls: int
    skipped: int
    wrong: int
    seconds: float | None


@dataclass
class ResultFile:
    path: str
    program: str
    collective: str
    date: str
    nranks: int
    launch: str
    modes: tuple
    wrong_total: int | None
    data: dict
    rows: list = field(default_factory=list)
    stress: list = field(default_factory=list)
    # Why the run's times mean nothing (ranks sharing a GPU, simulated hosts), or None:
    # the document's "times_not_comparable" where "times_comparable" is false.
    times_void: str | None = None

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def is_copy(self) -> bool:
        return self.collective == COPY_COLLECTIVE


# --------------------------------------------------------------------------- helpers

def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(float(v)))


def _read_json(path: str) -> Any:
    try:
        raw = rf.read_bytes(path)
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror or e}") from None
    if not raw.strip():
        raise ResultsError(f"{path}: empty file, expected a collbench JSON document")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ResultsError(f"{path}: not UTF-8 text (byte {e.start}), "
                           "expected a collbench JSON document") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        truncated = e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string")
        what = "truncated JSON (the document ends early)" if truncated else "invalid JSON"
        raise ResultsError(f"{path}: {what}: {e.msg} at line {e.lineno} column {e.colno}"
                           ) from None
    except RecursionError:
        raise ResultsError(f"{path}: invalid JSON: nested too deeply") from None


def _launch(devices: list) -> str:
    procs = {d.get("process") for d in devices if isinstance(d, dict)}
    return "mpi" if len(procs) > 1 else "single"


def _parse_row(path: str, i: int, r: Any, collective: str, launch: str) -> Row:
    where = f"{path}: results[{i}]"
    if not isinstance(r, dict):
        raise ResultsError(f"{where}: expected an object, found {type(r).__name__}")
    missing = [k for k in REQUIRED_ROW_KEYS if k not in r]
    if "skipped" not in r:
        missing += [k for k in MEASURED_ROW_KEYS if k not in r]
    if missing:
        raise ResultsError(f"{where}: missing key(s) {', '.join(missing)}")
    for k in ("kernel", "root", "size", "count"):
        if not is_int(r[k]):
            raise ResultsError(f"{where}: {k} must be an integer, found {r[k]!r}")
    if r["size"] < 0:
        raise ResultsError(f"{where}: size must not be negative, found {r['size']}")
    for k in ("kernel_name", "type", "redop"):
        if not isinstance(r[k], str) or not r[k]:
            raise ResultsError(f"{where}: {k} must be a non-empty string, found {r[k]!r}")
    if r["placement"] not in PLACEMENTS:
        raise ResultsError(f"{where}: placement must be one of {', '.join(PLACEMENTS)}, "
                           f"found {r['placement']!r}")
    if r["mode"] not in MODES:
        raise ResultsError(f"{where}: mode must be one of {', '.join(MODES)}, "
                           f"found {r['mode']!r}")
    base = dict(source=path, collective=collective, launch=launch, kernel_id=r["kernel"],
                kernel_name=r["kernel_name"], type=r["type"], redop=r["redop"],
                root=r["root"], size=r["size"], count=r["count"],
                placement=r["placement"], mode=r["mode"])
    if collective == COPY_COLLECTIVE:
        bad = [k for k in COPY_ROW_KEYS if not isinstance(r.get(k), str) or not r[k]]
        if bad:
            raise ResultsError(f"{where}: a copy_perf row needs {', '.join(bad)} "
                               "(a non-empty string each)")
        base["variant"] = " ".join(r[k] for k in COPY_ROW_KEYS)
    if "skipped" in r:
        if not isinstance(r["skipped"], str):
            raise ResultsError(f"{where}: skipped must be a string (the reason), "
                               f"found {r['skipped']!r}")
        return Row(**base, skipped=r["skipped"] or "skipped")
    values = {}
    for k in ("time_us", "algbw", "busbw"):
        v = r[k]
        if v is not None and not is_number(v):
            raise ResultsError(f"{where}: {k} must be a number or null, found {v!r}")
        values[k] = None if v is None else float(v)
    if values["time_us"] is not None and values["time_us"] < 0:
        raise ResultsError(f"{where}: time_us must not be negative, found {r['time_us']}")
    wrong = r["wrong"]
    if wrong is not None and not is_int(wrong):
        raise ResultsError(f"{where}: wrong must be an integer or null, found {wrong!r}")
    stats = r.get("iter_stats")
    if stats is not None and not isinstance(stats, dict):
        raise ResultsError(f"{where}: iter_stats must be an object, found {stats!r}")
    return Row(**base, **values, wrong=wrong, iter_stats=stats,
               overlap=_parse_overlap(where, r.get("overlap")))


OVERLAP_NUMBERS = ("time_us", "call_slowdown", "load_alone", "load_beside", "load_slowdown")


def _parse_overlap(where: str, ov: Any) -> dict | None:
    """A row's "overlap" object, checked: a load's name, then {skipped} or numbers (or null)."""
    if ov is None:
        return None
    if not isinstance(ov, dict):
        raise ResultsError(f"{where}: overlap must be an object, found {ov!r}")
    if not isinstance(ov.get("load"), str) or not ov["load"]:
        raise ResultsError(f"{where}: overlap.load must be a non-empty string, "
                           f"found {ov.get('load')!r}")
    if "skipped" in ov:
        return ov
    for k in OVERLAP_NUMBERS:
        v = ov.get(k)
        if v is not None and not (is_number(v) and v >= 0):
            raise ResultsError(f"{where}: overlap.{k} must be a number >= 0 or null, found {v!r}")
    return ov


def _parse_stress(path: str, i: int, s: Any, collective: str, launch: str) -> StressRow:
    where = f"{path}: stress[{i}]"
    if not isinstance(s, dict):
        raise ResultsError(f"{where}: expected an object, found {type(s).__name__}")
    missing = [k for k in ("kernel", "kernel_name", "calls", "skipped", "wrong")
               if k not in s]
    if missing:
        raise ResultsError(f"{where}: missing key(s) {', '.join(missing)}")
    for k in ("kernel", "calls", "skipped", "wrong"):
        if not is_int(s[k]):
            raise ResultsError(f"{where}: {k} must be an integer, found {s[k]!r}")
    secs = s.get("seconds")
    return StressRow(source=path, collective=collective, launch=launch, kernel_id=s["kernel"],
                     kernel_name=str(s["kernel_name"]), calls=s["calls"],
                     skipped=s["skipped"], wrong=s["wrong"],
                     seconds=float(secs) if is_number(secs) else None)


# --------------------------------------------------------------------------- loading

def load_result_file(path: str) -> ResultFile:
    """Read and validate one result document; ResultsError names the file."""
    path = str(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: not a collbench result document "
                           f"(top level is a {type(data).__name__}, expected an object)")
    if isinstance(data.get("collbench"), dict):  # beside nccl-tests' -J keys
        data = data["collbench"]
    missing = [k for k in REQUIRED_TOP_KEYS if k not in data]
    if missing:
        raise ResultsError(f"{path}: not a collbench result document: missing key(s) "
                           f"{', '.join(missing)}")
    for k in ("program", "collective"):
        if not isinstance(data[k], str) or not data[k]:
            raise ResultsError(f"{path}: {k} must be a non-empty string, found {data[k]!r}")
    if not is_int(data["nranks"]):
        raise ResultsError(f"{path}: nranks must be an integer, found {data['nranks']!r}")
    for k in ("results", "devices", "kernels"):
        if not isinstance(data[k], list):
            raise ResultsError(f"{path}: {k} must be a list, found {type(data[k]).__name__}")
    stress = data.get("stress", [])
    if not isinstance(stress, list):
        raise ResultsError(f"{path}: stress must be a list, found {type(stress).__name__}")
    wrong_total = data.get("wrong_total")
    if wrong_total is not None and not is_int(wrong_total):
        raise ResultsError(f"{path}: wrong_total must be an integer, found {wrong_total!r}")

    collective = data["collective"]
    launch = _launch(data["devices"])
    rows = [_parse_row(path, i, r, collective, launch) for i, r in enumerate(data["results"])]
    stress_rows = [_parse_stress(path, i, s, collective, launch) for i, s in enumerate(stress)]
    modes = tuple(sorted({r.mode for r in rows}))
    comparable = data.get("times_comparable", True)  # older documents: no such runs
    if not isinstance(comparable, bool):
        raise ResultsError(f"{path}: times_comparable must be true or false, found "
                           f"{comparable!r}")
    times_void = None if comparable else str(data.get("times_not_comparable") or "not said why")
    return ResultFile(path=path, program=data["program"], collective=collective,
                      date=str(data.get("date", "")), nranks=data["nranks"], launch=launch,
                      modes=modes, wrong_total=wrong_total, data=data, rows=rows,
                      stress=stress_rows, times_void=times_void)


def find_result_files(directory: str) -> list:
    """The *.json files of a directory other than the run manifest, sorted by name."""
    directory = str(directory)
    if not rf.isdir(directory):
        raise ResultsError(f"{directory}: not a directory")
    try:
        names = rf.listdir(directory)
    except OSError as e:
        raise ResultsError(f"{directory}: cannot list: {e.strerror or e}") from None
    files = sorted(n for n in names if n.endswith(".json") and n != MANIFEST_NAME
                   and not rf.isdir(os.path.join(directory, n)))
    if not files:
        raise ResultsError(f"{directory}: no result JSON files (*.json other than "
                           f"{MANIFEST_NAME})")
    return [os.path.join(directory, n) for n in files]


def load_results(path: str) -> list:
    """A results directory (every result file in it) or a single result file."""
    path = str(path)
    if rf.isdir(path):
        return [load_result_file(p) for p in find_result_files(path)]
    if not rf.exists(path):
        raise ResultsError(f"{path}: no such file or directory")
    return [load_result_file(path)]


def load_manifest(directory: str) -> dict | None:
    """run.json of a results directory (written by scripts/sweep.sh), or None."""
    path = os.path.join(str(directory), MANIFEST_NAME)
    if not rf.exists(path):
        return None
    data = _read_json(path)
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: run manifest must be a JSON object, "
                           f"found {type(data).__name__}")
    ce = data.get("ce_ceiling_gbps")
    if ce is not None and not (is_number(ce) and ce > 0):
        raise ResultsError(f"{path}: ce_ceiling_gbps must be a positive number, found {ce!r}")
    return data


def all_rows(files: list) -> list:
    return [r for f in files for r in f.rows]


def index_rows(rows: list) -> tuple:
    """{key: row} keeping the first row of each key, and the (kept, dropped) duplicates."""
    index, dups = {}, []
    for r in rows:
        if r.key in index:
            dups.append((index[r.key], r))
        else:
            index[r.key] = r
    return index, dups


def wrong_values(files: list) -> tuple:
    """(result rows with wrong > 0, stress rows with wrong > 0) of the files."""
    rows = [r for f in files for r in f.rows if r.is_wrong]
    stress = [s for f in files for s in f.stress if s.wrong > 0]
    return rows, stress


# --------------------------------------------------------------------------- formatting

def format_bytes(n: int) -> str:
    """As the programs print sizes: 8 B, 1 KiB, 1.50 MiB (binary units)."""
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    v, u = float(n), 0
    while v >= 1024.0 and u < len(units) - 1:
        v /= 1024.0
        u += 1
    return f"{int(v)} {units[u]}" if v == int(v) else f"{v:.2f} {units[u]}"


def parse_bytes(text: str) -> int:
    """'1048576', '1M', '64K', '1G' (binary units, as the programs) -> bytes; ValueError
    otherwise."""
    t = text.strip()
    unit = 1
    if t and t[-1] in "bB" and len(t) > 1 and t[-2] in "kKmMgG":
        t = t[:-1]
    if t and t[-1] in "kKmMgG":
        unit = 1 << (10 * ("kmg".index(t[-1].lower()) + 1))
        t = t[:-1]
    if not t.isdigit():
        raise ValueError(f"not a size: {text!r}")
    return int(t) * unit


def format_value(v: float | None) -> str:
    """A time or a bandwidth: 3 significant digits at least, no exponent for usual values."""
    if v is None:
        return "n/a"
    a = abs(v)
    if a >= 100:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a == 0:
        return "0"
    return f"{v:.3g}"


def format_ratio(r: float | None) -> str:
    return "n/a" if r is None else f"{r:.2f}×"


def describe_key(key: tuple) -> str:
    """'all_reduce ring float sum out-of-place graph single 8 B' for a Row.key
    ('copy ce d2d bandwidth pinned uint8 none ...' for copy_perf's)."""
    d = dict(zip(KEY_FIELDS, key))
    variant = f"{d['variant']} " if d["variant"] else ""
    return (f"{d['collective']} {d['kernel_name']} {variant}{d['type']} {d['redop']} "
            f"{d['placement']} {d['mode']} {d['launch']} {format_bytes(d['size'])}")


def md_escape(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")
