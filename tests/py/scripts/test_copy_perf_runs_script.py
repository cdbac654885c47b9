"""tests/gpu/copy_perf_runs.sh and tests/gpu/copy_perf_digest.py on a CPU, against a stand-in
copy_perf that writes copy_perf's JSON document (-J) with made-up times: which runs RUNS picks
and with what command and tunables, the digest's verdicts on llhost's four targets, the
crossover it reads from the two protocol runs, a failed run, wrong bytes and bad input.

The stand-in's times (microseconds) are chosen so that each verdict is known:
  floor                 2.00
  ce latency            6.50 + size / 10,000
  llhost latency        LL16 (size <= the direction's CB_LLHOST_*_LL_MAX): 2.30 + size / 1,000;
                        flag: 3.00 + size / 10,000
  window, time per copy ce: its latency; llhost: a third of its protocol's latency, LL16 up
                        to the direction's CB_LLHOST_*_WINDOW_LL_MAX (1 KiB h2d, 64 B d2h)
With the default crossovers (4096 h2d, 512 d2h), llhost meets <= 0.6 x ce from 8 B to 4 KiB
but at h2d 2 and 4 KiB (LL16 there: 4.35 against 6.70, 0.65; 6.40 against 6.91), 8 B's floor target
(2.31 - 2.00 = 0.31), 4 KiB's bandwidth target, and misses nothing up to 256 KiB (3.00 +
26.2 = 29.2 against 6.5 + 26.2 = 32.7); LL16 against flag: 2.30 + s/1000 <= 3.00 + s/10000
holds up to s = 777, so the crossovers read back are 512 both ways, for latency and windows
alike. llhost's window is the fastest at every size.
"""

import json
import os
import subprocess
import sys

import pytest

from collbench_testlib import REPO

sys.path.insert(0, os.path.join(REPO, "tests", "gpu"))
import copy_perf_digest as digest  # noqa: E402

RUNS_SH = os.path.join(REPO, "tests", "gpu", "copy_perf_runs.sh")

STANDIN = r'''#!/usr/bin/env python3
"""copy_perf's stand-in: the rows of the sizes and kernels asked for, made-up times."""
import json, os, sys
args = sys.argv[1:]
with open(os.environ["STANDIN_LOG"], "a") as f:
    env = " ".join(f"{k}={os.environ[k]}" for k in sorted(os.environ) if k.startswith("CB_"))
    f.write(f"{env} | {' '.join(args)}\n")
fail = os.environ.get("STANDIN_FAIL", "")
def opt(name, default=None):
    return args[args.index(name) + 1] if name in args else default
def size(v):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(v[:-1]) * mult[v[-1]] if v[-1] in mult else int(v)
kernels = opt("-k", "all")
kernels = ["ce", "batch", "sm", "llhost"] if kernels == "all" else kernels.split(",")
dirs = opt("-D", "h2d,d2h").split(",")
lo, hi, factor = size(opt("-b", "1")), size(opt("-e", "4M")), int(opt("-f", "2"))
ll_max = {"h2d": int(os.environ.get("CB_LLHOST_H2D_LL_MAX", "4096")),
          "d2h": int(os.environ.get("CB_LLHOST_D2H_LL_MAX", "512"))}
window_ll_max = {d: min(ll_max[d], int(os.environ.get(f"CB_LLHOST_{d.upper()}_WINDOW_LL_MAX",
                                                      {"h2d": "1024", "d2h": "64"}[d])))
                 for d in ll_max}
wrong = int(os.environ.get("STANDIN_WRONG", "0"))
rows = []
s = lo
while s <= hi:
    for k in kernels:
        for d in dirs:
            for m, limit in (("latency", ll_max[d]), ("bandwidth", window_ll_max[d])):
                if k == "llhost":
                    proto = "ll16" if s <= limit else "flag-direct"
                    lat = 2.30 + s / 1000 if proto == "ll16" else 3.00 + s / 10000
                else:
                    proto, lat = "", 6.50 + s / 10000
                t = lat if m == "latency" else lat / (3 if k == "llhost" else 1)
                r = {"kernel_name": k, "direction": d, "size": s, "measurement": m,
                     "time_us": t, "algbw": s / t / 1000, "wrong": wrong}
                if proto:
                    r["protocol"] = proto
                if m == "latency":
                    r["p99_us"] = t * 1.1
                    r["over_floor_us"] = t - 2.0
                if m == "bandwidth" and "--overlap" in args:
                    r["overlap"] = {"load": opt("--overlap"), "time_us": t * 1.2,
                                    "call_slowdown": 1.2, "load_slowdown": 1.05}
                    if s >= (1 << 20):  # the load too slow for the window: no slowdown
                        r["overlap"].update(load_slowdown=None,
                                            why="no whole unit of the load fit in the window")
                rows.append(r)
    s *= factor
doc = {"collective": "copy", "floor": {"p50_us": 2.0, "p99_us": 2.4, "trips": 200},
       "results": rows}
with open(opt("-J"), "w") as f:
    json.dump(doc, f)
print("# Copy test starting: copy_perf")
if fail and fail in " ".join(args) + " " + os.environ.get("CB_LLHOST_BLOCKS", "-"):
    print("copy_perf: made to fail", file=sys.stderr)
    sys.exit(1)
'''


