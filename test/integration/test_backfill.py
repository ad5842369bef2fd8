"""Backfill: SchedulerType=sched/backfill on arbor local.

One node of 4 cores: a job holds 3 of them for up to 2 minutes; the head
of the queue needs all 4. A one-core job whose time limit ends before the
head can start is backfilled at once; a one-core job that would still run
when the head can start waits, so the head is not delayed, and starts
after it.
"""

from test_batch import batch, start_time
from test_cancel import wait_for, wait_state

BACKFILL = dict(SchedulerType="sched/backfill",
                SchedulerParameters="bf_interval=1,bf_resolution=1")


def test_small_job_backfills_without_delaying_the_head(cluster, test_user):
    c = cluster(1, cpus=4, **BACKFILL)
    holder = batch(c, "-n", "3", "-t", "2", "--wrap", "sleep 8")
    wait_state(c, holder, "RUNNING", 30)
    head = batch(c, "-n", "4", "-t", "1", "--wrap", "sleep 1")
    short = batch(c, "-n", "1", "-t", "1", "--wrap", "sleep 1")
    long = batch(c, "-n", "1", "-t", "5", "--wrap", "sleep 1")
    # the short one is backfilled within a pass or two
    wait_state(c, short, ("RUNNING", "COMPLETED"), 6)
    wait_state(c, head, "PENDING", 1)
    wait_state(c, long, "PENDING", 1)
    # both are planned (conservative): arbor queue --start says when
    p = c.run(["arbor", "queue", "--start", "-h"])
    assert p.returncode == 0, p.stderr
    planned = {int(l.split()[0]): l.split()[5] for l in p.stdout.splitlines()}
    assert set(planned) == {head, long}, p.stdout
    assert planned[head] != "N/A" and planned[long] != "N/A", p.stdout
    assert planned[head] <= planned[long], p.stdout
    # the head starts when the holder ends, then the long one
    wait_state(c, head, ("RUNNING", "COMPLETED"), 30)
    wait_state(c, long, ("RUNNING", "COMPLETED"), 30)
    wait_for(lambda: start_time(c, long) != "Unknown", 30, "the long job")
    assert start_time(c, short) < start_time(c, head) <= start_time(c, long)
