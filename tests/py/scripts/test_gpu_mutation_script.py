"""tests/gpu/mutation.sh on a CPU: a stand-in cmake "builds" each mutant (a stand-in
program in its own directory, marked with the mutation), the stand-in programs answer
each stress as the test says (gpu_standins.py), and the script must run the mutants on
the programs, kernels and rank counts it promises, ranks sharing one GPU where asked,
and call each run PASS, FAIL or SKIPPED for the right reason."""

import time

import pytest

from gpu_standins import Standins, verdicts

PROGRAMS = {
    "all_reduce_perf": ["ring", "ll", "ll2", "direct", "ce"],
    "alltoall_perf": ["ring", "ll", "direct", "ce"],
    "broadcast_perf": ["ring", "ll", "direct", "ce"],
    "gather_perf": ["ll", "direct", "ce"],
    "sendrecv_perf": ["ring", "ll", "direct", "ce"],
}
ROOTED = {"broadcast_perf", "gather_perf"}


def mutation(tmp_path, mutations, outcomes=(), ngpus=1, **env):
    s = Standins(tmp_path, PROGRAMS, outcomes)
    env.setdefault("MUTANT_DIR", tmp_path)
    env.setdefault("CALLS", 100)
    proc = s.run("mutation.sh", [str(s.build), str(ngpus)] + mutations, **env)
    return s, proc


def mutant_runs(s, m):
    return [c for c in s.calls() if c[0] == m]


def test_shared_gpu_at_3_and_8_ranks(tmp_path):
    """RANKS="3 8" on one GPU: every run of every mutant and of the normal build at 3
    and at 8 ranks, as one process sharing the GPU; each kernel the mutant touches in
    each program that has one; a root per call in the rooted programs; one verdict
    line per run."""
    s, proc = mutation(tmp_path, ["single_half", "consumed_before_barrier", "skip_start_wait"],
                       ["normal * * * * clean", "* * * * * wrong"], RANKS="3 8")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = s.calls()
    assert runs and {c[3] for c in runs} == {3, 8}
    assert all(c[5] == "1" for c in runs), runs  # CB_SHARE_GPUS=1 everywhere
    for c in runs:
        assert (f"-g {c[3]} " in c[7]) and ("-r all" in c[7]) == (c[1] in ROOTED), c
    ll = {(c[1], c[2], c[3]) for c in mutant_runs(s, "single_half")}
    assert ll == {(p, k, r) for p, ks in PROGRAMS.items() for k in ks if k.startswith("ll")
                  for r in (3, 8)}  # ll2's two-shot path, alltoall's and sendrecv's at 3+
    ring = {(c[1], c[3]) for c in mutant_runs(s, "consumed_before_barrier")}
    assert ring == {(p, r) for p, ks in PROGRAMS.items() if "ring" in ks and p != "alltoall_perf"
                    for r in (3, 8)}
    # the alltoall ring cannot show it (no sender gets a FIFO ahead): a skip with the reason
    skips = [v for v in verdicts(proc) if "consumed_before_barrier, alltoall_perf -k ring" in v]
    assert len(skips) == 2 and all(v.startswith("SKIPPED: ") and "a FIFO ahead" in v
                                   for v in skips), skips
    hs = {(c[1], c[2]) for c in mutant_runs(s, "skip_start_wait")}
    assert hs == {(p, k) for p, ks in PROGRAMS.items() for k in ks if k in ("direct", "ce")}
    # one line per run: each mutant run, and each normal run once per program:kernel:ranks
    lines = verdicts(proc)
    assert len([v for v in lines if v.startswith("PASS")]) == len(runs), lines
    normal = [c for c in runs if c[0] == "normal"]
    assert len(normal) == len({(c[1], c[2], c[3]) for c in normal})


