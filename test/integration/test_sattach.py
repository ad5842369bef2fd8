"""arbor attach (sattach): join a running step's I/O from another shell.

A step of two tasks on two nodes prints a counter every 0.2 s. Attached,
its owner sees both tasks' new lines (labelled with --label), only task
1's with --output-filter=1, the task layout with --layout; a SIGINT only
detaches (the step goes on); the end of the step ends sattach with 0.
Our stdin reaches the tasks. An attacher that does not read is dropped
by the stepd, not the tasks paused. Another user is refused, and an
unknown step or a bad id is an error naming it.
"""

import os
import re
import signal
import subprocess
import time

from test_batch import batch, script
from test_cancel import (OTHER_USER, ensure_user, finish, job_id_by_name,
                         job_state, wait_for, wait_state)

ATTACHED = "attached to the step's I/O"  # the stepd's log line
COUNTER = ('i=0; while :; do echo "$SLURM_PROCID:$i"; i=$((i+1)); '
           'sleep 0.2; done\n')


def attach(c, *args, user=None, input=None, timeout=60):
    return c.run(["arbor", "attach"] + list(args), user=user, input=input,
                 timeout=timeout)


def attach_for(c, seconds, *args):
    """arbor attach ARGS, interrupted (SIGINT, a detach) after 'seconds'."""
    p = c.run(["timeout", "--preserve-status", "-s", "INT", str(seconds),
               c.arbor, "attach"] + list(args), timeout=seconds + 30)
    return p


def counter_job(c):
    """A batch job running step 0: the counter on two nodes; its id, once
    the step runs (its layout can be asked)."""
    script(c, "counter.sh", COUNTER)
    jid = batch(c, "-N", "2", "-n", "2", "--wrap",
                "%s run -N 2 -n 2 sh counter.sh" % c.arbor)
    wait_state(c, jid, "RUNNING", 30)
    wait_for(lambda: attach(c, "--layout", "%d.0" % jid).returncode == 0,
             30, "step %d.0 to run" % jid)
    return jid


def counters(out, label):
    """{rank: [counters]} of the lines 'arbor attach' printed."""
    got = {}
    pat = r"^(\d+): (\d+):(\d+)$" if label else r"^()(\d+):(\d+)$"
    for line in out.splitlines():
        m = re.match(pat, line)
        assert m, "unexpected line %r in:\n%s" % (line, out)
        if label:
            assert m.group(1) == m.group(2), line  # the label is the rank
        got.setdefault(int(m.group(2)), []).append(int(m.group(3)))
    return got


def test_attach_label_filter_layout_detach(cluster, test_user):
    c = cluster(2)
    jid = counter_job(c)
    step = "%d.0" % jid

    p = attach(c, "--layout", step)
    assert p.stdout.splitlines() == [
        "Job step %s layout:" % step,
        "  2 tasks, 2 nodes (node[1-2])",
        "",
        "  Node 0 (node1), 1 task: 0",
        "  Node 1 (node2), 1 task: 1"], p.stdout

    # both tasks' new lines, labelled; SIGINT only detaches (exit 0)
    time.sleep(1)
    p = attach_for(c, 4, "--label", step)
    assert p.returncode == 0, (p.stderr, c.all_logs())
    got = counters(p.stdout, label=True)
    assert sorted(got) == [0, 1], p.stdout
    for rank, seen in got.items():
        assert len(seen) >= 5, p.stdout
        assert seen == list(range(seen[0], seen[0] + len(seen))), p.stdout
        assert seen[0] >= 3, p.stdout  # from now on, not from the start
    assert "detached from step %s" % step in p.stderr, p.stderr

    # the step went on; -Q says nothing on detaching
    assert job_state(c, jid) == "RUNNING"
    p = attach_for(c, 3, "-Q", "--output-filter=1", step)
    assert p.returncode == 0, p.stderr
    assert p.stderr == "", p.stderr
    got = counters(p.stdout, label=False)
    assert list(got) == [1] and len(got[1]) >= 3, p.stdout
    # sattach's own name
    p = c.run(["timeout", "--preserve-status", "-s", "INT", "3",
               os.path.join(os.path.dirname(c.arbor), "sattach"), "-l",
               "--output-filter", "0", step])
    assert p.returncode == 0, p.stderr
    assert list(counters(p.stdout, label=True)) == [0], p.stdout
    for node in ("node1", "node2"):
        assert re.search(r"client \S+ detached", c.logs(node)), c.logs(node)
    assert job_state(c, jid) == "RUNNING"

    # another user may not attach
    other = ensure_user(OTHER_USER)
    p = attach(c, step, user=other.pw_name)
    assert p.returncode == 1, p.stdout
    assert "Access/permission denied" in p.stderr, p.stderr
    p = attach(c, "--layout", step, user=other.pw_name)
    assert p.returncode == 1 and "Access/permission denied" in p.stderr

    # filters name a task of the step
    p = attach(c, "--output-filter=2", step)
    assert p.returncode == 1
    assert "--output-filter=2: step %s has 2 tasks" % step in p.stderr
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0


