"""scontrol update JobId=, suspend and resume (issue 14 part 3), as a user
and an administrator would use them: a pending job's time limit, name,
partition, node count and nice; a running job's time limit; what a user
may not do; suspend stopping a running job's processes and resume
continuing them, with its time limit not counting the pause.
"""

import os
import time

from test_batch import batch
from test_cancel import wait_for, wait_state


def control(c, *args, user=None):
    return c.run(["arbor", "control"] + list(args), user=user)


def field(c, jid, letter):
    p = c.run(["arbor", "queue", "-h", "-j", str(jid), "-o", "%" + letter])
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_update_pending_job(cluster, test_user):
    c = cluster(2, cpus=2, PartitionName="short Nodes=node1 MaxTime=10")
    hog = batch(c, "-N", "2", "-n", "4", "--wrap", "sleep 300")
    wait_state(c, hog, "RUNNING", 30)
    jid = batch(c, "-J", "first", "-t", "30", "--wrap", "true")
    wait_state(c, jid, "PENDING", 30)

    # the owner may shorten the limit and rename the job
    p = control(c, "update", "JobId=%d" % jid, "TimeLimit=20", "JobName=second")
    assert p.returncode == 0, p.stderr
    assert field(c, jid, "l") == "20:00" and field(c, jid, "j") == "second"
    p = control(c, "update", "jobid=%d" % jid, "timelimit=-5")
    assert p.returncode == 0 and field(c, jid, "l") == "15:00", p.stderr
    # ... but not lengthen it, and nothing changes
    p = control(c, "update", "JobId=%d" % jid, "TimeLimit=60",
                "JobName=third")
    assert p.returncode == 1 and "Access/permission denied" in p.stderr, p
    assert field(c, jid, "l") == "15:00" and field(c, jid, "j") == "second"
    # an administrator may
    p = control(c, "update", "JobId=%d" % jid, "TimeLimit=+45", user="root")
    assert p.returncode == 0 and field(c, jid, "l") == "1:00:00", p.stderr

    # partition: checked as at submission (short's MaxTime is 10)
    p = control(c, "update", "JobId=%d" % jid, "Partition=short")
    assert p.returncode == 1 and "MaxTime" in p.stderr, p
    assert field(c, jid, "P") == "debug"
    p = control(c, "update", "JobId=%d" % jid, "Partition=short",
                "TimeLimit=5")
    assert p.returncode == 0, p.stderr
    assert field(c, jid, "P") == "short" and field(c, jid, "l") == "5:00"
    p = control(c, "update", "JobId=%d" % jid, "Partition=nosuch")
    assert p.returncode == 1 and "invalid partition name nosuch" in p.stderr

    # node count; nice (negative for administrators only)
    p = control(c, "update", "JobId=%d" % jid, "NumNodes=2")
    assert p.returncode == 1 and "1 nodes of partition short" in p.stderr, p
    p = control(c, "update", "JobId=%d" % jid, "Partition=debug",
                "NumNodes=2")
    assert p.returncode == 0 and field(c, jid, "D") == "2", p.stderr
    p = control(c, "update", "JobId=%d" % jid, "Nice=-10")
    assert p.returncode == 1 and "negative Nice" in p.stderr, p
    p = control(c, "update", "JobId=%d" % jid, "Nice=-10", user="root")
    assert p.returncode == 0, p.stderr

    # the changes live in the job's history and start with it
    p = c.run(["arbor", "job", "events", str(jid)])
    assert "updated TimeLimit=20 JobName=second by" in p.stdout, p.stdout
    c.run(["arbor", "cancel", str(hog)])
    wait_state(c, jid, "COMPLETED", 60)
    assert field(c, jid, "D") == "2" and field(c, jid, "N") == "node[1-2]"


