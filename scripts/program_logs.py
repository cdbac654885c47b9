"""What the collective programs' text output says about correctness.

A record keeps every run's text output (the checks' logs among them). Each run of a
collective program prints, in nccl-tests' layout, one line a rank (its process, host and
GPU), a #wrong column for each measurement it checked, "# Out of bounds values : N" at
the end, and for --stress one "# stress kernel" line a kernel. That is enough to say, for
every run, what ran where and how much of it was checked, whatever script started it:

    program, ranks, processes, hosts (simulated or not), GPUs, calls checked, wrong elements

A run is the text from a program's first line ("# nccl-tests version ...") to the next
such line; the command line before it ("$ ..." or "# command: ...") names it. Lines of
other programs (NCCL's INFO lines, mpirun's) are passed over.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import record_files as rf

FIRST_LINE = re.compile(r"^# nccl-tests version ")
PROGRAM = re.compile(r"^# Collective test starting: (\S+)")
RANK = re.compile(r"^#\s+Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)"
                  r"\s+\[([^\]]*)\]")
# size count type [redop] root, then per placement: time algbw busbw #wrong (a program
# whose collective reduces nothing leaves redop blank)
ROW = re.compile(r"^\s+\d+\s+\d+\s+\S+\s+(?:[A-Za-z]\S*\s+)?-?\d+\s+(.*)$")
OUT_OF_BOUNDS = re.compile(r"^# Out of bounds values : (\d+)")
STRESS = re.compile(r"^# stress kernel \d+ \(([^)]+)\): (\d+) random calls.*: (\d+) wrong elements")
SIMULATED_HOSTS = re.compile(r"^# (\d+) hosts simulated on this machine")
SHARED = re.compile(r"^# CB_SHARE_GPUS=")
COMMAND = re.compile(r"^(?:\$ |# command: )(.*)$")


@dataclass
class Run:
    """One run of a collective program, as its output tells it."""
    source: str
    command: str = ""
    program: str = ""
    ranks: dict = field(default_factory=dict)  # rank -> (pid, host, pci)
    simulated_hosts: int = 0
    shared_gpus: bool = False
    checked: int = 0  # measurements whose #wrong was a number (each a call checked)
    wrong: int = 0  # wrong elements: the #wrong column, then "Out of bounds values"
    stress_calls: int = 0
    stress_wrong: int = 0
    finished: bool = False  # printed its "Out of bounds values" line

    @property
    def nranks(self) -> int:
        return len(self.ranks)

    @property
    def processes(self) -> int:
        return len({pid for pid, _h, _p in self.ranks.values()})

    @property
    def hosts(self) -> int:
        return len({h for _pid, h, _p in self.ranks.values()})

    @property
    def gpus(self) -> int:
        """Physical GPUs: simulated hosts on one machine share its GPUs."""
        return len({p for _pid, _h, p in self.ranks.values()})

    @property
    def calls(self) -> int:
        return self.checked + self.stress_calls

    @property
    def wrong_elements(self) -> int:
        return self.wrong + self.stress_wrong

    @property
    def layout(self) -> str:
        """Where the ranks ran, in words: '1 process, 2 GPUs', 'mpirun, 8 ranks on 1 GPU',
        '2 simulated hosts x 2 ranks, 1 GPU'."""
        gpus = f"{self.gpus} GPU{'s' * (self.gpus != 1)}"
        launch = "1 process" if self.processes == 1 else "mpirun"
        if self.simulated_hosts > 1 or self.hosts > 1:
            hosts = self.simulated_hosts or self.hosts
            kind = "simulated hosts" if self.simulated_hosts else "hosts"
            per_host = self.nranks // max(hosts, 1)
            return (f"{launch}, {hosts} {kind} x {per_host} rank{'s' * (per_host != 1)}, "
                    f"{gpus}")
        if self.nranks > self.gpus:
            return f"{launch}, {self.nranks} ranks on {gpus}"
        return f"{launch}, {gpus}"


def _measured_wrong(rest: str):
    """The #wrong numbers of a table row's placements (time algbw busbw #wrong, twice)."""
    cols = rest.split()
    out = []
    for i in range(3, len(cols), 4):
        if re.fullmatch(r"\d+", cols[i]):
            out.append(int(cols[i]))
    return out


