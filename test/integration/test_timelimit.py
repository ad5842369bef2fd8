"""Time limits: a job past its limit ends TIMEOUT, and --signal=SIG@TIME
warns its tasks before that.

-t takes minutes, so this test runs a little over a minute (OverTimeLimit=0,
KillWait=2): an arbor run job (with the warning) and an arbor alloc job run
side by side on two nodes.
"""

import os
import re
import time

from test_cancel import (files_in, finish, job_id_by_name, queue_long, start,
                         wait_state)


def test_time_limit_ends_jobs_timeout_after_warning(cluster, test_user):
    """arbor run with --signal=USR1@45 and arbor alloc, side by side on two
    nodes, both with -t 1."""
    c = cluster(2, KillWait=2, OverTimeLimit=0)
    task = ('trap "date +%s > warned.$SLURM_PROCID" USR1; '
            'date +%s > started.$SLURM_PROCID; '
            'while :; do sleep 0.2; done')
    t0 = time.monotonic()
    p = start(c, ["arbor", "run", "-N", "1", "-t", "1", "--signal=USR1@45",
                  "-J", "limited", "sh", "-c", task])
    a = start(c, ["arbor", "alloc", "-N", "1", "-t", "1", "-J", "allocto",
                  "sh", "-c", "trap 'echo hup; exit 1' HUP; "
                  "while :; do sleep 0.2; done"])
    # A batch script without steps: its output says why it ended (issue 33)
    b = c.run(["arbor", "batch", "--parsable", "-t", "1", "-o", "tl.out",
               "--wrap", "sleep 300"])
    assert b.returncode == 0, b.stderr
    bid = int(b.stdout)
    jid = job_id_by_name(c, "limited")
    aid = job_id_by_name(c, "allocto")
    assert queue_long(c)[jid]["state"] == "RUNNING"
    rc, out, err = finish(p, 150)
    elapsed = time.monotonic() - t0
    assert elapsed >= 55, "ended after %.0fs, before its 1 minute" % elapsed
    assert rc != 0
    assert "Job %d time limit reached" % jid in err, err
    assert wait_state(c, jid, "TIMEOUT", 30) == "TIMEOUT"
    # The warning came about 45 s before the limit, well before the end.
    assert files_in(c, "warned.") == ["warned.0"], \
        "no USR1 warning before the time limit:\n" + err
    with open(os.path.join(c.scratch, "started.0")) as f:
        started = int(f.read())
    with open(os.path.join(c.scratch, "warned.0")) as f:
        warned = int(f.read())
    assert warned - started < 50, (started, warned)
    # arbor alloc is told too: the notice, then SIGHUP to its command.
    rc, out, err = finish(a, 60)
    assert "Job %d time limit reached" % aid in err, err
    assert "has been revoked" in err, err
    assert "hup" in out, out
    wait_state(c, aid, "TIMEOUT", 30)
    wait_state(c, bid, "TIMEOUT", 30)
    with open(os.path.join(c.scratch, "tl.out")) as f:
        out = f.read()
    assert re.search(r"\*\*\* JOB %d ON node\d CANCELLED AT \S+ DUE TO TIME "
                     r"LIMIT \*\*\*" % bid, out), out


def test_batch_warning_goes_to_steps_or_with_b_to_the_shell(cluster,
                                                             test_user):
    """sbatch --signal=USR1@55 warns the job's steps, not its batch shell
    (which need not catch it: it died of it before); --signal=B:USR1@55
    warns the batch shell alone (once refused). -t 1: the warnings come
    about 5 s after the start (issue 33)."""
    from test_cancel import signal_job, wait_for
    c = cluster(2, KillWait=2, OverTimeLimit=0)
    marks = lambda tag: sorted(f for f in files_in(c, tag + ".")
                               if not f.endswith(".up"))
    steps = signal_job(c, "wsteps", False, 600,
                       ["-t", "1", "--signal=USR1@55"])
    shell = signal_job(c, "wshell", True, 150,
                       ["-t", "1", "--signal=B:USR1@55"])
    wait_state(c, steps, "COMPLETED", 50)
    assert marks("wsteps") == ["wsteps.shell", "wsteps.step"]
    wait_state(c, shell, "COMPLETED", 50)
    assert marks("wshell") == ["wshell.shell", "wshell.shellsig"]
    # B: is sbatch's alone, as in Slurm
    p = c.run(["arbor", "run", "--signal=B:USR1@5", "true"])
    assert p.returncode != 0
