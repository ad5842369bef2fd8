"""A step that cannot be killed drains its node.

The job's cgroup is frozen through the v1 freezer, so SIGKILL cannot take
effect: after KillWait and UnkillableStepTimeout the stepd gives up, the
noded reports "Kill task failed" with its epilog completion, and the
controller drains the node with that reason. Once thawed, the processes die,
the step ends and nothing is left; RESUME returns the node to service.
Needs root and a v1 freezer hierarchy (the cgroups are root's).
"""

import glob
import os
import time

from arbor_cluster import is_root
from conftest import skip_or_fail
from test_cancel import (finish, job_id_by_name, procs_matching, start,
                         wait_for)
from test_containment import cgroup_root
from test_nodestate import control, node_info

FREEZER = "/sys/fs/cgroup/freezer"


def job_freezer(c, uid, jid):
    return os.path.join(FREEZER, cgroup_root(c), "node_node1",
                        "uid_%d" % uid, "job_%d" % jid)


def freezer_state(path):
    with open(os.path.join(path, "freezer.state")) as f:
        return f.read().strip()


def set_freezer(path, state):
    with open(os.path.join(path, "freezer.state"), "w") as f:
        f.write(state)


def cgroup_pids(path):
    pids = set()
    for procs in glob.glob(os.path.join(path, "**", "cgroup.procs"),
                           recursive=True):
        try:
            with open(procs) as f:
                pids.update(int(x) for x in f.read().split())
        except OSError:
            pass
    return pids


def test_unkillable_step_drains_node(cluster, test_user):
    if not is_root():
        skip_or_fail("needs root to freeze the job's cgroup")
    if not os.path.isdir(FREEZER):
        skip_or_fail("no cgroup v1 freezer hierarchy at %s" % FREEZER)
    c = cluster(1, UnkillableStepTimeout=3, KillWait=1)
    p = start(c, ["arbor", "run", "-J", "frozen", "sleep", "3201"])
    jid = job_id_by_name(c, "frozen")
    wait_for(lambda: procs_matching("sleep 3201"), 30, "the task")
    cg = job_freezer(c, test_user.pw_uid, jid)
    assert os.path.isdir(cg), "no freezer cgroup %s" % cg
    assert cgroup_pids(cg), "the task is not in %s" % cg
    set_freezer(cg, "FROZEN")
    wait_for(lambda: freezer_state(cg) == "FROZEN", 10, "the job frozen")
    thawed = False
    try:
        t0 = time.monotonic()
        assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
        wait_for(lambda: node_info(c)["node1"] == ("drain",
                                                   "Kill task failed"),
                 30, "node1 drained (%s)" % (node_info(c)["node1"],))
        assert time.monotonic() - t0 >= 3, "drained before the timeout"
        assert procs_matching("sleep 3201"), "the frozen task died anyway"
        set_freezer(cg, "THAWED")
        thawed = True
        # Thawed, the pending SIGKILL takes effect: the step ends and
        # nothing of the job is left.
        wait_for(lambda: not procs_matching("sleep 3201"), 30,
                 "the task to die once thawed")
        rc, _out, err = finish(p, 30)
        assert rc != 0, err
        wait_for(lambda: not os.path.isdir(cg) or not cgroup_pids(cg), 30,
                 "the job's cgroup to empty")
    finally:
        if not thawed and os.path.isdir(cg):
            set_freezer(cg, "THAWED")
    # Still drained until an administrator says otherwise.
    assert node_info(c)["node1"] == ("drain", "Kill task failed")
    assert control(c, "update", "NodeName=node1",
                   "State=RESUME").returncode == 0
    assert node_info(c)["node1"] == ("idle", "none")
    ok = c.run(["arbor", "run", "true"], timeout=60)
    assert ok.returncode == 0, ok.stderr

