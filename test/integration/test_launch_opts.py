"""arbor run's launch options, as Slurm 22.05's srun describes them:
task distribution (-m block|cyclic|plane=N|arbitrary), --multi-prog,
-Q/--quiet, --quit-on-interrupt, --cpu-bind, srun's input environment
variables, --immediate and the step-sharing flags, and MPI programs under
a cyclic distribution (pmix with Open MPI, pmi2 with MPICH).
"""

import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import skip_or_fail
from mpi_cases import compile_into, ranks_ok
from test_launch import check_ok, labelled

HERE = os.path.dirname(os.path.abspath(__file__))
PLACE = ('echo "$SLURMD_NODENAME $SLURM_PROCID $SLURM_LOCALID $SLURM_GTIDS '
         '$SLURM_DISTRIBUTION"')


def placement(c, args, env=None):
    """Run PLACE under 'arbor run -l ARGS': {node: [ranks]} after checking
    that each rank's label, SLURM_PROCID, SLURM_LOCALID and SLURM_GTIDS
    agree. Also returns the SLURM_DISTRIBUTION the tasks saw."""
    p = c.run(["arbor", "run", "-l"] + args + ["sh", "-c", PLACE], env=env)
    check_ok(p)
    nodes, dists = {}, set()
    for rank, lines in labelled(p.stdout).items():
        node, procid, localid, gtids, dist = lines[0].split()
        assert int(procid) == rank, lines
        nodes.setdefault(node, []).append(rank)
        dists.add(dist)
        mine = [int(g) for g in gtids.split(",")]
        assert mine == sorted(mine) and rank in mine, lines
        assert mine.index(rank) == int(localid), lines
    for node in nodes:
        nodes[node].sort()
    return nodes, dists


# ---- -m / --distribution --------------------------------------------------


def test_block_cyclic_plane_on_two_nodes(cluster):
    c = cluster(2)
    got, dist = placement(c, ["-N", "2", "-n", "4", "-m", "block"])
    assert got == {"node1": [0, 1], "node2": [2, 3]} and dist == {"block"}
    got, dist = placement(c, ["-N", "2", "-n", "4"])
    assert got == {"node1": [0, 1], "node2": [2, 3]} and dist == {"block"}
    got, dist = placement(c, ["-N", "2", "-n", "4", "-m", "cyclic"])
    assert got == {"node1": [0, 2], "node2": [1, 3]} and dist == {"cyclic"}
    got, dist = placement(c, ["-N", "2", "-n", "8",
                              "--distribution=plane=2"])
    assert got == {"node1": [0, 1, 4, 5], "node2": [2, 3, 6, 7]}
    assert dist == {"plane"}
    # Slurm's extra levels and Pack are accepted
    got, _ = placement(c, ["-N", "2", "-n", "4", "-m", "cyclic:block,Pack"])
    assert got == {"node1": [0, 2], "node2": [1, 3]}


def test_distribution_from_the_environment(cluster):
    c = cluster(2)
    got, _ = placement(c, ["-N", "2", "-n", "4"],
                       env={"SLURM_DISTRIBUTION": "cyclic"})
    assert got == {"node1": [0, 2], "node2": [1, 3]}
    # the command line wins
    got, _ = placement(c, ["-N", "2", "-n", "4", "-m", "block"],
                       env={"SLURM_DISTRIBUTION": "cyclic"})
    assert got == {"node1": [0, 1], "node2": [2, 3]}
    # plane without a size takes SLURM_DIST_PLANESIZE, which tasks get
    p = c.run(["arbor", "run", "-N", "2", "-n", "8", "-m", "plane", "-l",
               "printenv", "SLURM_DIST_PLANESIZE"],
              env={"SLURM_DIST_PLANESIZE": "2"})
    check_ok(p)
    assert set(sum(labelled(p.stdout).values(), [])) == {"2"}
    for bad, env in ((["-m", "diagonal"], None), (["-m", "plane"], None),
                     ([], {"SLURM_DISTRIBUTION": "plane=0"})):
        p = c.run(["arbor", "run"] + bad + ["true"], env=env)
        assert p.returncode == 1, p.stderr
        assert "invalid --distribution" in p.stderr, p.stderr


