"""What the MPI tests check for every MPI type (test_mpi.py: Open MPI with
--mpi=pmix; test_mpi_pmi2.py: MPICH with --mpi=pmi2). Each check takes the
cluster and `run(args, timeout)`, which launches `arbor run --mpi=TYPE
ARGS` with the type's environment, and mpi_check's path
(test/integration/mpi/mpi_check.c, compiled for that MPI).
"""

import os
import subprocess
import time

import pytest


def compile_into(out, cmd):
    """Run the compiler command 'cmd' writing 'out'; fail the test with
    its output if it fails."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        pytest.fail("%s failed:\n%s" % (" ".join(cmd),
                                        p.stdout.decode(errors="replace")))
    os.chmod(out, 0o755)
    return out


def ranks_ok(out, n):
    """mpi_check all printed "rank R of N host H ok" for each rank."""
    lines = sorted(line for line in out.splitlines() if line.startswith("rank"))
    assert len(lines) == n, out
    seen = set()
    for line in lines:
        f = line.split()
        assert f[-1] == "ok" and f[3] == str(n), line
        seen.add(int(f[1]))
    assert seen == set(range(n)), out


def all_checks_pass(run, prog, nodes, ranks, timeout=180):
    p = run(["-N", str(nodes), "-n", str(ranks), prog, "all"], timeout)
    assert p.returncode == 0, p.stderr
    ranks_ok(p.stdout, ranks)


def abort_ends_the_step(run, prog):
    """Rank 4 of 6 on 3 nodes calls MPI_Abort(7) while the others wait in
    a barrier: every task is killed, the launcher says why and exits 7."""
    t0 = time.monotonic()
    p = run(["-N", "3", "-n", "6", prog, "abort", "4", "7"], 90)
    took = time.monotonic() - t0
    assert p.returncode == 7, (p.returncode, p.stderr)
    assert "aborted: rank 4 called MPI_Abort with status 7" in p.stderr, \
        p.stderr
    for r in (0, 1, 2, 3, 5):
        assert "task %d: Killed" % r in p.stderr, p.stderr
    assert took < 60, took


def early_exit_fails_the_step(run, prog):
    """Rank 3 of 4 exits 5 before MPI_Init while the others wait in it:
    the step fails promptly with that code."""
    t0 = time.monotonic()
    p = run(["-N", "2", "-n", "4", prog, "early", "3", "5"], 90)
    took = time.monotonic() - t0
    assert p.returncode == 5, (p.returncode, p.stderr)
    assert "task 3 exited with code 5 before MPI_Init" in p.stderr, p.stderr
    assert "task 0: Killed" in p.stderr, p.stderr
    assert took < 60, took
