"""The task environment Slurm users rely on (issue 33).

Resource limits set with ulimit before srun or sbatch reach the tasks
(PropagateResourceLimits, --propagate), lowered to a node's hard limit
when above it; TaskProlog and --task-prolog change a task's environment
with their "export", "unset" and "print" lines before it runs, in that
order; --task-epilog and TaskEpilog run after each task, in that order;
srun -E passes SLURM_NTASKS and SLURM_JOB_NUM_NODES through.
"""

import os
import resource
import shutil
import tempfile
import time

import pytest

from test_batch import env_with_path, read, submitted_id
from arbor_cluster import proc_cmdlines

# The task prints its soft limits: open files, stack, file size, cores.
SHOW = "echo $(ulimit -n) $(ulimit -s) $(ulimit -f) $(ulimit -c)"
# The submitting shell's limits, lowered (soft) from the test user's.
SET = "ulimit -S -n 777; ulimit -S -s 4321; ulimit -S -f 12345; " \
      "ulimit -S -c 0; "


@pytest.fixture
def scripts():
    """A directory every user can read, for prolog and epilog scripts."""
    d = tempfile.mkdtemp(prefix="arbor-taskenv-")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def script(d, name, body):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


def sh(c, line, **kw):
    p = c.run(["sh", "-c", line], env=env_with_path(c), **kw)
    return p


def test_limits_reach_tasks(cluster, test_user):
    """ulimit -n/-s/-f/-c before srun: the tasks have those soft limits,
    and no SLURM_RLIMIT_* variable; --propagate picks which."""
    c = cluster(1)
    p = sh(c, SET + "arbor run -n 2 sh -c '%s; env | grep ^SLURM_RLIMIT_ "
           "|| echo none'" % SHOW)
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == ["777 4321 12345 0"] * 2 + \
        ["none"] * 2, p.stdout
    p = sh(c, SET + "arbor run --propagate=STACK,fsize sh -c '%s'" % SHOW)
    assert p.returncode == 0, p.stderr
    nofile, stack, fsize, _ = p.stdout.split()
    assert (stack, fsize) == ("4321", "12345") and nofile != "777", p.stdout
    p = sh(c, SET + "arbor run --propagate=NONE sh -c '%s'" % SHOW)
    assert p.returncode == 0, p.stderr
    nofile, stack, fsize, _ = p.stdout.split()
    assert nofile != "777" and stack != "4321" and fsize != "12345", p.stdout
    p = sh(c, "arbor run --propagate=BOGUS true")
    assert p.returncode == 1 and "--propagate" in p.stderr, p.stderr


def test_limits_except_conf(cluster, test_user):
    """PropagateResourceLimitsExcept=NOFILE: all but the open files."""
    c = cluster(1, PropagateResourceLimitsExcept="NOFILE")
    p = sh(c, SET + "arbor run sh -c '%s'" % SHOW)
    assert p.returncode == 0, p.stderr
    nofile, stack, fsize, core = p.stdout.split()
    assert nofile != "777" and (stack, fsize, core) == ("4321", "12345", "0")


def test_limits_batch(cluster, test_user):
    """sbatch's limits at submission reach the script, kept across a
    controller restart; an srun inside it takes the script's own."""
    c = cluster(1)
    with open(os.path.join(c.scratch, "lim.sh"), "w") as f:
        f.write("#!/bin/sh\n%s\nulimit -S -n 555\narbor run sh -c "
                "'ulimit -n; env | grep ^SLURM_RLIMIT_ || echo none'\n"
                % SHOW)
    p = sh(c, SET + "arbor batch --hold -o lim.out lim.sh")
    jid = submitted_id(p)
    c.restart("ctld")
    assert c.run(["arbor", "release", str(jid)]).returncode == 0
    out = ""
    for _ in range(300):
        path = os.path.join(c.scratch, "lim.out")
        out = read(c, "lim.out") if os.path.exists(path) else ""
        if "none" in out:
            break
        time.sleep(0.1)
    assert out == "777 4321 12345 0\n555\nnone\n", out


def spawners(c):
    return [pid for pid, argv in proc_cmdlines().items()
            if "--spawner" in argv and c.conf in argv]


def test_limit_above_node_hard(cluster, test_user):
    """A soft limit above the node's hard one is lowered to it, said on
    the task's stderr; the task runs."""
    c = cluster(1)
    pids = spawners(c)
    assert pids, "no stepd spawner found"
    for pid in pids:  # the node's stepds: at most 600 open files
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (600, 600))
    p = sh(c, "ulimit -S -n 777; arbor run sh -c 'ulimit -n'")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "600\n", p.stdout
    assert "RLIMIT_NOFILE 777 lowered to this node's hard limit 600" \
        in p.stderr, p.stderr


