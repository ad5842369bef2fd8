"""The controller under faults and hostile requests (issue 6, ctld side).

A noded that dies is DOWN ("Not responding") within seconds, not after
300 s: no job is placed on it, and it comes back when it registers again.
A controller killed and restarted without its state database (lost, or
set aside with -c; with it, its jobs go on: test_state.py) never hands out
a job id again, and a node still running the old controller's tasks is
not idle: those tasks are ended (with the Epilog) before the node takes
new work. MaxJobCount
bounds the jobs the controller holds; a host list naming more hosts than
the cluster has is refused at once; refused requests and connections are
logged as security events at the default log level.
"""

import os
import re
import signal
import socket
import time

from test_cancel import (files_in, finish, job_id_by_name, looping_task,
                         queue_long, read, start, wait_for)
from test_nodestate import control, node_info, node_state
from test_restart import proc_alive, task_pids


def ctld_port(c):
    with open(c.conf) as f:
        return int(re.search(r"^CtldPort=(\d+)", f.read(), re.M).group(1))


# ---- item 3: a dead noded ------------------------------------------------

NODENAME = ["sh", "-c", "echo $SLURMD_NODENAME"]

def test_dead_noded_is_down_within_seconds(cluster, test_user):
    c = cluster(2, KillWait=2)
    pid = c.daemon_pid("node2")
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not proc_alive(pid), 10, "node2's noded to die")

    # The first job placed on node2 fails at launch; that failure (its
    # JOB_TERMINATE is refused) is what the controller notices.
    t0 = time.monotonic()
    p = c.run(["arbor", "run", "-w", "node2", "true"], timeout=60)
    assert p.returncode != 0
    wait_for(lambda: node_state(c, "node2").startswith("down"), 30,
             "node2 to be DOWN (now %s)" % node_state(c, "node2"))
    assert time.monotonic() - t0 < 30
    assert "Not responding" in node_info(c)["node2"][1]

    # Nothing is placed there any more: work that fits node1 runs there,
    # work that only node2 could take waits (and, FIFO, blocks the queue).
    ok = c.run(["arbor", "run"] + NODENAME, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "node1", ok.stdout
    waiting = start(c, ["arbor", "run", "-x", "node1", "-J", "waiter"]
                    + NODENAME)
    wait_for(lambda: any(j["name"] == "waiter" and j["state"] == "PENDING"
                         for j in queue_long(c).values()), 30,
             "the job excluding node1 to wait")
    time.sleep(2)
    assert waiting.poll() is None, "a job was placed on the DOWN node"

    # node2 registers again: back in service, the waiting job runs there.
    c.restart("node2")
    rc, out, err = finish(waiting, 60)
    assert rc == 0, err
    assert out.strip() == "node2", out
    assert node_state(c, "node2") == "idle"


# ---- item 4: a controller killed and restarted ------------------------------

def test_ctld_restart_new_ids_and_old_tasks_ended(cluster, test_user,
                                                  tmp_path):
    os.chmod(tmp_path, 0o755)
    epilog = tmp_path / "epilog.sh"
    epilog.write_text('#!/bin/sh\necho "$SLURM_JOB_ID" >> %s/epilog.'
                      '$SLURMD_NODENAME\n' % tmp_path)
    epilog.chmod(0o755)
    c = cluster(2, KillWait=2, Epilog=str(epilog))
    old = start(c, ["arbor", "run", "-N", "2", "-n", "2", "-J", "old", "sh",
                    "-c", looping_task("started")])
    old_id = job_id_by_name(c, "old")
    wait_for(lambda: len(files_in(c, "started.")) == 2, 30, "tasks to start")
    pids = task_pids(c)

    # The controller dies and its state database is lost (the job id mark
    # is a file of its own, and stays).
    ctld = c.daemon_pid("ctld")
    os.kill(ctld, signal.SIGKILL)
    wait_for(lambda: not proc_alive(ctld), 10, "the controller to die")
    assert all(proc_alive(pid) for pid in pids), "tasks died with the ctld"
    for name in os.listdir(os.path.join(c.dir, "state")):
        if name.startswith("arbor_state.db"):
            os.unlink(os.path.join(c.dir, "state", name))
    c.restart("ctld")  # it asks the nodes to register at once
    # The new controller knows the nodes once they register (at once: it
    # asks them).
    wait_for(lambda: all(not s[0].startswith("unk")
                         for s in node_info(c).values()), 45,
             "both nodes to register (%s)" % node_info(c))

    # A new job: a new id, and it runs only once the old tasks are gone
    # (the nodes reported them when they registered; until they are ended
    # the nodes are not idle).
    check = " ".join("kill -0 %d 2>/dev/null && echo ALIVE %d;" % (p, p)
                     for p in pids)
    new = c.run(["arbor", "run", "-N", "2", "-J", "new", "sh", "-c",
                 check + " echo ran $SLURM_JOB_ID"], timeout=120)
    assert new.returncode == 0, new.stderr
    assert "ALIVE" not in new.stdout, \
        "a new job ran beside the old tasks:\n" + new.stdout
    new_ids = {int(x) for x in re.findall(r"ran (\d+)", new.stdout)}
    assert len(new_ids) == 1 and new_ids.pop() > old_id, new.stdout
    assert "revoked" not in new.stderr and "already" not in new.stderr
    wait_for(lambda: not any(proc_alive(pid) for pid in pids), 30,
             "the old tasks to end")
    for node in ("node1", "node2"):
        path = tmp_path / ("epilog." + node)
        assert path.exists() and str(old_id) in read(str(path)).split(), \
            "the old job's Epilog did not run on %s" % node
    finish(old, 60)
    assert "terminating it there" in c.logs("ctld")


# ---- item 7: MaxJobCount -------------------------------------------------

def test_max_job_count(cluster, test_user):
    c = cluster(1, MaxJobCount=2)
    a = start(c, ["arbor", "run", "-J", "one", "sleep", "3701"])
    job_id_by_name(c, "one")
    b = start(c, ["arbor", "run", "--exclusive", "-J", "two", "sleep",
                  "3702"])   # waits behind "one"
    wait_for(lambda: len(queue_long(c)) == 2, 30, "two jobs")
    p = c.run(["arbor", "run", "true"], timeout=60)
    assert p.returncode != 0
    assert "MaxJobCount" in p.stderr, p.stderr
    for x in (a, b):
        x.terminate()
        finish(x, 60)
    # Ended jobs give way.
    wait_for(lambda: c.run(["arbor", "run", "true"]).returncode == 0, 60,
             "a job to be accepted again")


def test_queue_filters_on_server(cluster, test_user):
    c = cluster(1)
    assert c.run(["arbor", "run", "-J", "done1", "true"]).returncode == 0
    assert c.run(["arbor", "run", "-J", "done2", "true"]).returncode == 0
    jobs = queue_long(c)
    ids = sorted(jobs)
    p = c.run(["arbor", "queue", "-h", "-t", "CD", "-j", str(ids[0])])
    assert p.returncode == 0, p.stderr
    assert [int(l.split()[0]) for l in p.stdout.splitlines()] == [ids[0]]
    p = c.run(["arbor", "queue", "-h", "-t", "all", "-u", "nobody"])
    assert p.returncode == 0 and p.stdout == "", p.stdout + p.stderr
    p = c.run(["arbor", "queue", "-h", "-j", "x1"])
    assert p.returncode != 0 and "invalid job id" in p.stderr
    p = c.run(["arbor", "queue", "-h", "-u", "no-such-user-here"])
    assert p.returncode == 1
    assert "Invalid user: no-such-user-here" in p.stderr


# ---- item 8: host lists ------------------------------------------------------

def test_huge_hostlist_refused_at_once(cluster, test_user):
    c = cluster(2)
    t0 = time.monotonic()
    p = c.run(["arbor", "info", "-N", "-n", "node[1-1000000]"], timeout=60)
    assert time.monotonic() - t0 < 10
    assert p.returncode != 0
    assert "more hosts than the 2 nodes" in p.stderr, p.stderr
    p = c.run(["arbor", "run", "-x", "node[1-999999]", "true"], timeout=60)
    assert p.returncode != 0
    assert "more hosts than the 2 nodes" in p.stderr, p.stderr


# ---- item 12: security events -------------------------------------------------

def test_security_events_logged(cluster, test_user):
    c = cluster(1)
    p = control(c, "update", "NodeName=node1", "State=DRAIN", "Reason=x",
                user=test_user.pw_name)
    assert p.returncode != 0
    with socket.create_connection(("127.0.0.1", ctld_port(c)), 5) as s:
        s.sendall(b"GET / HTTP/1.0\r\n\r\n" + b"\0" * 64)
        s.settimeout(5)
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass

    def logged():
        log = c.logs("ctld")
        return ("security: " in log
                and "(uid %d) refused" % test_user.pw_uid in log
                and re.search(r"security: connection from 127\.0\.0\.1:\d+ "
                              r"refused", log))
    wait_for(logged, 10, "security lines in the ctld log:\n%s"
             % c.logs("ctld")[-2000:])