def run(tmp_path, runs=None, ngpus=1, **env):
    build = tmp_path / "build"
    build.mkdir(exist_ok=True)
    prog = build / "copy_perf"
    prog.write_text(STANDIN)
    prog.chmod(0o755)
    full = dict(os.environ, STANDIN_LOG=str(tmp_path / "calls.log"))
    for k in list(full):
        if k.startswith("CB_") or k in ("RUNS", "STANDIN_FAIL", "STANDIN_WRONG"):
            del full[k]
    if runs is not None:
        full["RUNS"] = runs
    full.update({k: str(v) for k, v in env.items()})
    out = tmp_path / "out"
    r = subprocess.run(["bash", RUNS_SH, str(out), str(build), str(ngpus)], env=full,
                       capture_output=True, text=True, timeout=600)
    calls = (tmp_path / "calls.log").read_text().splitlines() \
        if (tmp_path / "calls.log").exists() else []
    return r, out, calls


def line_of(text, *first):
    """The digest's line whose first words are FIRST (direction, size, unit...)."""
    return [l for l in text.splitlines() if l.split()[:len(first)] == list(first)][0]


def test_runs_picks_the_runs_named_and_heads_each_output(tmp_path):
    r, out, calls = run(tmp_path, runs="host_paths llhost_flag")
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out)) == ["host_paths.json", "host_paths.txt", "llhost_flag.json",
                                       "llhost_flag.txt"]
    assert len(calls) == 2
    assert calls[0].startswith(" | -k all -D h2d,d2h -b 8 -e 256K -f 2 -n 200")
    assert calls[1].startswith("CB_LLHOST_D2H_LL_MAX=0 CB_LLHOST_H2D_LL_MAX=0 | -k ce,llhost")
    head = (out / "llhost_flag.txt").read_text().splitlines()[0]
    assert head.startswith("# command: NCCL_NVLS_ENABLE=0 env CB_LLHOST_H2D_LL_MAX=0 "
                           "CB_LLHOST_D2H_LL_MAX=0 ")
    assert head.endswith(f"-J {out}/llhost_flag.json")


def test_gap_run_posts_at_random_times_and_has_no_targets(tmp_path):
    r, out, calls = run(tmp_path, runs="host_paths_gap")
    assert r.returncode == 0, r.stderr
    assert len(calls) == 1
    assert calls[0].startswith(" | -k all --post_gap 2000 -D h2d,d2h -b 8 -e 256K -f 2 -n 200")
    assert "== llhost against ce and the floor, posted at random times (host_paths_gap) ==" \
        in r.stdout
    assert "meets" not in r.stdout and "MISSES" not in r.stdout
    assert line_of(r.stdout, "h2d", "8", "B")


