"""Listings that one user's jobs cannot break, and the bounds on what one
user sends (issue 32, items 6 and 12).

One user keeping jobs with big commands (each --wrap up to 64 KiB) once
made the JOB_INFO answer exceed the protocol's 16 MiB frame, and then
every user's `squeue`, `squeue --json` and `scontrol show job`, and the
owner's `scancel -u`, failed. The controller now answers JOB_INFO in
pages the commands ask for until done, and one user's kept jobs hold at
most 64 MiB of scripts, environments and commands.
"""

import json
import re

from arbor_cluster import TEST_USER
from test_cancel import OTHER_USER, ensure_user

BIG = 62000  # bytes of --wrap: 300 such commands are 18.6 MB, over 16 MiB
TASKS = 300


def held_array(c, name, wrap, tasks=TASKS):
    return c.run(["arbor", "batch", "--parsable", "--hold",
                  "--array=0-%d" % (tasks - 1), "-J", name, "--wrap", wrap])


def test_big_jobs_do_not_blind_the_queue(cluster, test_user):
    other = ensure_user(OTHER_USER).pw_name
    c = cluster(1)
    wrap = "true " + "#" * BIG  # a comment: nothing big ever runs
    p = held_array(c, "big", wrap)
    assert p.returncode == 0, p.stderr
    # 900 more tasks (each keeps its request, the command in it: 56 MB)
    # are over what one user may keep (64 MiB): refused, naming it.
    p = held_array(c, "more", wrap, 900)
    assert p.returncode == 1, p.stdout
    assert "more than the 64 MiB a user may keep" in p.stderr, p.stderr
    p = c.run(["arbor", "batch", "--parsable", "--hold", "-J", "small",
               "--wrap", "true"], user=other)
    assert p.returncode == 0, p.stderr
    small = int(p.stdout.strip().split(";")[0])

    # Another user's listings: all of them, whatever the first user keeps.
    q = c.run(["arbor", "queue", "-r", "-h", "-o", "%i %j %u"], user=other)
    assert q.returncode == 0, q.stderr
    lines = q.stdout.splitlines()
    assert len(lines) == TASKS + 1, q.stdout[-2000:]
    assert sum(1 for x in lines if x.split()[1] == "big") == TASKS
    assert any(x.startswith("%d " % small) for x in lines), lines[-5:]

    q = c.run(["arbor", "queue", "--json"], user=other)
    assert q.returncode == 0, q.stderr
    jobs = json.loads(q.stdout)["jobs"]
    assert len(jobs) == TASKS + 1
    assert len(q.stdout) > 16 << 20  # the commands, all of them

    # scontrol folds the never-started tasks into one record, as Slurm
    # does: every page was read for it to say 0-299.
    q = c.run(["arbor", "control", "show", "job"], user=other)
    assert q.returncode == 0, q.stderr
    assert len(re.findall(r"^JobId=", q.stdout, re.M)) == 2
    assert "ArrayTaskId=0-%d " % (TASKS - 1) in q.stdout
    assert re.search(r"^JobId=%d JobName=small" % small, q.stdout, re.M)
    assert q.stdout.count("Command=" + wrap) == 1

    # The owner's scancel -u finds and cancels every one of them.
    p = c.run(["arbor", "cancel", "-u", TEST_USER])
    assert p.returncode == 0, p.stderr
    q = c.run(["arbor", "queue", "-h", "-t", "PD", "-u", TEST_USER])
    assert q.returncode == 0, q.stderr
    assert q.stdout == ""
    q = c.run(["arbor", "queue", "-h", "-o", "%i", "-t", "PD"], user=other)
    assert q.stdout.split() == [str(small)]
    c.run(["arbor", "cancel", str(small)], user=other)


def test_far_begin_time_is_refused(cluster, test_user):
    """A begin time past the horizon is refused, never read as "now"."""
    c = cluster(1)
    p = c.run(["arbor", "batch", "--begin=9999-01-01", "--wrap", "true"])
    assert p.returncode == 1, p.stdout
    assert "invalid --begin '9999-01-01': more than 100 years ahead" \
        in p.stderr, p.stderr
    assert c.run(["arbor", "queue", "-h"]).stdout == ""


def test_admins_named_once(cluster, test_user):
    """With ArborUser root, "only root may", not "only root or root"."""
    c = cluster(1)
    p = c.run(["arbor", "batch", "--nice=-5", "--wrap", "true"])
    assert p.returncode == 1, p.stdout
    assert "--nice=-5: only root may raise a job's priority" in p.stderr, \
        p.stderr


def test_long_id_lists_go_in_parts(cluster, test_user):
    """More ids than one request may carry (4096): the command sends them
    in parts, and the controller acts on each."""
    c = cluster(1)
    p = c.run(["arbor", "batch", "--parsable", "--hold", "--wrap", "true"])
    assert p.returncode == 0, p.stderr
    jid = p.stdout.strip().split(";")[0]
    ids = ",".join([jid] * 5000)
    p = c.run(["arbor", "control", "hold", ids])
    assert p.returncode == 0, p.stderr
    p = c.run(["arbor", "control", "update", "JobId=" + ids, "TimeLimit=5"])
    assert p.returncode == 0, p.stderr
    q = c.run(["arbor", "queue", "-h", "-o", "%i %l %r", "-j", jid])
    assert q.stdout.split() == [jid, "5:00", "JobHeldUser"], q.stdout
    c.run(["arbor", "cancel", jid])
