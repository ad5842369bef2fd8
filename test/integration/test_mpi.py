"""MPI programs started directly: --mpi=pmix with Debian's Open MPI.

The programs (test/integration/mpi/) are compiled once per session with
Open MPI's mpicc and against Debian's PMIx, into a directory the test user
can read. Each stepd runs a PMIx server; the fences, direct modex and
aborts cross nodes through the stepds' exchange (STEP_MESH via the
nodeds). Ranks of emulated nodes share one host, so Open MPI's TCP
transport is kept on the loopback interface the nodes live on; on a
--netns cluster (ARBOR_TEST_NETNS=1) each node has its own lo, and the
ranks reach each other over the nodes' eth0 instead (mpi_env).
"""

import os
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import skip_or_fail
from mpi_cases import (abort_ends_the_step, all_checks_pass, compile_into,
                       early_exit_fails_the_step)

HERE = os.path.dirname(os.path.abspath(__file__))
MPI_ENV = {"OMPI_MCA_btl_tcp_if_include": "lo"}


def mpi_env(c):
    """MPI_ENV for cluster c: its nodes' interface between each other."""
    return {"OMPI_MCA_btl_tcp_if_include": "eth0"} if c.netns else MPI_ENV


@pytest.fixture(scope="session")
def mpi_progs():
    """Paths of the compiled test programs."""
    mpicc = shutil.which("mpicc.openmpi") or shutil.which("mpicc")
    pkgconf = shutil.which("pkg-config")
    if not mpicc or not pkgconf or subprocess.run(
            [pkgconf, "--exists", "pmix"]).returncode != 0:
        skip_or_fail("Open MPI's mpicc or PMIx's pkg-config file is missing "
                     "(scripts/setup.sh installs them)")
    d = tempfile.mkdtemp(prefix="arbor-mpi-")
    os.chmod(d, 0o755)
    flags = subprocess.run([pkgconf, "--cflags", "--libs", "pmix"],
                           stdout=subprocess.PIPE, check=True
                           ).stdout.decode().split()
    progs = {
        "check": compile_into(os.path.join(d, "mpi_check"), [
            mpicc, "-O1", "-o", os.path.join(d, "mpi_check"),
            os.path.join(HERE, "mpi", "mpi_check.c")]),
        "kv": compile_into(os.path.join(d, "pmix_kv"), [
            "cc", "-O1", "-o", os.path.join(d, "pmix_kv"),
            os.path.join(HERE, "mpi", "pmix_kv.c")] + flags),
    }
    yield progs
    shutil.rmtree(d, ignore_errors=True)


def mpirun(c, args, mpi="pmix", timeout=120, env=None):
    e = dict(mpi_env(c))
    e.update(env or {})
    pre = ["arbor", "run"] + (["--mpi=" + mpi] if mpi else [])
    return c.run(pre + args, env=e, timeout=timeout)


def pmix_run(c):
    return lambda args, timeout: mpirun(c, args, timeout=timeout)


def test_allreduce_ring_split_8_ranks_4_nodes(cluster, test_user, mpi_progs):
    all_checks_pass(pmix_run(cluster(4)), mpi_progs["check"], 4, 8)


def test_32_ranks_on_16_nodes(cluster, test_user, mpi_progs):
    all_checks_pass(pmix_run(cluster(16)), mpi_progs["check"], 16, 32)


def test_tree_of_width_two_and_one_node(cluster, test_user, mpi_progs):
    """MpiParams=tree_width=2: fences go up and down a binary tree."""
    run = pmix_run(cluster(5, MpiParams="tree_width=2"))
    all_checks_pass(run, mpi_progs["check"], 5, 5)
    all_checks_pass(run, mpi_progs["check"], 1, 3)


@pytest.mark.parametrize("mode", ["collect", "direct"])
def test_pmix_put_fence_get_across_nodes(cluster, test_user, mpi_progs, mode):
    """Put, Commit, Fence (collecting the data, or not: then the Get of
    another node's key is a direct modex) and Get of a rank elsewhere."""
    c = cluster(2, debug=True)
    p = mpirun(c, ["-N", "2", "-n", "4", mpi_progs["kv"], mode])
    assert p.returncode == 0, p.stderr + p.stdout
    got = sorted(p.stdout.splitlines())
    assert got == ["rank %d got %d from rank %d" % (r, 1000 + (r + 2) % 4,
                                                    (r + 2) % 4)
                   for r in range(4)], p.stdout
    logs = c.logs("node1") + c.logs("node2")
    if mode == "direct":
        assert "direct modex" in logs


def test_mpi_abort_ends_the_step_with_its_code(cluster, test_user, mpi_progs):
    abort_ends_the_step(pmix_run(cluster(3)), mpi_progs["check"])


def test_task_dying_before_mpi_init_fails_the_step(cluster, test_user,
                                                   mpi_progs):
    early_exit_fails_the_step(pmix_run(cluster(2)), mpi_progs["check"])