def test_cyclic_exit_codes_output_and_stdin_follow_ranks(cluster):
    c = cluster(2)
    # rank 1 runs on node2 under cyclic: its exit is reported there
    p = c.run(["arbor", "run", "-N", "2", "-n", "4", "-m", "cyclic", "sh",
               "-c", '[ "$SLURM_PROCID" = 1 ] && exit 3; exit 0'])
    assert p.returncode == 3, p.stderr
    assert "node2: task 1: Exited with exit code 3" in p.stderr, p.stderr
    # -o per rank and -i to one rank use real ranks
    p = c.run(["arbor", "run", "-N", "2", "-n", "4", "-m", "cyclic", "-i",
               "2", "-o", "out-%t-%N", "sh", "-c",
               'cat; echo "$SLURM_PROCID"'], input="to two\n")
    check_ok(p)
    for rank, node in ((0, "node1"), (1, "node2"), (2, "node1"),
                       (3, "node2")):
        with open(os.path.join(c.scratch, "out-%d-%s" % (rank, node))) as f:
            text = f.read()
        assert text == ("to two\n2\n" if rank == 2 else "%d\n" % rank), text


def test_arbitrary_from_slurm_hostfile(cluster):
    """-m arbitrary: the launcher asks for the hostfile's hosts with its
    per-host counts (STEP_CREATE node_tasks), and rank r runs on the
    file's r-th host, whatever order the controller gives the nodes."""
    c = cluster(2)
    hostfile = os.path.join(c.scratch, "hosts")
    with open(hostfile, "w") as f:
        f.write("# ranks in order\nnode2\nnode1\n\nnode2  # third\nnode1\n")
    os.chmod(hostfile, 0o644)
    p = c.run(["arbor", "run", "-v", "-n", "3", "-m", "arbitrary", "-l",
               "sh", "-c", PLACE], env={"SLURM_HOSTFILE": hostfile})
    check_ok(p)
    assert "-m arbitrary: 3 tasks on node[2,1]" in p.stderr, p.stderr
    got = {}
    for rank, lines in labelled(p.stdout).items():
        node, procid, localid, gtids, dist = lines[0].split()
        got.setdefault(node, []).append(rank)
        assert dist == "arbitrary" and int(procid) == rank, lines
        assert gtids == {"node2": "0,2", "node1": "1"}[node], lines
    assert {k: sorted(v) for k, v in got.items()} == \
        {"node2": [0, 2], "node1": [1]}, p.stdout
    # -n defaults to the file's hosts; inside an existing allocation too
    bindir = os.path.dirname(c.arbor)
    p = c.run(["arbor", "alloc", "-N", "2", "-n", "4", "--", "arbor", "run",
               "-m", "arbitrary", "-l", "printenv", "SLURMD_NODENAME"],
              env={"SLURM_HOSTFILE": hostfile,
                   "PATH": bindir + ":/usr/bin:/bin"})
    check_ok(p)
    assert labelled(p.stdout) == {0: ["node2"], 1: ["node1"], 2: ["node2"],
                                  3: ["node1"]}, p.stdout
    # without SLURM_HOSTFILE: block
    got, _ = placement(c, ["-N", "2", "-n", "4", "-m", "arbitrary"])
    assert got == {"node1": [0, 1], "node2": [2, 3]}
    # more tasks than the file has hosts
    p = c.run(["arbor", "run", "-n", "9", "-m", "arbitrary", "true"],
              env={"SLURM_HOSTFILE": hostfile})
    assert p.returncode == 1
    assert "lists 4 hosts, fewer than the 9 tasks" in p.stderr, p.stderr


# ---- --multi-prog ---------------------------------------------------------


