"""Node states set by an administrator (arbor control update), and the end
of single steps.

DOWN ends the jobs on the node NODE_FAIL through the termination sequence on
every node of the job (the downed one included: its tasks die and its Epilog
runs too), and the node stays DOWN with its reason until RESUME; DRAIN keeps
new jobs off a node (a job that requires it waits) until RESUME; only root
or ArborUser may change node states. Cancelling JOB.STEP ends only that
step. Task sleeps use distinct durations so the process table can be
checked without mistaking anything else for them.
"""

import os
import re
import signal
import time

from test_cancel import (finish, job_id_by_name, procs_matching, queue_long,
                         start, wait_for, wait_state)


def control(c, *args, user="root"):
    return c.run(["arbor", "control"] + list(args), user=user)


def node_info(c):
    """{node: (state, reason)} from arbor info -N (sinfo's %E is "none"
    when there is no reason)."""
    p = c.run(["arbor", "info", "-N", "-h", "-o", "%N %t %E"], user="root")
    assert p.returncode == 0, p.stderr
    out = {}
    for line in p.stdout.splitlines():
        f = line.split(None, 2)
        if len(f) == 3:
            out[f[0]] = (f[1], f[2])
    return out


def node_state(c, node):
    return node_info(c).get(node, ("?", ""))[0]


def job_field(c, jid, key):
    """KEY=value of 'arbor control show job JID' (value up to the next
    KEY= or the end of the line)."""
    p = control(c, "show", "job", str(jid))
    assert p.returncode == 0, p.stderr
    m = re.search(r"\b%s=(.*?)(?= \w+=|$)" % key, p.stdout, re.M)
    return m.group(1) if m else None


EPILOG = """#!/bin/sh
# node2's epilog is the slow one: the job must wait for it.
[ "$SLURMD_NODENAME" = node2 ] && sleep 3
echo "$(id -u) $SLURM_JOB_ID $SLURM_JOB_STATE" >> %s/epilog.$SLURMD_NODENAME
"""


def test_down_ends_job_node_fail_everywhere(cluster, test_user, tmp_path):
    os.chmod(tmp_path, 0o755)
    script = tmp_path / "epilog.sh"
    script.write_text(EPILOG % tmp_path)
    script.chmod(0o755)
    c = cluster(3, KillWait=2, Epilog=str(script))
    p = start(c, ["arbor", "run", "-N", "3", "-J", "nfail", "sleep", "3101"])
    jid = job_id_by_name(c, "nfail")
    wait_for(lambda: len(procs_matching("sleep 3101")) == 3, 30,
             "the three tasks")

    t0 = time.monotonic()
    d = control(c, "update", "NodeName=node2", "State=DOWN", "Reason=maint")
    assert d.returncode == 0, d.stderr
    rc, _out, err = finish(p, 30)
    assert rc != 0, err
    assert time.monotonic() - t0 < 20, "arbor run took too long to end"
    assert "NODE_FAIL" in err, err
    # Every node, the downed one included, killed its task and ran the
    # Epilog; the job stays COMPLETING until node2's (slow) one is done.
    assert wait_state(c, jid, "NODE_FAIL", 60) == "NODE_FAIL"
    for node in ("node1", "node2", "node3"):
        path = tmp_path / ("epilog." + node)
        assert path.exists(), "no epilog on %s before the job ended" % node
        assert path.read_text().split() == ["0", str(jid), "NODE_FAIL"]
    assert not procs_matching("sleep 3101")
    assert "node node2 set DOWN: maint" in job_field(c, jid, "Reason")

    # node2 is DOWN with the reason; the others are back to idle.
    assert node_info(c)["node2"] == ("down", "maint")
    r = c.run(["arbor", "info", "-R", "-h"], user="root")
    # sinfo -R: REASON, USER (who set it), TIMESTAMP, NODELIST
    assert re.search(r"^maint\s+root\s+\d{4}-\d\d-\d\dT[\d:]+\s+node2$",
                     r.stdout, re.M), r.stdout
    assert node_state(c, "node1") == "idle"
    assert "State=DOWN" in control(c, "show", "node", "node2").stdout

    # Users may not change node states; root may resume it.
    u = control(c, "update", "NodeName=node2", "State=RESUME",
                user=test_user.pw_name)
    assert u.returncode == 1
    assert "Access/permission denied" in u.stderr, u.stderr
    assert node_state(c, "node2") == "down"
    assert control(c, "update", "nodename=node2",
                   "state=resume").returncode == 0
    wait_for(lambda: node_info(c)["node2"] == ("idle", "none"), 10,
             "node2 back to idle (%s)" % (node_info(c)["node2"],))
    ok = c.run(["arbor", "run", "-w", "node2", "printenv",
                "SLURMD_NODENAME"], timeout=60)
    assert ok.returncode == 0 and ok.stdout.strip() == "node2", ok.stderr


