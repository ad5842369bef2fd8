"""mpirun and mpiexec inside an allocation, as Slurm's users run them.

Debian's Open MPI 4.1 finds the allocation through the SLURM_* variables
(ras/slurm) and starts one orted per node with srun (plm/slurm: srun
--ntasks-per-node=1 --kill-on-bad-exit --mpi=none --nodes=N
--nodelist=... --ntasks=N orted ...); MPICH's mpiexec (Hydra) starts
its proxies through srun too. Nothing is set for either MPI here: the
only thing the user's environment holds is a PATH on which srun is
found, as it is on an installed system (arbor-slurm-compat).

The emulated nodes of `arbor local` share one host name, after which
Open MPI names its shared-memory segments (btl/vader): without a /dev/shm
of its own for each node (cli/local/local_shm.c), local rank 0 of node1
and local rank 0 of node2 of one mpirun opened the same segment and
crashed.
"""

import os
import shutil
import tempfile

import pytest

from conftest import skip_or_fail
from mpi_cases import compile_into, ranks_ok

HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = pytest.mark.loopback(
    "mpirun runs on the host, outside the nodes' network namespaces, and "
    "its orteds would need an interface chosen for them (docs/mpi.md)")


@pytest.fixture(scope="session")
def progs():
    """mpi_check built with each MPI's compiler that is installed."""
    d = tempfile.mkdtemp(prefix="arbor-mpirun-")
    os.chmod(d, 0o755)
    out = {}
    for mpi, cc in (("openmpi", "mpicc.openmpi"), ("mpich", "mpicc.mpich")):
        path = shutil.which(cc)
        if path:
            exe = os.path.join(d, "mpi_check_" + mpi)
            out[mpi] = compile_into(exe, [
                path, "-O1", "-o", exe,
                os.path.join(HERE, "mpi", "mpi_check.c")])
    yield out
    shutil.rmtree(d, ignore_errors=True)


def need(progs, mpi, launcher):
    if mpi not in progs or not shutil.which(launcher):
        skip_or_fail("%s is not installed (scripts/setup.sh installs it)"
                     % launcher)
    return progs[mpi]


def user_env(c):
    """What an installed system gives the user: srun on PATH (here the
    build's), and no MPI variable at all."""
    return {"PATH": "%s:/usr/bin:/bin" % os.path.join(c.build, "bin")}


def in_alloc(c, args, timeout=150):
    return c.run(["arbor", "alloc", "-N", "2", "-n", "4"] + args,
                 env=user_env(c), timeout=timeout)


def checks_pass(c, launcher, prog):
    """`launcher -n 4 prog all` in a two-node allocation: every check of
    every rank passes."""
    p = in_alloc(c, [launcher, "-n", "4", prog, "all"])
    assert p.returncode == 0, p.stdout + p.stderr
    ranks_ok(p.stdout, 4)


def ranks_on_both_nodes(c, launcher):
    """The launcher's daemons are srun's tasks, one per node: each rank
    runs in the step of its node's daemon, two ranks a node."""
    p = in_alloc(c, [launcher, "-n", "4", "printenv", "SLURMD_NODENAME"])
    assert p.returncode == 0, p.stdout + p.stderr
    assert sorted(p.stdout.split()) == ["node1", "node1", "node2",
                                        "node2"], p.stdout


def test_mpirun_in_an_allocation(cluster, test_user, progs):
    prog = need(progs, "openmpi", "mpirun.openmpi")
    c = cluster(2)
    checks_pass(c, "mpirun.openmpi", prog)
    ranks_on_both_nodes(c, "mpirun.openmpi")


def test_mpirun_in_a_batch_script(cluster, test_user, progs):
    prog = need(progs, "openmpi", "mpirun.openmpi")
    c = cluster(2)
    out = os.path.join(c.scratch, "mpirun.out")
    p = c.run(["arbor", "batch", "-N", "2", "-n", "4", "-W", "-o", out,
               "--wrap", "mpirun.openmpi -n 4 %s all" % prog],
              env=user_env(c), timeout=150)
    with open(out, errors="replace") as f:
        text = f.read()
    assert p.returncode == 0, p.stderr + text
    ranks_ok(text, 4)


def test_mpich_mpiexec_in_an_allocation(cluster, test_user, progs):
    prog = need(progs, "mpich", "mpiexec.mpich")
    c = cluster(2)
    checks_pass(c, "mpiexec.mpich", prog)
    ranks_on_both_nodes(c, "mpiexec.mpich")


def test_each_node_has_its_own_dev_shm(cluster, test_user):
    """What one node's tasks put in /dev/shm, the other's do not see, and
    neither does the host."""
    c = cluster(2)
    tag = "arbor-it-%d" % os.getpid()
    mine = "/dev/shm/%s.$SLURMD_NODENAME" % tag
    p = c.run(["arbor", "run", "-N", "2", "-l", "sh", "-c",
               "touch %s && sleep 1 && ls /dev/shm | grep '^%s'; rc=$?; "
               "rm -f %s; exit $rc" % (mine, tag, mine)])
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == [
        "0: %s.node1" % tag, "1: %s.node2" % tag], p.stdout
    assert not [n for n in os.listdir("/dev/shm") if n.startswith(tag)]
