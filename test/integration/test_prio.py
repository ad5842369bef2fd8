"""Priorities: PriorityType=priority/multifactor, --nice and arbor prio.

On a one-node cluster kept busy, jobs queue behind a running one; when it
ends, the scheduler starts them by priority, not by submission: with a
job size weight the bigger job goes first, and --nice pushes a job back.
`arbor prio` (sprio) shows each factor; a user may not raise a job's
priority with a negative --nice.
"""

from test_batch import batch, start_time
from test_cancel import wait_state

MULTIFACTOR = dict(PriorityType="priority/multifactor",
                   PriorityWeightJobSize="1000", PriorityWeightAge="0",
                   PriorityWeightPartition="0")


def test_bigger_job_first_and_nice(cluster, test_user):
    c = cluster(1, cpus=4, **MULTIFACTOR)
    blocker = batch(c, "-n", "4", "--wrap", "sleep 3")
    wait_state(c, blocker, "RUNNING", 30)
    small = batch(c, "-n", "1", "--wrap", "sleep 2")
    big = batch(c, "-n", "4", "--wrap", "sleep 2")
    niced = batch(c, "-n", "4", "--nice=900", "--wrap", "sleep 1")
    # arbor prio: the scheduler's order and the weighted factors
    p = c.run(["arbor", "prio", "-h"])
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines()]
    assert [int(r[0]) for r in rows] == [big, small, niced], rows
    byid = {int(r[0]): r for r in rows}
    assert int(byid[big][2]) == 1000, rows       # 4 of 4 CPUs
    assert int(byid[small][2]) == 250, rows      # 1 of 4
    assert int(byid[niced][2]) == 100, rows      # 1000 - 900
    p = c.run(["arbor", "prio", "-w"])
    assert p.returncode == 0 and "1000" in p.stdout, p.stdout
    # when the blocker ends the big job starts first, then the small one
    wait_state(c, big, "RUNNING", 30)
    wait_state(c, small, "RUNNING", 30)
    wait_state(c, niced, ("RUNNING", "COMPLETED"), 30)
    assert start_time(c, big) <= start_time(c, small)


def test_negative_nice_and_basic_plugin(cluster, test_user):
    c = cluster(1, **MULTIFACTOR)
    p = c.run(["arbor", "batch", "--nice=-5", "--wrap", "true"])
    assert p.returncode != 0 and "--nice=-5" in p.stderr, p.stderr
    p = c.run(["arbor", "batch", "--nice=abc", "--wrap", "true"])
    assert p.returncode != 0 and "nice" in p.stderr, p.stderr
    b = cluster(1)  # priority/basic: sprio says it cannot help
    p = b.run(["arbor", "prio"])
    assert p.returncode == 1 and "priority/basic" in p.stderr, p.stderr
