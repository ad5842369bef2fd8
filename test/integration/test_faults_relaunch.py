"""A finished step cannot be launched again after its node daemon restarts
(issue 32, item 8).

The revocations that refuse a second launch of a step live in the node
daemon's memory (noded/revoke.c): a restart (an upgrade, a crash) empties
them. arbor-test-launch --replay-after=FILE runs a step on two nodes as its
owner would, lets the step and its job end, waits for FILE, and sends the
very same LAUNCH (the saved credential) to node zero again. Meanwhile the
test restarts node zero's noded. The credential was issued before that
noded started, so it cannot vouch for it and asks the controller
(STEP_LIVE), which knows the step is not live: the launch is refused, with
a reason the owner can read, and the task runs nowhere a second time. A
new job launched right after the restart still runs (the controller says
its step is live). The same rule covers revocations evicted from a full
cache: noded/test/revoke_test.c and launch_flow_test.c.
"""

import os
import signal
import time

import pytest

from test_cancel import finish, queue_long, read, start, wait_for
from test_faults_node import test_launch  # noqa: F401 (fixture)
from test_restart import NodedRestart, proc_alive


def launched_job_done(c):
    """The tool's job (named test-launch) has ended and finished
    completing: nothing of it holds a node any more."""
    jobs = [j for j in queue_long(c).values() if j["name"] == "test-launch"]
    return jobs and all(j["state"] == "COMPLETED" for j in jobs)


def restart_noded(c, node, sig):
    """Stop node's noded with 'sig' (TERM: a restart or an upgrade; KILL:
    a crash) and start a new one; returns the NodedRestart to stop()."""
    r = NodedRestart(c, node)
    os.kill(r.pid, sig)
    wait_for(lambda: not proc_alive(r.pid), 30,
             "the noded of %s to exit" % node)
    r.restart()
    return r


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL],
                         ids=["restart", "crash"])
def test_saved_launch_refused_after_noded_restart(cluster, test_launch, sig):
    c = cluster(2)
    mark = os.path.join(c.scratch, "ran.")
    go = os.path.join(c.scratch, "go")
    p = start(c, [test_launch, "--replay-after=" + go, "-t", "90", "-N", "2",
                  "--", "sh", "-c",
                  'echo x >> "%s$SLURMD_NODENAME"' % mark])
    r = None
    try:
        wait_for(lambda: all(os.path.exists(mark + n)
                             for n in ("node1", "node2")), 60,
                 "the step to run on both nodes")
        wait_for(lambda: launched_job_done(c), 60,
                 "the step's job to end and finish completing")
        r = restart_noded(c, "node1", sig)
        with open(go, "w"):
            pass
        rc, out, err = finish(p, 90)
        text = out + err
        assert "first launch accepted" in text, text
        assert "job ended" in text, text
        assert rc == 0 and "launch refused" in text, text
        assert "is not live, the controller says" in text, text
        time.sleep(2)  # a replayed task would have run by now
        for node in ("node1", "node2"):
            assert read(mark + node).count("x") == 1, \
                "the task ran again on " + node
        assert "security: launch" in c.logs("node1")
        # A job made after the restart still runs everywhere: its
        # credential, too new for the restarted noded to vouch for, is
        # confirmed live by the controller.
        q = c.run(["arbor", "run", "-N", "2", "-l", "hostname"], timeout=60)
        assert q.returncode == 0, q.stdout + q.stderr
        assert len(q.stdout.splitlines()) == 2, q.stdout
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        if r:
            r.stop()