def test_blocks_run_once_for_each_block_count(tmp_path):
    r, out, calls = run(tmp_path, runs="llhost_blocks")
    assert r.returncode == 0, r.stderr
    assert [c.split(" | ")[0] for c in calls] == [f"CB_LLHOST_BLOCKS={b}" for b in (1, 8, 32, 128)]
    assert "== llhost by CB_LLHOST_BLOCKS" in r.stdout
    assert "B=128" in r.stdout


def test_llhost_targets_met_and_missed(tmp_path):
    r, _out, _calls = run(tmp_path, runs="host_paths")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "  floor (CPU -> resident kernel -> CPU flag round trip): p50 2.00 us" in lines
    eight = line_of(r.stdout, "h2d", "8", "B")
    assert "latency <= 0.6 x ce: meets" in eight and "<= floor + 0.5 us: meets" in eight
    four_k = line_of(r.stdout, "d2h", "4", "KiB")
    assert "window bw >= 2 x ce: meets" in four_k
    assert "  llhost's window against the best other path's: as fast or faster at every size" in lines
    # 2 KiB is LL16's size only with a crossover above it: 2.30 + 2.048 over 6.70 is 0.65.
    (tmp_path / "x").mkdir()
    r2, _o, _c = run(tmp_path / "x", runs="host_paths", CB_LLHOST_H2D_LL_MAX=2048,
                     CB_LLHOST_D2H_LL_MAX=2048)
    two_k = line_of(r2.stdout, "h2d", "2", "KiB")
    assert "latency <= 0.6 x ce: MISSES" in two_k
    assert "  targets: " in r2.stdout and " 2 missed" in r2.stdout  # h2d and d2h


def test_crossover_read_from_the_two_protocol_runs(tmp_path):
    r, _out, _calls = run(tmp_path, runs="llhost_ll16 llhost_flag")
    assert r.returncode == 0, r.stderr
    for d in ("h2d", "d2h"):
        assert (f"  {d}: LL16's latency is at most flag's at every size up to 512 B "
                f"(CB_LLHOST_{d.upper()}_LL_MAX=512)") in r.stdout
        assert (f"  {d}: LL16's window is at most flag's at every size up to 512 B "
                f"(CB_LLHOST_{d.upper()}_WINDOW_LL_MAX=512)") in r.stdout
    # Each size's verdicts, latency then window: LL16 at 512 B, flag from 1 KiB.
    assert line_of(r.stdout, "h2d", "512", "B").endswith("LL16, LL16")
    assert line_of(r.stdout, "d2h", "1", "KiB").endswith("flag, flag")


def test_overlap_rows_show_both_slowdowns(tmp_path):
    r, _out, calls = run(tmp_path, runs="overlap_gemm")
    assert r.returncode == 0, r.stderr
    assert "--overlap gemm" in calls[0]
    assert "== bandwidth copies beside gemm" in r.stdout
    row = line_of(r.stdout, "h2d", "4", "KiB", "llhost")
    assert row.split()[-2:] == ["1.200", "1.050"]
    # A slowdown copy_perf could not measure is a dash and copy_perf's reason, never nan.
    row = line_of(r.stdout, "h2d", "1", "MiB", "llhost")
    assert row.split()[6:9] == ["1.200", "-", "(no"]
    assert row.endswith("(no whole unit of the load fit in the window)")
    assert "nan" not in r.stdout


def test_a_failed_run_fails_the_script_and_the_others_still_run(tmp_path):
    r, out, calls = run(tmp_path, runs="llhost_blocks", STANDIN_FAIL="8")
    assert r.returncode == 1
    assert "copy_perf_runs.sh: llhost_blocks_8 failed; see" in r.stderr
    assert len(calls) == 4 and (out / "llhost_blocks_128.json").exists()


def test_wrong_bytes_are_named_and_fail(tmp_path):
    r, _out, _calls = run(tmp_path, runs="host_paths", STANDIN_WRONG=3)
    assert r.returncode == 1
    assert "WRONG: host_paths.json: ce h2d 8 B: 3 wrong" in r.stdout


