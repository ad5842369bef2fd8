"""MPI programs started directly: --mpi=pmi2 with Debian's MPICH.

Debian's MPICH 4.0.2 (ch4:ucx, built for Hydra) carries MPICH's simple
PMI-1 client: given PMI_FD, PMI_RANK and PMI_SIZE it speaks PMI-1 over the
descriptor (cmd=init pmi_version=1 ..., put, barrier_in, get). Each stepd
serves it (plugins/mpi/pmi2); fences cross nodes through the stepds'
all-gather. The PMI-2 side of the plugin, which no installed MPI speaks,
is driven by a small client written here (PMI_CLIENT), as are malformed
commands.

MPICH needs no setting under emulation: PMI_process_mapping tells it
which ranks share an (emulated) node, so those talk through its shared
memory, and ranks of different emulated nodes go through UCX, whose
shared-memory transports reach them as they are on one host. So MPI_ENV
is empty, unlike test_mpi.py's for Open MPI.
"""

import os
import shutil
import tempfile
import time

import pytest

from conftest import skip_or_fail
from mpi_cases import (abort_ends_the_step, all_checks_pass, compile_into,
                       early_exit_fails_the_step)

HERE = os.path.dirname(os.path.abspath(__file__))
MPI_ENV = {}

# A PMI client in Python: "pmi2" runs the PMI-2 protocol through fences
# across nodes; "bad" sends PMI-1 commands that must be refused; "die"
# initializes PMI-1, then rank R kills itself while the others wait in a
# barrier.
PMI_CLIENT = r'''
import os, signal, socket, sys

class Pmi:
    def __init__(self):
        self.s = socket.socket(fileno=int(os.environ["PMI_FD"]))
        self.buf = b""

    def more(self):
        d = self.s.recv(65536)
        if not d:
            raise EOFError
        self.buf += d

    def read(self, n):
        while len(self.buf) < n:
            self.more()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out.decode()

    def line(self):
        while b"\n" not in self.buf:
            self.more()
        out, _, self.buf = self.buf.partition(b"\n")
        return dict(t.split("=", 1) for t in out.decode().split())

    def cmd1(self, text):
        self.s.sendall(text.encode())
        return self.line()

    def cmd2(self, body):
        b = body.encode()
        self.s.sendall(b"%-6d" % len(b) + b)
        return parse2(self.read(int(self.read(6))))

def parse2(body):
    out, i = {}, 0
    while i < len(body):
        eq = body.index("=", i)
        key, i, val = body[i:eq], eq + 1, ""
        while i < len(body):
            if body[i] == ";" and body[i + 1:i + 2] == ";":
                val, i = val + ";", i + 2
            elif body[i] == ";":
                i += 1
                break
            else:
                val, i = val + body[i], i + 1
        out[key] = val
    return out

def check(r, **want):
    for k, v in want.items():
        if r.get(k) != v:
            raise SystemExit("rank %s: %s: wanted %s=%s" % (rank, r, k, v))
    return r

def pmi2():
    p, job = Pmi(), os.environ["PMI_JOBID"]
    check(p.cmd1("cmd=init pmi_version=2 pmi_subversion=0\n"),
          cmd="response_to_init", rc="0", pmi_version="2")
    check(p.cmd2("cmd=fullinit;pmijobid=%s;pmirank=%d;threaded=FALSE;"
                 % (job, rank)),
          cmd="fullinit-response", rc="0", rank=str(rank), size=str(size))
    check(p.cmd2("cmd=job-getid;"), rc="0", jobid=job)
    m = check(p.cmd2("cmd=info-getjobattr;key=PMI_process_mapping;"),
              found="TRUE")["value"]
    check(p.cmd2("cmd=info-getjobattr;key=universeSize;"), value=str(size))
    check(p.cmd2("cmd=info-getjobattr;key=nosuchattr;"), found="FALSE")
    # local 0 puts a node attribute that the others wait for
    if os.environ["SLURM_LOCALID"] == "0":
        check(p.cmd2("cmd=info-putnodeattr;key=leader;value=%d;" % rank),
              cmd="info-putnodeattr-response", rc="0")
        leader = str(rank)
    else:
        leader = check(p.cmd2("cmd=info-getnodeattr;key=leader;wait=TRUE;"),
                       found="TRUE")["value"]
    peer = (rank + size // 2) % size
    for rnd in ("a", "b"):
        check(p.cmd2("cmd=kvs-put;key=%s%d;value=v;;%d;" % (rnd, rank, rank)),
              cmd="kvs-put-response", rc="0")
        check(p.cmd2("cmd=kvs-fence;"), cmd="kvs-fence-response", rc="0")
        check(p.cmd2("cmd=kvs-get;jobid=%s;srcid=-1;key=%s%d;"
                     % (job, rnd, peer)),
              found="TRUE", value="v;%d" % peer)
    check(p.cmd2("cmd=kvs-get;jobid=%s;srcid=-1;key=nokey;" % job),
          rc="0", found="FALSE")
    check(p.cmd2("cmd=finalize;"), cmd="finalize-response", rc="0")
    print("rank %d mapping %s leader %s ok" % (rank, m, leader))

def bad():
    p = Pmi()
    check(p.cmd1("cmd=get_maxes\n"), cmd="error", rc="-1")  # before init
    check(p.cmd1("cmd=init pmi_version=1 pmi_subversion=1\n"),
          cmd="response_to_init", rc="0", pmi_version="1")
    check(p.cmd1("garbage\n"), cmd="error", rc="-1")
    check(p.cmd1("cmd=frobnicate\n"), cmd="error", rc="-1")
    check(p.cmd1("cmd=put kvsname=x key=k\n"), cmd="put_result", rc="-1")
    check(p.cmd1("cmd=put kvsname=x key=%s value=v\n" % ("k" * 65)),
          cmd="put_result", rc="-1")
    check(p.cmd1("cmd=get kvsname=x key=nokey\n"), cmd="get_result", rc="-1")
    check(p.cmd1("cmd=get kvsname=x key=PMI_process_mapping\n"),
          rc="0", value="(vector,(0,1,1))")
    check(p.cmd1("cmd=get_my_kvsname\n"), kvsname=os.environ["PMI_JOBID"])
    check(p.cmd1("cmd=get_universe_size\n"), size="1")
    check(p.cmd1("cmd=get_appnum\n"), appnum="0")
    check(p.cmd1("cmd=get_maxes\n"), keylen_max="64", vallen_max="1024")
    try:  # longer than a command may be: the stepd hangs up
        p.s.sendall(b"cmd=put kvsname=x key=k value=" + b"x" * 8000)
        p.line()
        outcome = "answered"
    except (EOFError, ConnectionError):
        outcome = "closed"
    print("bad ok %s" % outcome)

def die(victim):
    p = Pmi()
    check(p.cmd1("cmd=init pmi_version=1 pmi_subversion=1\n"), rc="0")
    if rank == victim:
        os.kill(os.getpid(), signal.SIGKILL)
    p.cmd1("cmd=barrier_in\n")

rank, size = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
if sys.argv[1] == "pmi2":
    pmi2()
elif sys.argv[1] == "bad":
    bad()
else:
    die(int(sys.argv[2]))
'''