def test_update_errors_and_running_job(cluster, test_user):
    c = cluster(1, cpus=2)
    jid = batch(c, "-t", "10", "--wrap", "sleep 300")
    wait_state(c, jid, "RUNNING", 30)
    for args, text in [
            (["JobId=%d" % jid, "Partition=debug"], "no longer pending"),
            (["JobId=%d" % jid, "Colour=blue"],
             "Update of this parameter is not supported: Colour"),
            (["JobId=%d" % jid, "TimeLimit=soon"], "Invalid TimeLimit"),
            (["JobId=%d" % jid, "NumNodes=0"], "Invalid NumNodes"),
            (["JobId=%d" % jid], "no changes specified"),
            (["JobId=999999", "TimeLimit=5"], "Invalid job id specified"),
            (["JobId=x1", "TimeLimit=5"], "Invalid job id"),
            (["JobId=%d" % jid, "TimeLimit"], "expected KEY=VALUE")]:
        p = control(c, "update", *args)
        assert p.returncode == 1 and text in p.stderr, (args, p)
        assert "Traceback" not in p.stderr and "Segmentation" not in p.stderr
    # another user's job: refused (when root, the cluster's jobs may be
    # another user's: root's own)
    if os.geteuid() == 0:
        p = c.run(["arbor", "batch", "-o", "/dev/null", "--wrap",
                   "sleep 300"], user="root")
        other = int(p.stdout.split()[-1])
        p = control(c, "update", "JobId=%d" % other, "TimeLimit=1")
        assert p.returncode == 1 and "Access/permission denied" in p.stderr
        c.run(["arbor", "cancel", str(other)], user="root")
    # a running job's limit: shortened below its run time, it times out
    p = control(c, "update", "JobId=%d" % jid, "TimeLimit=0:01")
    assert p.returncode == 0, p.stderr
    wait_state(c, jid, "TIMEOUT", 120)  # the limit is a whole minute
    p = control(c, "update", "JobId=%d" % jid, "TimeLimit=5")
    assert p.returncode == 1 and "already finished" in p.stderr, p


def stopped(pid):
    """The state letter of process pid (T: stopped)."""
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0] == "T"


def test_suspend_and_resume(cluster, test_user):
    c = cluster(1, cpus=2)
    pidfile = os.path.join(c.scratch, "pid")
    jid = batch(c, "-t", "1", "--wrap",
                "sh -c 'echo $$ > %s; while :; do sleep 0.2; done'" % pidfile)
    wait_state(c, jid, "RUNNING", 30)
    wait_for(lambda: os.path.exists(pidfile) and open(pidfile).read().strip(),
             30, "the task's pid")
    pid = int(open(pidfile).read())

    # users may not suspend, even their own jobs (as in Slurm)
    p = control(c, "suspend", str(jid))
    assert p.returncode == 1 and "Access/permission denied" in p.stderr, p
    p = control(c, "suspend", str(jid), user="root")
    assert p.returncode == 0, p.stderr
    wait_for(lambda: stopped(pid), 20, "the task stopped")
    assert field(c, jid, "T") == "SUSPENDED" and field(c, jid, "t") == "S"
    p = control(c, "suspend", str(jid), user="root")
    assert p.returncode == 1 and "already suspended" in p.stderr, p
    p = c.run(["arbor", "run", "--jobid", str(jid), "true"])
    assert p.returncode != 0 and "SUSPENDED" in p.stderr, p
    # its one-minute limit does not count while it is suspended: past a
    # minute since it started, it still runs once resumed
    time.sleep(62)
    assert field(c, jid, "T") == "SUSPENDED" and stopped(pid)
    p = control(c, "resume", str(jid), user="root")
    assert p.returncode == 0, p.stderr
    wait_for(lambda: not stopped(pid), 20, "the task continued")
    time.sleep(2)  # two ticks of the limit check
    assert field(c, jid, "T") == "RUNNING"
    p = control(c, "resume", str(jid), user="root")
    assert p.returncode == 1 and "not suspended" in p.stderr, p
    c.run(["arbor", "cancel", str(jid)])
    wait_state(c, jid, "CANCELLED", 30)


def test_update_all_nodes(cluster, test_user):
    """NodeName=ALL names every node, and a host list several, as in
    scontrol; options may follow the words (-v says what is sent)."""
    from test_nodestate import node_info
    c = cluster(3)
    p = control(c, "update", "NodeName=ALL", "State=DRAIN", "Reason=maint",
                "-v", user="root")
    assert p.returncode == 0, p.stderr
    assert "NodeName=node[1-3]" in p.stderr, p.stderr
    assert node_info(c) == {n: ("drain", "maint")
                            for n in ("node1", "node2", "node3")}
    p = control(c, "update", "nodename=node[1-2]", "State=RESUME",
                user="root")
    assert p.returncode == 0, p.stderr
    assert [node_info(c)[n][0] for n in ("node1", "node2", "node3")] == [
        "idle", "idle", "drain"]
    p = control(c, "update", "NodeName=all", "State=RESUME", user="root")
    assert p.returncode == 0, p.stderr
    assert {s for s, _ in node_info(c).values()} == {"idle"}
    # users may not, ALL or not
    p = control(c, "update", "NodeName=ALL", "State=DOWN", "Reason=x")
    assert p.returncode == 1 and "Access/permission denied" in p.stderr, p