def test_task_prolog_order_and_lines(cluster, test_user, scripts):
    """TaskProlog, then --task-prolog (which sees its changes), with the
    task's pid; export, unset and print act as Slurm documents."""
    site = script(scripts, "site", 'echo "export ORDER=site"\n'
                  'echo "export FROM_SITE=s$SLURM_PROCID"\n'
                  'echo "unset DROP_ME"\n'
                  'echo "print site for $SLURM_PROCID"\n'
                  'echo "ignored line"\n'
                  'echo "export PROLOG_PID=$SLURM_TASK_PID"\n')
    user = script(scripts, "user", 'echo "export ORDER=$ORDER,user"\n')
    c = cluster(1, TaskProlog=site)
    p = c.run(["arbor", "run", "-n", "2", "-l", "--task-prolog", user, "sh",
               "-c", 'echo "$ORDER $FROM_SITE ${DROP_ME-gone} '
               '$((PROLOG_PID == $$))"'], env={"DROP_ME": "here"})
    assert p.returncode == 0, p.stderr
    lines = sorted(p.stdout.splitlines())
    assert lines == ["0: site for 0", "0: site,user s0 gone 1",
                     "1: site for 1", "1: site,user s1 gone 1"], p.stdout
    # Without --task-prolog: only the site's; DROP_ME unset by it.
    p = c.run(["arbor", "run", "sh", "-c", 'echo "$ORDER"'])
    assert p.stdout == "site for 0\nsite\n", p.stdout
    # The batch script runs TaskProlog too.
    p = c.run(["arbor", "batch", "-W", "-o", "b.out", "--wrap",
               'echo "$ORDER $FROM_SITE"'])
    assert p.returncode == 0, p.stderr
    assert read(c, "b.out") == "site for 0\nsite s0\n"


def test_task_prolog_failure(cluster, test_user, scripts):
    """A --task-prolog that fails ends the task with its status before it
    runs, saying so; one that runs over PrologEpilogTimeout is killed."""
    bad = script(scripts, "bad", "exit 3\n")
    slow = script(scripts, "slow", "sleep 60\n")
    c = cluster(1, PrologEpilogTimeout=2)
    p = c.run(["arbor", "run", "--task-prolog", bad, "echo", "ran"])
    assert p.returncode == 3 and "ran" not in p.stdout, (p.stdout, p.stderr)
    assert "--task-prolog %s failed: exit status 3" % bad in p.stderr
    t0 = time.monotonic()
    p = c.run(["arbor", "run", "--task-prolog", slow, "echo", "ran"])
    assert p.returncode == 1 and "timed out" in p.stderr, p.stderr
    assert time.monotonic() - t0 < 30


def test_task_epilog_order(cluster, test_user, scripts):
    """After each task: --task-epilog, then TaskEpilog, with the task's
    environment, done before srun returns."""
    log = os.path.join(scripts, "log")
    os.mkdir(log)
    os.chmod(log, 0o1777)
    body = 'echo "%s $SLURM_PROCID $SLURM_TASK_PID" >> ' + log + \
        '/$SLURM_PROCID\n'
    site = script(scripts, "site", body % "site")
    user = script(scripts, "user", "sleep 1\n" + body % "user")
    c = cluster(1, TaskEpilog=site)
    p = c.run(["arbor", "run", "-n", "2", "--task-epilog", user, "sh", "-c",
               "echo $$"])
    assert p.returncode == 0, p.stderr
    pids = sorted(p.stdout.split())
    for rank in (0, 1):
        with open(os.path.join(log, str(rank))) as f:
            who = [ln.split() for ln in f.read().splitlines()]
        assert [w[:2] for w in who] == [["user", str(rank)],
                                        ["site", str(rank)]], who
        assert who[0][2] == who[1][2] and who[0][2] in pids, (who, pids)


def test_preserve_env(cluster, test_user):
    """srun -E: SLURM_NTASKS and SLURM_JOB_NUM_NODES as they were."""
    c = cluster(2)
    show = "printenv SLURM_NTASKS SLURM_NPROCS SLURM_JOB_NUM_NODES"
    p = c.run(["arbor", "alloc", "-N", "2", "-n", "4", "--", "sh", "-c",
               "export SLURM_JOB_NUM_NODES=7; arbor run -E -N 1 -n 1 %s; "
               "arbor run -N 1 -n 1 %s" % (show, show)], env=env_with_path(c))
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["4", "4", "7", "1", "1", "2"], p.stdout