def test_attach_until_the_step_ends(cluster, test_user):
    c = cluster(2)
    script(c, "ten.sh", 'while [ ! -e go ]; do sleep 0.1; done; i=0; '
                        'while [ $i -lt 10 ]; do echo "line $i"; '
                        'echo "err $SLURM_PROCID" >&2; i=$((i+1)); '
                        'sleep 0.1; done\n')
    jid = batch(c, "-N", "2", "-n", "2", "--wrap",
                "%s run -N 2 -n 2 sh ten.sh" % c.arbor)
    wait_state(c, jid, "RUNNING", 30)
    step = "%d.0" % jid
    wait_for(lambda: attach(c, "--layout", step).returncode == 0, 30,
             "step %s to run" % step)
    p = c.popen(["arbor", "attach", "-l", "--error-filter=1", step],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE)
    wait_for(lambda: ATTACHED in c.logs("node1")
             and ATTACHED in c.logs("node2"), 30, "sattach to attach")
    open(os.path.join(c.scratch, "go"), "w").close()
    rc, out, err = finish(p, 60)  # ends with the step, by itself
    assert rc == 0, (out, err, c.all_logs())
    lines = out.splitlines()
    for rank in (0, 1):
        assert ["%d: line %d" % (rank, i) for i in range(10)] == \
            [l for l in lines if l.startswith("%d: line" % rank)], out
    errs = [l for l in lines if " err " in l]
    # stderr (on our stderr, not shown here) only for task 1
    assert errs == [], out
    assert err.count("1: err 1") == 10 and "0: err 0" not in err, err


def test_attach_forwards_stdin(cluster, test_user):
    c = cluster(1, cpus=2)
    # The launcher's stdin is a pipe kept open: both tasks read from it.
    run = c.popen(["arbor", "run", "-J", "reader", "-n", "2", "sh", "-c",
                   'read line; echo "$SLURM_PROCID got:$line" | '
                   'tee got.$SLURM_PROCID'],
                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                  stderr=subprocess.PIPE)
    sat = None
    try:
        jid = job_id_by_name(c, "reader")
        step = "%d.0" % jid
        wait_for(lambda: attach(c, "--layout", step).returncode == 0, 30,
                 "the step to run")
        sat = c.popen(["arbor", "attach", "--input-filter=0", step],
                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE)
        sat.stdin.write(b"hello\n")
        sat.stdin.close()  # our EOF is not sent: task 1 still waits
        sat.stdin = None  # (for communicate)
        wait_for(lambda: os.path.exists(os.path.join(c.scratch, "got.0")),
                 30, "task 0 to read our line")
        time.sleep(0.5)
        assert not os.path.exists(os.path.join(c.scratch, "got.1"))
        run.stdin.close()  # the launcher's EOF ends task 1's read
        run.stdin = None
        rc, out, err = finish(sat, 30)
        assert rc == 0, (out, err, c.all_logs())
        assert sorted(out.splitlines()) == ["0 got:hello", "1 got:"], out
        rc, out, err = finish(run, 30)
        assert rc == 0, err
        assert sorted(out.splitlines()) == ["0 got:hello", "1 got:"], out
    finally:
        for p in (run, sat):
            if p and p.poll() is None:
                p.kill()
                p.wait()


def test_slow_attacher_is_dropped(cluster, test_user):
    c = cluster(1)
    # 40 MB of output once 'go' exists, then the step goes on
    script(c, "spew.sh", 'while [ ! -e go ]; do sleep 0.1; done; '
                         'yes 0123456789abcdefghijklmnopqrstuvwxyz | '
                         'head -c 40000000; touch spewed; sleep 300\n')
    jid = batch(c, "--wrap", "%s run -n 1 sh spew.sh" % c.arbor)
    step = "%d.0" % jid
    wait_state(c, jid, "RUNNING", 30)
    wait_for(lambda: attach(c, "--layout", step).returncode == 0, 30,
             "step %s to run" % step)
    # stdout a pipe nobody reads: sattach blocks, its socket fills
    p = c.popen(["arbor", "attach", step], stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: ATTACHED in c.logs("node1"), 30, "the attach")
        open(os.path.join(c.scratch, "go"), "w").close()
        # the tasks were not held up: all was written, the launcher got it
        wait_for(lambda: os.path.exists(os.path.join(c.scratch, "spewed")),
                 60, "the task to write its output")
        wait_for(lambda: "behind the output: detaching it"
                 in c.logs("node1"), 30, "the stepd to drop sattach")
        # what was queued, then why, and exit 1
        rc, out, err = finish(p, 60)
        assert rc == 1, err
        assert "could not keep up with the output of step %s" % step in err
        assert job_state(c, jid) == "RUNNING"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0


def test_errors(cluster, test_user):
    c = cluster(1)
    p = attach(c)
    assert p.returncode == 1 and "no step given" in p.stderr, p.stderr
    for bad in ("5", "5.x", "5_1.0", "x"):
        p = attach(c, bad)
        assert p.returncode == 1, bad
        assert "Invalid job step id: %s" % bad in p.stderr, p.stderr
    p = attach(c, "5.batch")
    assert p.returncode == 1
    assert "batch and extern steps have no I/O" in p.stderr, p.stderr
    p = attach(c, "--input-filter=x", "5.0")
    assert p.returncode == 1 and "not a task number" in p.stderr, p.stderr
    p = attach(c, "999.0")
    assert p.returncode == 1
    assert "step 999.0 is not running" in p.stderr, p.stderr
    p = attach(c, "--help")
    assert p.returncode == 0 and "--input-filter" in p.stdout
    # a running job, an unknown step of it
    jid = batch(c, "--wrap", "sleep 60")
    wait_state(c, jid, "RUNNING", 30)
    p = attach(c, "%d.3" % jid)
    assert p.returncode == 1
    assert "step %d.3 is not running" % jid in p.stderr, p.stderr
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