@pytest.fixture(scope="session")
def mpich_progs():
    """Paths of the test programs: mpi_check built with MPICH, and the
    Python PMI client."""
    mpicc = shutil.which("mpicc.mpich")
    if not mpicc:
        skip_or_fail("MPICH's mpicc.mpich is missing (libmpich-dev)")
    d = tempfile.mkdtemp(prefix="arbor-mpich-")
    os.chmod(d, 0o755)
    client = os.path.join(d, "pmi_client.py")
    with open(client, "w") as f:
        f.write(PMI_CLIENT)
    os.chmod(client, 0o644)
    yield {
        "check": compile_into(os.path.join(d, "mpi_check"), [
            mpicc, "-O1", "-o", os.path.join(d, "mpi_check"),
            os.path.join(HERE, "mpi", "mpi_check.c")]),
        "client": ["/usr/bin/python3", client],
    }
    shutil.rmtree(d, ignore_errors=True)


def mpirun(c, args, timeout=120, env=None):
    e = dict(MPI_ENV)
    e.update(env or {})
    return c.run(["arbor", "run", "--mpi=pmi2"] + args, env=e,
                 timeout=timeout)


def pmi2_run(c):
    return lambda args, timeout: mpirun(c, args, timeout=timeout)


def test_allreduce_ring_split_8_ranks_4_nodes(cluster, test_user,
                                              mpich_progs):
    all_checks_pass(pmi2_run(cluster(4)), mpich_progs["check"], 4, 8)


