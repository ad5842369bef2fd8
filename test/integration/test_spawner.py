"""The node's stepd spawner (noded/stepd_spawner.c, stepd/spawner.c).

* Stepds are forks of the node's "arbor-stepd --spawner", which loaded the
  configuration and the proctrack plugin once: each task's stepd has the
  spawner as its parent, runs in its own session, and its command line is
  an exec'd stepd's.
* A spawner killed while a step runs: the step ends normally with its exit
  code (its stepd is the noded's child now, reaped there), the next launch
  runs at once (its stepd is exec'd), and a new spawner serves the
  launches after that.
"""

import os
import re
import signal
import time

from arbor_cluster import proc_cmdlines
from test_cancel import finish, start, wait_for
from test_faults_node import stepd_pids


def spawner_pids(c):
    return [pid for pid, argv in proc_cmdlines().items()
            if os.path.basename(argv[0]) == "arbor-stepd" and c.conf in argv
            and "--spawner" in argv]


# The stepd's parent, session and command line, as a task sees them.
WHO = ('set -- $(cut -d")" -f2 /proc/$PPID/stat); '
       'echo "stepd=$PPID parent=$2 session=$4"; '
       'tr "\\0" " " < /proc/$PPID/cmdline; echo')


def test_stepds_are_forked_by_the_spawner(cluster, test_user):
    c = cluster(2)
    spawners = wait_for(lambda: len(spawner_pids(c)) == 2 and spawner_pids(c),
                        10, "a spawner on each node")
    r = c.run(["arbor", "run", "-N", "2", "sh", "-c", WHO], timeout=60)
    assert r.returncode == 0, r.stderr
    seen = re.findall(r"stepd=(\d+) parent=(\d+) session=(\d+)", r.stdout)
    assert len(seen) == 2, r.stdout
    assert {int(parent) for _, parent, _ in seen} == set(spawners), r.stdout
    for stepd, _, session in seen:
        assert stepd == session, r.stdout  # its own session, as if exec'd
    assert "--spawner" not in r.stdout
    assert r.stdout.count("arbor-stepd -f %s -n node" % c.conf) == 2, r.stdout


def test_killed_spawner(cluster, test_user):
    c = cluster(1, debug=True)
    [old] = wait_for(lambda: spawner_pids(c), 10, "the spawner")
    p = start(c, ["arbor", "run", "sh", "-c", "sleep 2; echo done; exit 3"])
    wait_for(lambda: stepd_pids(c), 10, "the stepd")
    os.kill(old, signal.SIGKILL)
    rc, out, err = finish(p, 60)
    assert rc == 3 and "done" in out, (rc, out, err)
    r = c.run(["arbor", "run", "echo", "exec'd"], timeout=60)
    assert r.returncode == 0 and "exec'd" in r.stdout, r.stderr
    time.sleep(1.2)  # a new spawner is tried at most once a second
    r = c.run(["arbor", "run", "true"], timeout=60)
    assert r.returncode == 0, r.stderr
    [new] = wait_for(lambda: spawner_pids(c), 10, "a new spawner")
    assert new != old
    r = c.run(["arbor", "run", "sh", "-c", WHO], timeout=60)
    assert "parent=%d " % new in r.stdout, r.stdout
    log = c.logs("node1")
    assert "stepd spawner (pid %d) killed by signal 9" % old in log, log