def test_mpi_types_defaults_and_errors(cluster, test_user, mpi_progs):
    c = cluster(2, MpiDefault="pmix")
    p = c.run(["arbor", "run", "--mpi=list", "true"])
    assert p.returncode == 0, p.stderr
    assert "none" in p.stdout.split() and "pmix" in p.stdout.split(), p.stdout
    p = c.run(["arbor", "run", "--mpi=mpi3", "true"])
    assert p.returncode == 1
    assert "invalid MPI type 'mpi3'" in p.stderr, p.stderr
    show = ["sh", "-c", 'echo "$SLURM_MPI_TYPE ${PMIX_RANK:-no}"']
    # MpiDefault=pmix applies without --mpi
    p = c.run(["arbor", "run", "-N", "2", "-n", "2", "-l"] + show)
    assert sorted(p.stdout.splitlines()) == ["0: pmix 0", "1: pmix 1"], \
        p.stdout + p.stderr
    # --mpi=none wins over it, and SLURM_MPI_TYPE is read like --mpi
    p = c.run(["arbor", "run", "--mpi=none"] + show)
    assert p.stdout.strip() == "none no", p.stdout + p.stderr
    p = c.run(["arbor", "run"] + show, env={"SLURM_MPI_TYPE": "pmix_v4"})
    assert p.stdout.strip() == "pmix 0", p.stdout + p.stderr
    p = c.run(["arbor", "run"] + show, env={"SLURM_MPI_TYPE": "bogus"})
    assert p.returncode == 1 and "invalid MPI type 'bogus'" in p.stderr


def test_mpi_directory_is_removed_with_the_step(cluster, test_user, mpi_progs):
    c = cluster(2)
    # The server's directory is root's: the tasks read what PMIx shares
    # there, and can plant nothing (issue 32; test_mpi_security.py).
    p = mpirun(c, ["-N", "2", "-n", "2", "sh", "-c",
                   'ls -ld "$PMIX_SERVER_TMPDIR" | cut -d" " -f1,3'])
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["drwxr-xr-x root"] * 2, p.stdout
    from test_cancel import wait_for

    def left():
        return [e for n in ("node1", "node2")
                for e in os.listdir(os.path.join(c.dir, "spool", n))
                if e.startswith(("mpi.", "pmix."))]
    # removed by each stepd after the launcher has its tasks' end
    wait_for(lambda: not left(), 10, "the MPI directories to go")


def test_non_mpi_program_under_pmix_exits_cleanly(cluster, test_user):
    c = cluster(2)
    p = mpirun(c, ["-N", "2", "-n", "4", "true"])
    assert p.returncode == 0, p.stderr
    p = mpirun(c, ["-N", "2", "-n", "2", "sh", "-c", "exit 3"])
    assert p.returncode == 3
    assert "exited with code 3 before MPI_Init" in p.stderr, p.stderr


def test_two_mpi_steps_at_once_in_one_job(cluster, test_user, mpi_progs):
    """Two MPI steps of one allocation run side by side (each its own
    namespace, servers and directory); they prove it by waiting for each
    other."""
    c = cluster(2)
    meet = os.path.join(c.scratch, "meet")
    os.mkdir(meet)
    os.chmod(meet, 0o777)
    # --exact: by default a step takes every core of its nodes (Slurm)
    one = '"%s" run --exact --mpi=pmix -N 2 -n 2 "%s" together "%s" 2' % (
        c.arbor, mpi_progs["check"], meet)
    p = c.run(["arbor", "alloc", "-N", "2", "-n", "4", "sh", "-c",
               "%s & %s & wait" % (one, one)], env=mpi_env(c), timeout=120)
    assert p.returncode == 0, p.stderr
    lines = [line for line in p.stdout.splitlines() if line.startswith("rank")]
    assert len(lines) == 4 and all(line.endswith(" ok") for line in lines), \
        p.stdout + p.stderr
    assert sorted(os.listdir(meet)) == ["0", "1"]


def test_lost_node_ends_the_mpi_step(cluster, test_user, mpi_progs):
    """node2's stepd is killed while the ranks run (past MPI_Init, in a
    long sleep): its tasks are lost, and without them the MPI job cannot
    go on, so the launcher cancels the step rather than wait forever."""
    from arbor_cluster import proc_cmdlines
    from test_cancel import finish, start, wait_for

    c = cluster(2, KillWait=2)
    prog = mpi_progs["check"]
    p = start(c, ["arbor", "run", "--mpi=pmix", "-N", "2", "-n", "2", prog,
                  "early", "99", "0"], env=mpi_env(c))

    def node2_stepd():
        return [pid for pid, argv in proc_cmdlines().items()
                if os.path.basename(argv[0]) == "arbor-stepd"
                and c.conf in argv and "node2" in argv
                and "--spawner" not in argv]

    def ranks_running():
        return len([pid for pid, argv in proc_cmdlines().items()
                    if argv[:1] == [prog]]) == 2

    wait_for(ranks_running, 60, "both ranks")
    wait_for(node2_stepd, 10, "node2's stepd")
    time.sleep(1)  # past MPI_Init's barrier
    for pid in node2_stepd():
        os.kill(pid, 9)
    rc, out, err = finish(p, 90)
    assert rc != 0, err
    assert "node2: its tasks are lost and the MPI job cannot go on" in err, err
    wait_for(lambda: not [pid for pid, argv in proc_cmdlines().items()
                          if argv[:1] == [prog]], 60, "the ranks to end")
