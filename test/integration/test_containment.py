"""Containment and the end of a job on an emulated cluster.

Every process of a step, daemonized grandchildren included, is in the step's
container and dies with it; the containers are removed; a task over its
memory limit is OUT_OF_MEMORY; the Epilog runs once per node, as root, after
the job's processes are gone, while the node shows COMPLETING.
"""

import glob
import os
import re

from arbor_cluster import is_root
from test_cancel import (files_in, finish, job_id_by_name, procs_matching,
                         read, start, wait_for, wait_state)


def cgroup_root(c):
    """CgroupRoot of the cluster (arbor local sets one per cluster)."""
    m = re.search(r"^CgroupRoot=(\S+)$", read(c.conf), re.M)
    return m.group(1) if m else "arbor"


def job_cgroups(c, job_id):
    """Step cgroup directories of job_id under every v1 controller (or the
    unified hierarchy)."""
    root = cgroup_root(c)
    found = []
    for base in ("/sys/fs/cgroup/freezer", "/sys/fs/cgroup/memory",
                 "/sys/fs/cgroup/unified", "/sys/fs/cgroup"):
        found += glob.glob(os.path.join(base, root, "**",
                                        "job_%d" % job_id), recursive=True)
    return sorted(set(found))


# The task daemonizes a sleeper (double fork + setsid: it leaves the task's
# session and process group), records its pid, then runs until killed.
DAEMONIZE = ('(setsid sh -c \'echo $$ > "grandchild.$SLURM_PROCID"; '
             'exec sleep 7007\' &) ; %s')


def test_daemonized_grandchild_dies_with_cancel(cluster, test_user):
    c = cluster(2, KillWait=2)
    task = DAEMONIZE % 'while :; do sleep 0.2; done'
    p = start(c, ["arbor", "run", "-N", "2", "-n", "2", "-J", "daemons",
                  "sh", "-c", task])
    jid = job_id_by_name(c, "daemons")
    wait_for(lambda: len(files_in(c, "grandchild.")) == 2, 30,
             "the sleepers to start")
    pids = [int(read(os.path.join(c.scratch, f)).strip())
            for f in files_in(c, "grandchild.")]
    wait_for(lambda: len(procs_matching("sleep 7007")) == 2, 10,
             "the sleepers in the process table")
    if is_root():
        assert job_cgroups(c, jid), "no cgroup of job %d under %s" % (
            jid, cgroup_root(c))
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    finish(p, 60)
    wait_state(c, jid, "CANCELLED", 30)
    wait_for(lambda: not procs_matching("sleep 7007"), 30,
             "the daemonized sleepers to die")
    for pid in pids:
        assert not os.path.exists("/proc/%d" % pid) or \
            "sleep" not in read("/proc/%d/cmdline" % pid)
    wait_for(lambda: not job_cgroups(c, jid), 30,
             "the job's cgroups to be removed: %s" % job_cgroups(c, jid))


def test_daemonized_grandchild_dies_at_step_end(cluster, test_user):
    c = cluster(2)
    p = c.run(["arbor", "run", "-N", "2", "-n", "2", "-J", "leaver",
               "sh", "-c", DAEMONIZE % "sleep 1; exit 0"])
    assert p.returncode == 0, p.stderr
    assert len(files_in(c, "grandchild.")) == 2
    wait_for(lambda: not procs_matching("sleep 7007"), 30,
             "the daemonized sleepers to die at the end of the step")


def test_memory_hog_is_out_of_memory(cluster, test_user):
    if not os.path.exists("/sys/fs/cgroup/memory") and \
            not os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        import pytest
        pytest.skip("no memory controller on this host")
    c = cluster(1)
    hog = "x = 'x' * (400 << 20); import time; time.sleep(5)"
    p = c.run(["arbor", "run", "--mem=50M", "-J", "hog",
               "python3", "-c", hog], timeout=120)
    assert p.returncode == 137, (p.returncode, p.stderr)
    assert re.search(r"node1: task 0: Out Of Memory", p.stderr), p.stderr
    assert re.search(r"Detected 1 oom_kill event in StepId=\d+\.0",
                     p.stderr), p.stderr
    jid = int(re.search(r"StepId=(\d+)\.0", p.stderr).group(1))
    wait_state(c, jid, "OUT_OF_MEMORY", 30)
    # Within the limit, the same step is fine.
    ok = c.run(["arbor", "run", "--mem=200M", "python3", "-c",
                "x = 'x' * (20 << 20); print('fine')"])
    assert ok.returncode == 0, ok.stderr
    assert "fine" in ok.stdout


EPILOG = """#!/bin/sh
# Test epilog: who runs it, for which job, on which node, when, and how many
# of this node's task processes (pids the tasks wrote) are still alive.
left=0
for pid in $(cat %(pids)s/pid.$SLURMD_NODENAME.* 2>/dev/null); do
    kill -0 "$pid" 2>/dev/null && left=$((left + 1))
done
user=$(pgrep -u arbortest -c)
echo "$(id -u) $SLURM_JOB_ID $SLURMD_NODENAME $(date +%%s.%%N) $left $user" \\
    >> %(dir)s/epilog.$SLURMD_NODENAME
sleep 3
"""


def node_states(c):
    p = c.run(["arbor", "info", "-N", "-h", "-o", "%N %P %t"], user="root")
    return {f[0]: f[2] for f in (l.split() for l in p.stdout.splitlines())
            if len(f) >= 3}


def test_epilog_once_per_node_as_root_after_tasks(cluster, test_user,
                                                  tmp_path):
    os.chmod(tmp_path, 0o755)
    pids = tmp_path / "pids"
    pids.mkdir()
    os.chmod(pids, 0o1777)
    script = tmp_path / "epilog.sh"
    script.write_text(EPILOG % {"dir": tmp_path, "pids": pids})
    script.chmod(0o755)
    c = cluster(2, KillWait=2, Epilog=str(script))
    # Tasks ignore SIGTERM: only the SIGKILL after KillWait ends them.
    task = ('trap "" TERM; echo $$ > "%s/pid.$SLURMD_NODENAME.$SLURM_PROCID";'
            ' echo $$ > "started.$SLURM_PROCID"; exec sleep 8008' % pids)
    p = start(c, ["arbor", "run", "-N", "2", "-n", "2", "-J", "epi",
                  "sh", "-c", task])
    jid = job_id_by_name(c, "epi")
    wait_for(lambda: len(files_in(c, "started.")) == 2, 30, "tasks to start")
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    seen = set()

    def completing_seen():
        seen.update(s for s in node_states(c).values())
        return "comp" in seen
    wait_for(completing_seen, 30, "a node COMPLETING (saw %s)" % seen, 0.1)
    finish(p, 60)
    wait_for(lambda: set(node_states(c).values()) == {"idle"}, 60,
             "nodes back to idle (%s)" % node_states(c))
    wait_state(c, jid, "CANCELLED", 30)
    for node in ("node1", "node2"):
        path = tmp_path / ("epilog." + node)
        assert path.exists(), "no epilog ran on " + node
        lines = path.read_text().splitlines()
        assert len(lines) == 1, lines           # once per node
        uid, job, name, stamp, left, _user = lines[0].split()
        assert uid == "0"                       # as root
        assert int(job) == jid
        assert name == node
        assert float(stamp) > 0
        assert left == "0", "job processes alive during the epilog"