def test_32_ranks_on_16_nodes(cluster, test_user, mpich_progs):
    all_checks_pass(pmi2_run(cluster(16)), mpich_progs["check"], 16, 32)


def test_uneven_layout_and_one_node(cluster, test_user, mpich_progs):
    """7 ranks on 3 nodes (3, 2, 2): a mapping of two blocks; and 3 ranks
    on one node, all in MPICH's shared memory."""
    run = pmi2_run(cluster(3))
    all_checks_pass(run, mpich_progs["check"], 3, 7)
    all_checks_pass(run, mpich_progs["check"], 1, 3)


def test_pmi2_protocol_across_nodes(cluster, test_user, mpich_progs):
    """The PMI-2 wire protocol: fullinit, job attributes, node attributes
    (a wait answered by a later put), two put/fence/get rounds reading
    another node's key (';' escaped), a missing key, finalize."""
    c = cluster(2)
    p = mpirun(c, ["-N", "2", "-n", "5"] + mpich_progs["client"] + ["pmi2"])
    assert p.returncode == 0, p.stderr + p.stdout
    assert sorted(p.stdout.splitlines()) == [
        "rank %d mapping (vector,(0,1,3),(1,1,2)) leader %d ok"
        % (r, 0 if r < 3 else 3) for r in range(5)], p.stdout


def test_malformed_commands_are_refused(cluster, test_user, mpich_progs):
    """Bad PMI-1 commands get an error answer; one longer than a command
    may be closes the connection; the task then ends without finalizing,
    which fails the step."""
    c = cluster(1)
    p = mpirun(c, ["-n", "1"] + mpich_progs["client"] + ["bad"])
    assert p.stdout.strip() == "bad ok closed", p.stdout + p.stderr
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "task 0 exited with code 0 before MPI_Finalize" in p.stderr, \
        p.stderr
    log = c.logs("node1")
    assert "PMI: rank 0: malformed command" in log, log
    assert "PMI: rank 0: command too long: closing its PMI connection" \
        in log, log


def test_mpi_abort_ends_the_step_with_its_code(cluster, test_user,
                                               mpich_progs):
    abort_ends_the_step(pmi2_run(cluster(3)), mpich_progs["check"])


def test_task_dying_before_mpi_init_fails_the_step(cluster, test_user,
                                                   mpich_progs):
    early_exit_fails_the_step(pmi2_run(cluster(2)), mpich_progs["check"])


def test_task_killed_after_init_fails_the_step(cluster, test_user,
                                               mpich_progs):
    c = cluster(2)
    t0 = time.monotonic()
    p = mpirun(c, ["-N", "2", "-n", "4"] + mpich_progs["client"]
               + ["die", "2"], timeout=90)
    took = time.monotonic() - t0
    assert p.returncode == 137, (p.returncode, p.stderr)
    assert "task 2 was killed by signal 9 before MPI_Finalize" in p.stderr, \
        p.stderr
    assert "task 0: Killed" in p.stderr, p.stderr
    assert took < 60, took


def test_mpi_list_and_task_variables(cluster, test_user):
    c = cluster(2)
    p = c.run(["arbor", "run", "--mpi=list", "true"])
    assert p.returncode == 0, p.stderr
    assert "pmi2" in p.stdout.split(), p.stdout
    show = ["sh", "-c", 'echo "$SLURM_MPI_TYPE $PMI_RANK $PMI_SIZE '
            '$PMI_JOBID $ARBOR_JOB_ID.$ARBOR_STEP_ID"; '
            'test -S "/proc/$$/fd/$PMI_FD" && echo socket']
    p = mpirun(c, ["-N", "2", "-n", "3", "-l"] + show)
    assert p.returncode == 0, p.stderr
    lines = sorted(p.stdout.splitlines())
    assert [x for x in lines if x.endswith("socket")] == \
        ["%d: socket" % r for r in range(3)], p.stdout
    for r in range(3):
        line = next(x for x in lines if x.startswith("%d: pmi2" % r))
        f = line.split()
        assert f[2:4] == [str(r), "3"] and f[4] == f[5], line
    # programs that never speak PMI: fine if they succeed, not if they fail
    p = mpirun(c, ["-N", "2", "-n", "4", "true"])
    assert p.returncode == 0, p.stderr
    p = mpirun(c, ["-N", "2", "-n", "2", "sh", "-c", "exit 3"])
    assert p.returncode == 3
    assert "exited with code 3 before MPI_Init" in p.stderr, p.stderr