def parse_text(text: str, source: str) -> list:
    """The runs of collective programs in one file's text."""
    runs, cur, command, hosts, shared = [], None, "", 0, False
    for line in text.splitlines():
        # The command, the simulated hosts and the shared GPUs are said before the
        # program's first line (by the script, and by the program's launcher check).
        if (m := COMMAND.match(line)):
            command = m.group(1).strip()
        elif (m := SIMULATED_HOSTS.match(line)):
            hosts = int(m.group(1))
            if cur is not None and not cur.program:
                cur.simulated_hosts = hosts
        elif SHARED.match(line):
            shared = True
            if cur is not None:
                cur.shared_gpus = True
        elif FIRST_LINE.match(line):
            cur = Run(source=source, command=command, simulated_hosts=hosts, shared_gpus=shared)
            runs.append(cur)
            command, hosts, shared = "", 0, False
        elif cur is None:
            continue
        elif (m := PROGRAM.match(line)):
            cur.program = m.group(1)
        elif (m := RANK.match(line)):
            cur.ranks[int(m.group(1))] = (m.group(2), m.group(3), m.group(5))
        elif (m := OUT_OF_BOUNDS.match(line)):
            cur.wrong, cur.finished = int(m.group(1)), True
        elif (m := STRESS.match(line)):
            cur.stress_calls += int(m.group(2))
            cur.stress_wrong += int(m.group(3))
        elif cur.program and not cur.finished and (m := ROW.match(line)):
            cur.checked += len(_measured_wrong(m.group(1)))
    return [r for r in runs if r.program and r.ranks]


def runs_under(folder: str) -> list:
    """Every run of a collective program in the text files under folder (on disk or in a
    record's archive), in file-name order, and those of the digests (DIGEST_NAME) that
    stand for logs of passing runs a record left out to keep within its budget."""
    out = []
    for path in rf.walk_files(folder):
        if os.path.basename(path) == DIGEST_NAME:
            out += parse_digest(rf.read_bytes(path).decode("utf-8", errors="replace"), path)
            continue
        if not path.endswith((".txt", ".log", ".out")):
            continue
        try:
            text = rf.read_bytes(path).decode("utf-8", errors="replace")
        except OSError:
            continue
        if "# nccl-tests version " not in text:
            continue
        out += parse_text(text, path)
    return out


@dataclass
class Cell:
    """Every run of one program at one rank count in one layout."""
    program: str
    nranks: int
    layout: str
    runs: int = 0
    unfinished: int = 0  # runs that printed no "Out of bounds values" line
    calls: int = 0
    stress_calls: int = 0
    wrong: int = 0


def matrix(runs: list) -> list:
    """Cells of program x rank count x layout, in that order."""
    cells = {}
    for r in runs:
        key = (r.program, r.nranks, r.layout)
        c = cells.setdefault(key, Cell(*key))
        c.runs += 1
        c.unfinished += 0 if r.finished else 1
        c.calls += r.calls
        c.stress_calls += r.stress_calls
        c.wrong += r.wrong_elements
    return [cells[k] for k in sorted(cells)]


# --------------------------------------------------------------------------- digests

DIGEST_NAME = "passed-runs.tsv"
DIGEST_FIELDS = ("source", "program", "simulated_hosts", "shared_gpus", "checked", "wrong",
                 "stress_calls", "stress_wrong", "finished", "ranks", "command")


def digest_line(run: Run, root: str) -> str:
    """One line of a digest: a run whose log left the record, as its log told it."""
    ranks = ",".join(f"{k}:{pid}:{host}:{pci}" for k, (pid, host, pci) in sorted(run.ranks.items()))
    values = (os.path.relpath(run.source, root), run.program, run.simulated_hosts,
              int(run.shared_gpus), run.checked, run.wrong, run.stress_calls, run.stress_wrong,
              int(run.finished), ranks, run.command)
    return "\t".join(str(v).replace("\t", " ").replace("\n", " ") for v in values)


def parse_digest(text: str, path: str) -> list:
    """The runs of a digest written by digest_line (its first line names the fields)."""
    runs = []
    for line in text.splitlines()[1:]:
        f = dict(zip(DIGEST_FIELDS, line.split("\t")))
        if len(f) != len(DIGEST_FIELDS):
            continue
        r = Run(source=os.path.join(os.path.dirname(path), f["source"]), command=f["command"],
                program=f["program"], simulated_hosts=int(f["simulated_hosts"]),
                shared_gpus=f["shared_gpus"] == "1", checked=int(f["checked"]),
                wrong=int(f["wrong"]), stress_calls=int(f["stress_calls"]),
                stress_wrong=int(f["stress_wrong"]), finished=f["finished"] == "1")
        for item in f["ranks"].split(","):
            k, pid, host, pci = item.split(":", 3)
            r.ranks[int(k)] = (pid, host, pci)
        runs.append(r)
    return runs