def write(c, name, text):
    path = os.path.join(c.scratch, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


def test_multi_prog_per_rank_programs(cluster):
    c = cluster(2)
    conf = write(c, "mp.conf", "# rank 0, then the others\n"
                 "0    echo zero task %t offset %o\n"
                 "1-3  sh -c 'echo \"rest $0 $1 $SLURMD_NODENAME\"' %t %o\n")
    p = c.run(["arbor", "run", "-N", "2", "-n", "4", "-m", "cyclic", "-l",
               "--multi-prog", conf])
    check_ok(p)
    assert labelled(p.stdout) == {
        0: ["zero task 0 offset 0"],
        1: ["rest 1 0 node2"],
        2: ["rest 2 1 node1"],
        3: ["rest 3 2 node2"],
    }, p.stdout


def test_bad_multi_prog_is_refused_before_any_task(cluster):
    c = cluster(2)
    marker = os.path.join(c.scratch, "ran")
    conf = write(c, "bad.conf", "0 touch %s\n2-3 touch %s\n"
                 % (marker, marker))
    # -n known: refused before the allocation
    p = c.run(["arbor", "run", "-N", "2", "-n", "4", "--multi-prog", conf])
    assert p.returncode == 1
    assert "--multi-prog %s: task 1 has no line" % conf in p.stderr, p.stderr
    # two tasks (-N 2): refused once the step exists, naming the line
    p = c.run(["arbor", "run", "-N", "2", "--multi-prog", conf])
    assert p.returncode == 1
    assert "line 2: task 2 is out of range (the step has 2 tasks)" \
        in p.stderr, p.stderr
    conf2 = write(c, "syntax.conf", "0-1 echo 'unterminated\n")
    p = c.run(["arbor", "run", "-n", "2", "--multi-prog", conf2])
    assert p.returncode == 1 and conf2 in p.stderr, p.stderr
    p = c.run(["arbor", "run", "-n", "2", "--multi-prog",
               os.path.join(c.scratch, "missing.conf")])
    assert p.returncode == 1 and "missing.conf" in p.stderr, p.stderr
    assert not os.path.exists(marker)


# ---- -Q, --quit-on-interrupt ----------------------------------------------


def test_quiet_keeps_errors_only(cluster):
    c = cluster(2)
    p = c.run(["arbor", "run", "-N", "2", "-n", "1", "true"])
    check_ok(p)
    assert "can't run 1 processes on 2 nodes, setting nnodes to 1" \
        in p.stderr, p.stderr
    p = c.run(["arbor", "run", "-Q", "-N", "2", "-n", "1", "true"])
    check_ok(p)
    assert p.stderr == "", p.stderr
    p = c.run(["arbor", "run", "--quiet", "-n", "2", "sh", "-c",
               '[ "$SLURM_PROCID" = 1 ] && exit 4; exit 0'])
    assert p.returncode == 4
    assert "task 1: Exited with exit code 4" in p.stderr, p.stderr


def child_of(pid):
    """The first child of 'pid' (runuser's: the arbor run it started)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                kids = f.read().split()
            if kids:
                return int(kids[0])
        time.sleep(0.05)
    raise AssertionError("no child of %d" % pid)


def start_sleeper(c, extra):
    """arbor run EXTRA of a task that says "ready" and sleeps: the Popen,
    and the pid of arbor run itself."""
    p = c.popen(["arbor", "run", "-n", "1"] + extra +
                ["sh", "-c", "echo ready; exec sleep 60"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL)
    ready, _, _ = select.select([p.stdout], [], [], 30)
    assert ready and p.stdout.readline() == b"ready\n"
    pid = p.pid
    with open("/proc/%d/comm" % pid) as f:
        if f.read().strip() == "runuser":
            pid = child_of(pid)
    return p, pid


def test_quit_on_interrupt(cluster):
    c = cluster(1)
    # srun's default: one Ctrl-C prints the status, the step goes on
    p, pid = start_sleeper(c, [])
    os.kill(pid, signal.SIGINT)
    time.sleep(2)
    assert p.poll() is None, p.stderr.read()
    os.kill(pid, signal.SIGTERM)  # forwarded: the task ends
    _, err = p.communicate(timeout=30)
    assert b"interrupt (one more within 1 sec to abort)" in err, err
    # --quit-on-interrupt: one Ctrl-C ends it
    p, pid = start_sleeper(c, ["--quit-on-interrupt"])
    t0 = time.monotonic()
    os.kill(pid, signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert time.monotonic() - t0 < 15
    assert p.returncode != 0
    assert b"forcing job termination" in err, err
    assert b"one more within" not in err, err


# ---- --cpu-bind -----------------------------------------------------------


def allowed(c, args, env=None):
    """{rank: (Cpus_allowed_list, {SLURM_CPU_BIND*})} of 2 tasks."""
    p = c.run(["arbor", "run", "-N", "1", "-n", "2", "-l"] + args +
              ["sh", "-c", "grep Cpus_allowed_list /proc/self/status; "
               "env | grep '^SLURM_CPU_BIND' || true"], env=env)
    check_ok(p)
    out = {}
    for rank, lines in labelled(p.stdout).items():
        cpus = [ln.split()[1] for ln in lines
                if ln.startswith("Cpus_allowed_list")]
        env = dict(ln.split("=", 1) for ln in lines if ln.startswith("SLURM"))
        out[rank] = (cpus[0], env)
    return out, p


def test_cpu_bind(cluster):
    if (os.cpu_count() or 1) < 2 or len(os.sched_getaffinity(0)) < 2:
        skip_or_fail("needs two usable CPUs")
    c = cluster(1, cpus=2, TaskPlugin="affinity")
    got, _ = allowed(c, [])  # cores: each task its core
    assert {r: g[0] for r, g in got.items()} == {0: "0", 1: "1"}, got
    assert got[0][1] == {"SLURM_CPU_BIND": "quiet,mask_cpu:0x1,0x2",
                         "SLURM_CPU_BIND_TYPE": "mask_cpu:",
                         "SLURM_CPU_BIND_LIST": "0x1,0x2",
                         "SLURM_CPU_BIND_VERBOSE": "quiet"}, got
    got, _ = allowed(c, ["--cpu-bind=none"])
    assert {r: g[0] for r, g in got.items()} == {0: "0-1", 1: "0-1"}, got
    assert got[1][1]["SLURM_CPU_BIND"] == "quiet,none"
    assert got[1][1]["SLURM_CPU_BIND_TYPE"] == "none"
    got, p = allowed(c, ["--cpu-bind=verbose,map_cpu:1,0"])
    assert {r: g[0] for r, g in got.items()} == {0: "1", 1: "0"}, got
    assert got[0][1] == {"SLURM_CPU_BIND": "verbose,map_cpu:1,0",
                         "SLURM_CPU_BIND_TYPE": "map_cpu:",
                         "SLURM_CPU_BIND_LIST": "1,0",
                         "SLURM_CPU_BIND_VERBOSE": "verbose"}, got
    assert "0: cpu-bind=MAP - node1, task  0  0 [" in p.stdout + p.stderr
    # SLURM_CPU_BIND is --cpu-bind; the command line wins
    got, _ = allowed(c, [], env={"SLURM_CPU_BIND": "map_cpu:1"})
    assert {r: g[0] for r, g in got.items()} == {0: "1", 1: "1"}, got
    got, _ = allowed(c, ["--cpu-bind=cores"],
                     env={"SLURM_CPU_BIND": "none"})
    assert {r: g[0] for r, g in got.items()} == {0: "0", 1: "1"}, got
    # a CPU the step does not have, and a typo
    p = c.run(["arbor", "run", "-n", "2", "--cpu-bind=map_cpu:0,5", "true"])
    assert p.returncode == 1
    assert "--cpu-bind=map_cpu: CPU 5 is not one of the step's cores on " \
        "node1 (0-1)" in p.stderr, p.stderr
    p = c.run(["arbor", "run", "--cpu-bind=sockets", "true"])
    assert p.returncode == 1 and "invalid --cpu-bind 'sockets'" in p.stderr


# ---- input environment, step flags ----------------------------------------


def test_srun_input_variables(cluster):
    c = cluster(2)
    env = {"SLURM_NTASKS": "3", "SLURM_LABELIO": "1",
           "SLURM_CPUS_PER_TASK": "1"}
    p = c.run(["arbor", "run", "printenv", "SLURM_NTASKS"], env=env)
    check_ok(p)
    assert labelled(p.stdout) == {0: ["3"], 1: ["3"], 2: ["3"]}, p.stdout
    p = c.run(["arbor", "run", "-n", "2", "printenv", "SLURM_NTASKS"],
              env=env)
    check_ok(p)
    assert labelled(p.stdout) == {0: ["2"], 1: ["2"]}, p.stdout
    p = c.run(["arbor", "run", "-n", "2", "printenv", "SLURM_NNODES"],
              env={"SLURM_NNODES": "2", "SLURM_STDOUTMODE": "o-%t"})
    check_ok(p)
    for t in (0, 1):
        with open(os.path.join(c.scratch, "o-%d" % t)) as f:
            assert f.read() == "2\n"
    p = c.run(["arbor", "run", "-n", "2", "-l", "printenv",
               "SLURM_CPUS_PER_TASK"], env={"SLURM_CPUS_PER_TASK": "2"})
    check_ok(p)
    assert labelled(p.stdout) == {0: ["2"], 1: ["2"]}, p.stdout
    for var, val, opt in (("SLURM_NTASKS", "x", "--ntasks"),
                          ("SLURM_NNODES", "0", "--nodes"),
                          ("SLURM_TIMELIMIT", "soon", "--time"),
                          ("SLURM_CPU_BIND", "sockets", "--cpu-bind")):
        p = c.run(["arbor", "run", "true"], env={var: val})
        assert p.returncode == 1, (var, p.stderr)
        assert "invalid %s '%s' (from a SLURM_* variable)" % (opt, val) \
            in p.stderr, p.stderr


def test_immediate_and_step_flags(cluster):
    c = cluster(1)
    # a job whose two cores a first step holds: a second step is busy
    script = ('arbor run -n 2 sleep 10 & sleep 2; '
              't0=$(date +%s); arbor run -n 1 --immediate true; '
              'echo "immediate $? $(( $(date +%s) - t0 ))"; '
              'arbor run -n 1 -I3 true; '
              'echo "three $? $(( $(date +%s) - t0 ))"; wait')
    bindir = os.path.dirname(c.arbor)
    p = c.run(["arbor", "alloc", "-N", "1", "-n", "2", "--", "sh", "-c",
               script], env={"PATH": bindir + ":/usr/bin:/bin"},
              timeout=60)
    check_ok(p)
    m = re.search(r"immediate (\d+) (\d+)", p.stdout)
    assert m and m.group(1) == "1" and int(m.group(2)) <= 1, p.stdout
    m = re.search(r"three (\d+) (\d+)", p.stdout)
    assert m and m.group(1) == "1" and 2 <= int(m.group(2)) <= 5, p.stdout
    assert "Unable to create step for job" in p.stderr, p.stderr
    # the sharing flags are accepted by arbor run (the controller decides)
    p = c.run(["arbor", "run", "--overlap", "--exact", "--exclusive", "-n",
               "1", "true"])
    check_ok(p)
    for cmd in (["run"], ["alloc"], ["batch"]):
        p = c.run(["arbor"] + cmd + ["-O", "--overcommit", "--version"])
        check_ok(p)


def test_cpus_per_task_implies_exact(cluster):
    """srun -c N implies --exact (Slurm 21.08 and later): two
    `arbor run -n1 -c2 ... &` in a job of 4 cores run side by side. Each
    step waits for the other's mark; run one after the other, the first
    would give up and fail (issue 33)."""
    c = cluster(1, cpus=4)
    step = ('arbor run -n1 -c2 sh -c \'touch %s/$0; i=0; '
            'while [ ! -e %s/$1 ] && [ $i -lt 200 ]; do sleep 0.1; '
            'i=$((i+1)); done; [ -e %s/$1 ] && echo $0 met $1\' ' %
            ((c.scratch,) * 3))
    script = (step + 'a b & ' + step + 'b a & wait')
    bindir = os.path.dirname(c.arbor)
    p = c.run(["arbor", "alloc", "-N", "1", "-n", "4", "--", "sh", "-c",
               script], env={"PATH": bindir + ":/usr/bin:/bin"},
              timeout=90)
    check_ok(p)
    assert sorted(p.stdout.splitlines()) == ["a met b", "b met a"], \
        (p.stdout, p.stderr)


# ---- MPI under -m cyclic --------------------------------------------------


@pytest.fixture(scope="module")
def mpi_checks():
    """mpi_check built with Open MPI (for pmix) and with MPICH (pmi2)."""
    ompi = shutil.which("mpicc.openmpi") or shutil.which("mpicc")
    mpich = shutil.which("mpicc.mpich")
    if not ompi or not mpich:
        skip_or_fail("Open MPI's and MPICH's mpicc are needed "
                     "(scripts/setup.sh installs them)")
    d = tempfile.mkdtemp(prefix="arbor-launch-mpi-")
    os.chmod(d, 0o755)
    src = os.path.join(HERE, "mpi", "mpi_check.c")
    progs = {
        "pmix": compile_into(os.path.join(d, "ompi_check"),
                             [ompi, "-O1", "-o",
                              os.path.join(d, "ompi_check"), src]),
        "pmi2": compile_into(os.path.join(d, "mpich_check"),
                             [mpich, "-O1", "-o",
                              os.path.join(d, "mpich_check"), src]),
    }
    yield progs
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("mpi", ["pmix", "pmi2"])
def test_mpi_program_under_cyclic(cluster, test_user, mpi_checks, mpi):
    c = cluster(3)
    env = {"OMPI_MCA_btl_tcp_if_include": "lo"} if mpi == "pmix" else {}
    check = mpi_checks[mpi]
    wrap = ('echo "place ${PMIX_RANK:-$PMI_RANK} $SLURM_PROCID '
            '$SLURMD_NODENAME"; exec %s all' % check)
    p = c.run(["arbor", "run", "--mpi=" + mpi, "-N", "3", "-n", "6",
               "-m", "cyclic", "sh", "-c", wrap], env=env, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    ranks_ok(p.stdout, 6)
    seen = {}
    for line in p.stdout.splitlines():
        if line.startswith("place "):
            _, mpirank, procid, node = line.split()
            assert mpirank == procid, line
            seen[int(procid)] = node
    assert seen == {r: "node%d" % (r % 3 + 1) for r in range(6)}, seen
    p = c.run(["arbor", "run", "--mpi=" + mpi, "-N", "2", "-n", "8",
               "-m", "plane=3", check, "all"], env=env, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    ranks_ok(p.stdout, 8)