def test_update_errors(cluster, test_user):
    c = cluster(1)
    cases = [
        (("update", "NodeName=node1", "State=DOWN"),
         "a Reason is required to set DOWN or DRAIN"),
        (("update", "NodeName=node9", "State=DRAIN", "Reason=x"),
         "invalid node name node9"),
        (("update", "NodeName=node1", "State=sleepy", "Reason=x"),
         "valid states: DOWN, DRAIN, RESUME"),
        (("update", "NodeName=node1", "Weight=3"),
         "Update of this parameter is not supported: Weight=3"),
        (("update", "State=DOWN"), "NodeName=LIST is required"),
        (("frobnicate",), "invalid keyword: frobnicate"),
        (("show", "widgets"), "invalid entity: widgets"),
        (("show", "job", "x1"), "Invalid job id specified"),
    ]
    for args, text in cases:
        p = control(c, *args)
        assert p.returncode == 1, (args, p.stdout, p.stderr)
        assert text in p.stderr, (args, p.stderr)
    # Users may look.
    p = control(c, "show", "node", user=test_user.pw_name)
    assert p.returncode == 0 and "NodeName=node1 State=IDLE" in p.stdout
    p = control(c, "show", "partition", user=test_user.pw_name)
    assert "PartitionName=debug" in p.stdout and "TotalNodes=1" in p.stdout
    assert node_state(c, "node1") == "idle"


def pending_job(c, name):
    def find():
        for jid, j in queue_long(c).items():
            if j["name"] == name[:20] and j["state"] == "PENDING":
                return jid
        return None
    return wait_for(find, 30, "job %s to be pending" % name)


def test_drain_keeps_new_jobs_off(cluster, test_user):
    c = cluster(2)
    # A node with a job is DRAINING; the job goes on.
    p = start(c, ["arbor", "run", "-w", "node1", "-J", "onnode1",
                  "sleep", "3102"])
    jid = job_id_by_name(c, "onnode1")
    d = control(c, "update", "NodeName=node[1-2]", "State=DRAIN",
                "Reason=swap disk")
    assert d.returncode == 0, d.stderr
    assert node_info(c)["node1"] == ("drng", "swap disk")
    assert node_info(c)["node2"] == ("drain", "swap disk")
    time.sleep(1)
    assert p.poll() is None and queue_long(c)[jid]["state"] == "RUNNING"
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    finish(p, 30)
    wait_for(lambda: node_state(c, "node1") == "drain", 30,
             "node1 drained (%s)" % node_state(c, "node1"))

    # A job that needs node2 waits, saying why, until RESUME.
    w = start(c, ["arbor", "run", "-w", "node2", "-J", "wantn2",
                  "printenv", "SLURMD_NODENAME"])
    wid = pending_job(c, "wantn2")
    assert job_field(c, wid, "Reason") == \
        "ReqNodeNotAvail, UnavailableNodes:node2"
    time.sleep(1)
    assert w.poll() is None
    assert control(c, "update", "NodeName=node2",
                   "State=UNDRAIN").returncode == 0
    rc, out, err = finish(w, 30)
    assert rc == 0 and out.strip() == "node2", err
    assert node_info(c)["node1"] == ("drain", "swap disk")
    assert control(c, "update", "NodeName=node1",
                   "State=RESUME").returncode == 0
    assert node_state(c, "node1") == "idle"


def test_cancel_one_step_job_goes_on(cluster, test_user):
    c = cluster(2)
    # --exact: by default a step takes every core of its nodes (Slurm)
    script = ('"%(a)s" run --exact -N 2 -n 2 sleep 3103 & sleep 2; '
              '"%(a)s" run --exact -N 2 -n 2 sleep 3104 & wait' % {"a": c.arbor})
    p = start(c, ["arbor", "alloc", "-N", "2", "-n", "4", "-J", "twosteps",
                  "sh", "-c", script])
    jid = job_id_by_name(c, "twosteps")
    wait_for(lambda: len(procs_matching("sleep 3103")) == 2
             and len(procs_matching("sleep 3104")) == 2, 30,
             "both steps on both nodes")
    s = c.run(["arbor", "cancel", "%d.0" % jid])
    assert s.returncode == 0, s.stderr
    wait_for(lambda: not procs_matching("sleep 3103"), 30,
             "step 0 to end")
    time.sleep(1)
    assert len(procs_matching("sleep 3104")) == 2, "step 1 was hit too"
    assert queue_long(c)[jid]["state"] == "RUNNING"
    assert job_field(c, jid, "RunningSteps") == "1"
    assert p.poll() is None
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    finish(p, 30)
    wait_state(c, jid, "CANCELLED", 30)
    assert not procs_matching("sleep 3104")


def test_node_fail_tasks_of_a_silent_node_end_at_once(cluster, test_user):
    """A step on a node whose daemon cannot act (stopped here: gone, as
    far as the job goes) is not left running for KillWait past NODE_FAIL:
    its launcher, told the job ended, terminates it over its own
    connection, as the other nodes' daemons do theirs (issue 33, 5)."""
    c = cluster(2, KillWait=30)
    p = start(c, ["arbor", "run", "-N", "2", "-J", "silent", "sleep",
                  "3123"])
    job_id_by_name(c, "silent")
    wait_for(lambda: len(procs_matching("sleep 3123")) == 2, 30,
             "the two tasks")
    noded = c.daemon_pid("node2")
    os.kill(noded, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        d = control(c, "update", "NodeName=node2", "State=DOWN",
                    "Reason=silent")
        assert d.returncode == 0, d.stderr
        wait_for(lambda: not procs_matching("sleep 3123"), 15,
                 "both tasks to end well before KillWait (30 s)")
        assert time.monotonic() - t0 < 15
        rc, _out, err = finish(p, 30)
        assert rc != 0 and "NODE_FAIL" in err, err
    finally:
        os.kill(noded, signal.SIGCONT)