def test_one_gpu_runs_no_d2d(tmp_path):
    r, out, calls = run(tmp_path, runs="d2d_1GiB")
    assert r.returncode == 0 and calls == []
    assert "one GPU visible: no d2d run" in r.stderr


@pytest.mark.parametrize("runs", ["bogus", "host_paths nope"])
def test_unknown_run_is_one_line_and_exit_2(tmp_path, runs):
    r, _out, calls = run(tmp_path, runs=runs)
    assert r.returncode == 2 and calls == []
    assert len(r.stderr.strip().splitlines()) == 1
    assert "RUNS: unknown run" in r.stderr


def test_digest_of_an_unreadable_file_is_exit_2(tmp_path):
    (tmp_path / "host_paths.json").write_text("{ not json")
    assert digest.main(["copy_perf_digest.py", str(tmp_path)]) == 2


def test_digest_of_an_empty_directory_says_so(tmp_path, capsys):
    assert digest.main(["copy_perf_digest.py", str(tmp_path)]) == 0
    assert "no copy_perf run with rows" in capsys.readouterr().out


def test_targets_by_size():
    names = lambda s: [w for w, _ in digest.llhost_targets(s)]  # noqa: E731
    assert names(8) == ["latency <= 0.6 x ce", "<= floor + 0.5 us"]
    assert names(4096) == ["latency <= 0.6 x ce", "window bw >= 2 x ce"]
    assert names(4097) == ["latency <= ce"]
    assert names(256 * 1024) == ["latency <= ce"]
    assert names(512 * 1024) == []


def test_skipped_rows_are_left_out():
    doc = {"results": [{"kernel_name": "gdrcopy", "skipped": "no gdrdrv"},
                       {"kernel_name": "ce", "time_us": 1.0, "measurement": "latency"}]}
    assert [r["kernel_name"] for r in digest.rows(doc)] == ["ce"]
    assert json.dumps(digest.rows(None)) == "[]"


def test_a_cell_a_run_lacks_is_a_dash():
    # llhost's latency alone: no ce, no window, no floor; and a blocks run without one size.
    lat = {"kernel_name": "llhost", "direction": "h2d", "size": 8, "measurement": "latency",
           "time_us": 3.0, "protocol": "ll16"}
    paths = digest.host_paths("t", [{"results": [lat]}], True)
    row = next(line for line in paths if line.split()[:2] == ["h2d", "8"])
    assert row.split()[3:13] == ["ll16", "-", "3.00", "-", "-", "-", "-", "-", "-", "-"]
    wide = dict(lat, size=16)
    by_blocks = digest.blocks({"llhost_blocks_8": {"results": [lat]},
                               "llhost_blocks_32": {"results": [lat, wide]}})
    assert by_blocks[-1].split() == ["h2d", "16", "B", "-", "/", "-", "3.00", "/", "-"]
    assert "nan" not in "\n".join(paths + by_blocks)


def test_best_other_window_is_the_fastest_kernel_but_llhost():
    def bw(kernel, algbw):
        return {"kernel_name": kernel, "direction": "d2h", "size": 64, "measurement": "bandwidth",
                "time_us": 1.0, "algbw": algbw}
    lat = {"kernel_name": "llhost", "direction": "d2h", "size": 64, "measurement": "latency",
           "time_us": 3.0, "protocol": "ll16"}
    doc = {"results": [lat, bw("ce", 0.5), bw("batch", 2.0), bw("llhost", 9.0), bw("sm", 1.5)]}
    paths = digest.host_paths("t", [doc], False)
    row = next(line for line in paths if "d2h" in line)
    assert row.split()[11:13] == ["batch", "2.000"]
    assert paths[-1].endswith("as fast or faster at every size")
    # Slower than batch's window: named with both figures.
    doc["results"][3] = bw("llhost", 1.25)
    assert digest.host_paths("t", [doc], False)[-1] == (
        "  llhost's window against the best other path's: behind at d2h 64 B (1.25 against "
        "batch's 2 GB/s)")
