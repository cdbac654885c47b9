"""tests/gpu/peer_mapping.sh's verdicts, on a CPU: stand-in programs print what a real run
prints under each CB_PEER_MAPPING (the header line of the mapping used, or our kernels'
skip line where the mapping named cannot serve), a stand-in mpirun passes the ranks only
the variables its -x names (as Open MPI does across hosts), and the script must call
each case PASS or FAIL for the right reason. Above all its auto part (CB_PEER_MAPPING
unset): the header must name auto's pick, and where cumem served, the pick is cumem."""

import os
import subprocess

from collbench_testlib import REPO

SCRIPT = os.path.join(REPO, "tests", "gpu", "peer_mapping.sh")

# A stand-in collective program. STANDIN_CUMEM=0: cumem cannot serve here;
# STANDIN_AUTO (a mapping) overrides auto's pick; STANDIN_AUTO_LINE=0 leaves the
# header line of auto out.
STANDIN = r"""#!/usr/bin/env bash
if [ "$1 $2" = "-k list" ]; then
  printf '# kernels of %s\n   0  nccl  NCCL\n   1  ring  ring\n   2  ll  ll\n' "$(basename "$0")"
  printf '   3  direct  direct\n   4  ce  copy engines\n'
  exit 0
fi
echo "# args: $*"
cumem=${STANDIN_CUMEM:-1}
case ${CB_PEER_MAPPING-auto} in
  auto)
    pick=${STANDIN_AUTO:-$([ "$cumem" = 1 ] && echo cumem || echo ipc)}
    line="# Peer memory of our kernels: CB_PEER_MAPPING=auto: $pick (how)"
    [ "$pick" = ipc ] && line="$line, since cumem is unavailable: device 1 says no (rank 1)"
    [ "${STANDIN_AUTO_LINE:-1}" = 1 ] && echo "$line" ;;
  ipc) ;;
  cumem)
    echo "# Peer memory of our kernels: CB_PEER_MAPPING=cumem (how)"
    [ "$cumem" = 1 ] ||
      echo "# kernel 1 (ring) skipped: CB_PEER_MAPPING=cumem is unavailable: no (rank 1) (rank 1)" ;;
  fabric) echo "# kernel 1 (ring) skipped: CB_PEER_MAPPING=fabric is unavailable: no IMEX" ;;
esac
echo "# Out of bounds values : 0 OK"
"""

# A stand-in mpirun: one process, which gets CB_PEER_MAPPING only when -x names it.
MPIRUN = r"""#!/usr/bin/env bash
keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --allow-run-as-root | --oversubscribe) shift ;;
    -np | --bind-to) shift 2 ;;
    -x) [ "$2" = CB_PEER_MAPPING ] && keep=1; shift 2 ;;
    *) break ;;
  esac
done
[ $keep = 1 ] || unset CB_PEER_MAPPING
exec "$@"
"""


def run_script(tmp_path, **standin_env):
    build = tmp_path / "build"
    bindir = tmp_path / "bin"
    for d in (build, bindir):
        d.mkdir(exist_ok=True)
    for name in ("all_reduce_perf", "all_gather_perf", "alltoall_perf"):
        (build / name).write_text(STANDIN)
        (build / name).chmod(0o755)
    (bindir / "mpirun").write_text(MPIRUN)
    (bindir / "mpirun").chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}",
               LOGDIR=str(tmp_path / "logs"), RUN_CAP="20", **standin_env)
    env.pop("CB_PEER_MAPPING", None)
    env.pop("DEADLINE", None)
    proc = subprocess.run(["bash", SCRIPT, str(build), "2"], capture_output=True, text=True,
                          env=env, timeout=600, cwd=REPO)
    summary = (tmp_path / "logs" / "summary.txt").read_text().splitlines()
    return proc, summary


def rows(summary, prefix):
    return [line for line in summary if line.startswith(prefix)]


def test_auto_picks_cumem_where_it_serves(tmp_path):
    proc, summary = run_script(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    auto = rows(summary, "auto all_reduce")
    assert len(auto) == 2, summary  # one process and mpirun
    assert all(r.endswith("PASS(auto picked cumem)") for r in auto), auto
    assert len(rows(summary, "cumem ")) == 18 and len(rows(summary, "ipc ")) == 18
    log = (tmp_path / "logs" / "auto_all_reduce_mpi.txt").read_text()
    assert log.startswith("$ CB_PEER_MAPPING=(unset) mpirun")
    assert "-x CB_PEER_MAPPING" not in log.splitlines()[0]  # the ranks' own default


def test_auto_falls_back_to_ipc_where_cumem_cannot_serve(tmp_path):
    proc, summary = run_script(tmp_path, STANDIN_CUMEM="0")
    assert proc.returncode == 1  # the cumem runs skipped our kernels: FAIL
    assert all("FAIL(kernels skipped" in r for r in rows(summary, "cumem ")), summary
    auto = rows(summary, "auto all_reduce")
    assert len(auto) == 2 and all(r.endswith("PASS(auto picked ipc)") for r in auto), auto


def test_auto_picking_ipc_where_cumem_served_fails(tmp_path):
    proc, summary = run_script(tmp_path, STANDIN_AUTO="ipc")
    assert proc.returncode == 1
    auto = rows(summary, "auto all_reduce")
    assert len(auto) == 2, summary
    assert all("FAIL(auto picked ipc where cumem passed: since cumem is unavailable: device 1"
               in r for r in auto), auto


def test_auto_without_its_header_line_fails(tmp_path):
    proc, summary = run_script(tmp_path, STANDIN_AUTO_LINE="0")
    assert proc.returncode == 1
    auto = rows(summary, "auto all_reduce")
    assert len(auto) == 2 and all(r.endswith("FAIL(header does not name auto's pick)")
                                  for r in auto), auto