def test_the_two_gpu_way_stays(tmp_path):
    """No RANKS: the runs are at NGPUS (2) ranks on their own GPUs, the credit mutant's
    at 3, beyond the GPUs and so sharing them."""
    s, proc = mutation(tmp_path, ["skip_fifo_wait", "skip_ll_credit"],
                       ["normal * * * * clean", "* * * * * wrong"], ngpus=2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fifo = mutant_runs(s, "skip_fifo_wait")
    assert fifo and all(c[3] == 2 and c[5] == "0" for c in fifo), fifo
    credit = mutant_runs(s, "skip_ll_credit")
    assert {c[1] for c in credit} == {"broadcast_perf", "gather_perf", "sendrecv_perf"}
    assert all(c[3] == 3 and c[5] == "1" for c in credit), credit


def test_credit_mutants_skip_sendrecv_at_2_ranks(tmp_path):
    """At 2 ranks sendrecv -k ll is the exchange, without credits: a credit mutant
    cannot show there, and the run is skipped, saying so, not failed."""
    s, proc = mutation(tmp_path, ["skip_ll_credit"], ["normal * * * * clean", "* * * * * wrong"],
                       ngpus=2, RANKS="2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "sendrecv_perf" not in {c[1] for c in s.calls()}
    assert any(v.startswith("SKIPPED: mutant skip_ll_credit, sendrecv_perf -k ll, 2 ranks: at 2 "
                            "ranks sendrecv -k ll is the exchange") for v in verdicts(proc))


@pytest.mark.parametrize("outcome, caught", [
    ("spin", True),           # the spin timeout naming rank, peer and kernel
    ("wrong", False),         # wrong values are not what a late credit does
    ("host_timeout", False),  # the host's -T alone names no wait of the kernel
    ("clean", False),
])
def test_late_credit_is_caught_by_its_spin_timeout_only(tmp_path, outcome, caught):
    s, proc = mutation(tmp_path, ["late_credit"],
                       ["normal * * * * clean", f"late_credit * * * * {outcome}"], RANKS="3")
    runs = mutant_runs(s, "late_credit")
    # the credited kernels whose sender can change; not sendrecv, whose sender never does
    assert {c[1] for c in runs} == {"broadcast_perf", "gather_perf"}
    assert all("-r all" in c[7] for c in runs)
    lines = [v for v in verdicts(proc) if "mutant late_credit" in v and " -k " in v
             and not v.startswith("SKIPPED")]
    assert len(lines) == len(runs)
    assert any(v.startswith("SKIPPED: mutant late_credit, sendrecv_perf -k ll, 3 ranks: a "
                            "sendrecv sender never changes") for v in verdicts(proc))
    if caught:
        assert proc.returncode == 0, proc.stdout
        assert all(v.startswith("PASS") and "timed out waiting for rank 0" in v for v in lines)
    else:
        assert proc.returncode == 1
        assert all(v.startswith("FAIL") and "not caught" in v for v in lines), lines


@pytest.mark.parametrize("outcome, caught", [
    ("wrong", True), ("spin", True), ("host_timeout", False), ("clean", False)])
def test_other_mutants_keep_their_verdicts(tmp_path, outcome, caught):
    """Wrong values catch a mutant, and so does a wait that timed out naming the rank."""
    s, proc = mutation(tmp_path, ["early_tile_done"],
                       ["normal * * * * clean", f"early_tile_done * * * * {outcome}"],
                       PROGRAMS="all_reduce_perf", RANKS="3")
    lines = [v for v in verdicts(proc) if "mutant early_tile_done" in v]
    assert len(lines) == 2  # ll, ll2
    assert proc.returncode == (0 if caught else 1), proc.stdout
    assert all(v.startswith("PASS" if caught else "FAIL") for v in lines), lines


def test_a_wrong_normal_build_fails(tmp_path):
    s, proc = mutation(tmp_path, ["skip_ce_landed"], ["normal all_reduce_perf ce * * wrong",
                                                      "* * * * * wrong"], RANKS="3")
    assert proc.returncode == 1
    assert "FAIL: normal build, all_reduce_perf -k ce, 3 ranks: exit 1, wrong 12" in verdicts(proc)


def test_wrong_values_count_whatever_the_exit_status(tmp_path):
    s, proc = mutation(tmp_path, ["skip_ce_landed"], ["normal * * * * wrong_exit0",
                                                      "* * * * * wrong_exit0"], RANKS="3")
    assert proc.returncode == 1
    lines = verdicts(proc)
    assert "PASS: mutant skip_ce_landed, all_reduce_perf -k ce, 3 ranks: caught (5 wrong values, " \
           "exit 0)" in lines
    assert "FAIL: normal build, all_reduce_perf -k ce, 3 ranks: exit 0, wrong 5" in lines


def test_a_kernel_that_refuses_the_run_is_skipped(tmp_path):
    s, proc = mutation(tmp_path, ["skip_ce_landed"], ["* * ce * * skip"], RANKS="8")
    assert proc.returncode == 0, proc.stdout
    assert "SKIPPED: mutant skip_ce_landed, all_reduce_perf -k ce, 8 ranks: skipped: ranks share " \
           "a GPU here" in verdicts(proc)


def test_a_hang_is_cut_at_its_cap(tmp_path):
    """A run that never ends (no spin timeout either) is cut at CAP and fails; the
    program was given a -T shorter than the cap. Exit 124 is the cap's cut (the
    stand-in sleeps 600 s): no verdict here reads the clock."""
    s, proc = mutation(tmp_path, ["late_credit"], ["* * * * * hang"], RANKS="3",
                       PROGRAMS="broadcast_perf", CAP=16)
    assert proc.returncode == 1
    lines = verdicts(proc)
    assert lines == ["FAIL: mutant late_credit, broadcast_perf -k ll, 3 ranks: not caught "
                     "(exit 124, wrong none, no spin timeout of ll)",
                     "FAIL: normal build, broadcast_perf -k ll, 3 ranks: exit 124, wrong none"]
    assert all("-T 6 " in c[7] for c in s.calls())


def test_the_deadline_leaves_runs_out(tmp_path):
    s, proc = mutation(tmp_path, ["skip_ll_poll"], RANKS="3", PROGRAMS="sendrecv_perf",
                       DEADLINE=int(time.time()) + 5)
    assert proc.returncode == 1
    assert s.calls() == []
    assert verdicts(proc) == ["SKIPPED(deadline): mutant skip_ll_poll, sendrecv_perf -k ll, 3 ranks"]


def test_build_only_runs_nothing(tmp_path):
    s, proc = mutation(tmp_path, ["single_half", "late_credit"], RANKS="3", BUILD_ONLY=1)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert s.calls() == []
    assert verdicts(proc) == ["PASS: mutant single_half built", "PASS: mutant late_credit built"]
    cmake = (tmp_path / "cmake.log").read_text()
    assert "-DCOLLBENCH_MUTATE=late_credit" in cmake
    # every program: a mutant's -k list says which of their kernels it touches
    assert "--target" not in cmake


def test_run_only_builds_nothing_and_runs_what_was_built(tmp_path):
    """BUILD_ONLY=1, then RUN_ONLY=1: the second call runs the mutants built by the
    first and calls no cmake; a mutant whose programs are missing fails, naming them."""
    s, proc = mutation(tmp_path, ["late_credit"], RANKS="3", BUILD_ONLY=1)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tmp_path / "cmake.log").unlink()
    proc = s.run("mutation.sh", [str(s.build), "1", "late_credit", "single_half"],
                 MUTANT_DIR=tmp_path, CALLS=100, RANKS="3", RUN_ONLY=1)
    assert proc.returncode == 1
    assert not (tmp_path / "cmake.log").exists()
    assert {c[1] for c in mutant_runs(s, "late_credit")} == {"broadcast_perf", "gather_perf"}
    lines = verdicts(proc)
    assert lines[-1] == (f"FAIL: mutant single_half: RUN_ONLY=1 and {tmp_path}/build-mutant-"
                         "single_half lacks its programs")


@pytest.mark.parametrize("mutant", ["single_half", "late_credit"])
def test_a_long_output_is_read_whole(tmp_path, mutant):
    """A spin timeout followed by 200,000 more lines is still a catch (read through a
    pipe that grep left early, under pipefail, it was "not caught")."""
    s, proc = mutation(tmp_path, [mutant], [f"{mutant} gather_perf ll 3 * long_spin"],
                       RANKS="3", PROGRAMS="gather_perf")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert any(v.startswith(f"PASS: mutant {mutant}, gather_perf -k ll, 3 ranks: caught")
               for v in verdicts(proc)), proc.stdout


@pytest.mark.parametrize("mutant", ["consumed_before_barrier", "skip_fifo_credit"])
def test_fifo_mutants_run_with_the_smallest_fifo(tmp_path, mutant):
    """They show only with a sender a whole FIFO ahead: their runs, and the normal
    build's beside them, have 2 slots on one pipe; another mutant's runs have the
    defaults."""
    s, proc = mutation(tmp_path, [mutant, "skip_fifo_wait"],
                       [f"{mutant} * * * * wrong", "skip_fifo_wait * * * * wrong"],
                       RANKS="3", PROGRAMS="sendrecv_perf")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = [line for line in proc.stdout.splitlines() if line.startswith("$ ")]
    assert len(runs) == 4, runs  # each mutant and the normal build beside it
    small = "$ CB_RING_SLOTS=2 CB_RING_CHANNELS=1 CB_SHARE_GPUS=1 "
    assert [r.startswith(small) for r in runs] == [True, True, False, False], runs


def test_skip_fifo_credit_is_skipped_in_the_alltoall_ring(tmp_path):
    """The alltoall ring frees each slot before its sender could need it, so the
    mutant cannot show there: a skip with the reason, not a run called caught or missed;
    the other rings run."""
    s, proc = mutation(tmp_path, ["skip_fifo_credit"], ["skip_fifo_credit * * * * wrong"], RANKS="3",
                       PROGRAMS="alltoall_perf sendrecv_perf")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = {(c[1], c[2]) for c in mutant_runs(s, "skip_fifo_credit")}
    assert runs == {("sendrecv_perf", "ring")}, runs
    skips = [v for v in verdicts(proc) if "skip_fifo_credit, alltoall_perf -k ring" in v]
    assert len(skips) == 1 and skips[0].startswith("SKIPPED: ") and "a FIFO ahead" in skips[0]


def test_copy_perf_mutant_is_one_validated_h2d_run(tmp_path):
    """h2d_first_copy_only: copy_perf -k llhost, h2d from 8 B to 1 MiB, one rank, no
    stress options; caught by its wrong bytes, and the normal build's same run has none.
    A mutant that passes is a FAIL, not a skip: copy_perf's kernel block says it ran."""
    s = Standins(tmp_path, {"copy_perf": ["llhost"]},
                 ["normal * * * * clean", "* * * * * wrong"])
    proc = s.run("mutation.sh", [str(s.build), "1", "h2d_first_copy_only"],
                 MUTANT_DIR=tmp_path, CALLS=100, RANKS="3 8")  # RANKS: not for copy_perf
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = s.calls()
    assert [(c[0], c[1], c[2]) for c in runs] == [("h2d_first_copy_only", "copy_perf", "llhost"),
                                                  ("normal", "copy_perf", "llhost")]
    for c in runs:
        assert c[7].startswith("-k llhost -D h2d -b 8 -e 1M "), c
        assert "--stress" not in c[7] and "-g " not in c[7], c
    v = verdicts(proc)
    assert v == ["PASS: mutant h2d_first_copy_only, copy_perf -k llhost, 1 ranks: caught "
                 "(12 wrong values, exit 1)",
                 "PASS: normal build, copy_perf -k llhost, 1 ranks: 0 wrong"], v

    (tmp_path / "x").mkdir()
    s2 = Standins(tmp_path / "x", {"copy_perf": ["llhost"]}, ["* * * * * clean"])
    proc2 = s2.run("mutation.sh", [str(s2.build), "1", "h2d_first_copy_only"],
                   MUTANT_DIR=tmp_path / "x", CALLS=100)
    assert proc2.returncode == 1
    assert verdicts(proc2)[0] == ("FAIL: mutant h2d_first_copy_only, copy_perf -k llhost, 1 ranks: "
                                  "not caught (exit 0, wrong 0)"), verdicts(proc2)


@pytest.mark.parametrize("mutant, dirs", [("d2h_first_copy_only", "d2h"),
                                          ("window_copies_stale", "h2d,d2h")])
def test_copy_perf_mutants_run_the_directions_they_break(tmp_path, mutant, dirs):
    """The copy mutants past h2d: copy_perf -k llhost in the directions each breaks,
    d2h with the flag protocol at every size (the kernel they break), and the normal
    build's same run beside."""
    s = Standins(tmp_path, {"copy_perf": ["llhost"]},
                 ["normal * * * * clean", "* * * * * wrong"])
    proc = s.run("mutation.sh", [str(s.build), "1", mutant], MUTANT_DIR=tmp_path, CALLS=100)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = s.calls()
    assert [(c[0], c[2], c[3]) for c in runs] == [(mutant, "llhost", 1), ("normal", "llhost", 1)]
    assert all(c[7].startswith(f"-k llhost -D {dirs} -b 8 -e 1M ") for c in runs), runs
    lines = [line for line in proc.stdout.splitlines() if line.startswith("$ ")]
    assert len(lines) == 2 and all(line.startswith("$ CB_LLHOST_D2H_LL_MAX=0 ")
                                   for line in lines), lines


def test_write_past_end_runs_reduce_scatters_ring_and_copy_perfs_sm(tmp_path):
    """write_past_end: reduce_scatter's ring at NGPUS ranks (past its one chunk is the
    guard alone) and copy_perf's sm on one rank, both directions of the host."""
    s = Standins(tmp_path, {"reduce_scatter_perf": ["ring", "ll", "direct"],
                            "copy_perf": ["sm", "llhost"]},
                 ["normal * * * * clean", "* * * * * wrong"])
    proc = s.run("mutation.sh", [str(s.build), "2", "write_past_end"], MUTANT_DIR=tmp_path,
                 CALLS=100)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = [(c[0], c[1], c[2], c[3]) for c in s.calls()]
    assert runs == [("write_past_end", "reduce_scatter_perf", "ring", 2),
                    ("normal", "reduce_scatter_perf", "ring", 2),
                    ("write_past_end", "copy_perf", "sm", 1), ("normal", "copy_perf", "sm", 1)]
    assert [c[7].startswith("-k sm -D h2d,d2h ") for c in s.calls()][2:] == [True, True]


def test_drop_head_runs_unaligned_in_the_programs_of_every_split_loop(tmp_path):
    """drop_head: all_reduce, all_gather and broadcast (every scalar loop of a split
    run), their direct and ring kernels, the mutant and the normal build alike with
    -u 3 (so that every run has a head to drop); ce's copies are the copy engine's."""
    progs = ("all_reduce_perf", "all_gather_perf", "broadcast_perf")
    s = Standins(tmp_path, {p: ["ring", "ll", "direct", "ce"] for p in progs},
                 ["normal * * * * clean", "* * * * * wrong"])
    proc = s.run("mutation.sh", [str(s.build), "2", "drop_head"], MUTANT_DIR=tmp_path,
                 CALLS=100)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = [(c[0], c[1], c[2]) for c in s.calls()]
    assert runs == [(who, p, k) for p in progs for k in ("ring", "direct")
                    for who in ("drop_head", "normal")], runs
    assert all(" -u 3 " in c[7] + " " for c in s.calls()), s.calls()
    assert sum(line.startswith("SKIPPED: mutant drop_head") and " -k ce," in line
               for line in verdicts(proc)) == 3, proc.stdout
    assert sum(line.endswith("caught (12 wrong values, exit 1)")
               for line in verdicts(proc)) == 6, proc.stdout


def test_each_build_runs_with_its_own_library_first(tmp_path):
    """The kernels live in libcollbench.so: a mutant's runs load the mutant's
    directory first and the normal build's runs the normal build's, whatever
    LD_LIBRARY_PATH named before."""
    s = Standins(tmp_path, {"all_reduce_perf": ["ring", "ll"]},
                 ["normal * * * * clean", "* * * * * wrong"])
    proc = s.run("mutation.sh", [str(s.build), "2", "skip_fifo_wait"], MUTANT_DIR=tmp_path,
                 CALLS=100, LD_LIBRARY_PATH=str(s.build))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    libs = [(c[0], c[8]) for c in s.calls()]
    assert libs == [("skip_fifo_wait", str(tmp_path / "build-mutant-skip_fifo_wait")),
                    ("normal", str(s.build))], libs


def test_a_mutants_run_without_its_header_fails(tmp_path):
    """A mutant's run whose header does not name the mutant (a normal library
    loaded) is no test of the mutant: FAIL, whatever it reported."""
    s = Standins(tmp_path, {"all_reduce_perf": ["ring"]},
                 ["normal * * * * clean", "* * * * * unmarked"])
    proc = s.run("mutation.sh", [str(s.build), "2", "skip_fifo_wait"], MUTANT_DIR=tmp_path,
                 CALLS=100)
    assert proc.returncode != 0, proc.stdout
    assert verdicts(proc) == ["FAIL: mutant skip_fifo_wait, all_reduce_perf -k ring, 2 ranks: "
                              "its run is not the mutant's (no MUTANT BUILD header: another "
                              "build's libcollbench.so?)"], proc.stdout
