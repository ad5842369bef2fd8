"""arbor local --restart: a daemon restarted inside the cluster, and
teardown of daemons of the cluster that arbor local did not start."""

import os
import signal
import subprocess
import time

import arbor_cluster
from arbor_cluster import leftover_daemons


def wait_for(cond, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


def alive(pid):
    """pid exists and is not a zombie (it may be reaped while we look)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_restart_noded_and_ctld(cluster):
    c = cluster(2)
    old = c.daemon_pid("node2")
    new = c.restart("node2")
    assert new != old
    assert c.restart("ctld", sig="KILL") != 0
    # The restarted ctld learns its nodes again from their registrations.
    wait_for(lambda: c.run(["arbor", "info", "-N", "-h"]).stdout
             .count(" idle ") == 2, 90,
             "nodes to register with the restarted ctld")
    p = c.run(["arbor", "run", "-N", "2", "printenv", "SLURMD_NODENAME"])
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.split()) == ["node1", "node2"]


def test_restart_errors(cluster):
    c = cluster(1)
    p = subprocess.run([c.arbor, "local", "--dir", c.dir, "--restart",
                        "node9"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 1
    assert "no daemon called 'node9'" in p.stderr
    p = subprocess.run([c.arbor, "local", "--dir", c.dir, "--restart",
                        "ctld", "--signal", "BOGUS"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 2
    assert "unknown signal 'BOGUS'" in p.stderr


def restart_by_hand(c, name):
    """Stop the cluster's daemon 'name' and start it again with the same
    command line, as a grandchild nobody waits for (a double fork through
    a shell), not through --restart. Returns the old pid."""
    pid = c.daemon_pid(name)
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        argv = [a.decode() for a in f.read().rstrip(b"\0").split(b"\0")]
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not alive(pid), 30, "%s to exit" % name)
    subprocess.run(["sh", "-c", "setsid %s </dev/null >/dev/null 2>&1 &"
                    % " ".join(argv)], check=True)
    return pid


def test_teardown_kills_daemon_started_by_hand(cluster):
    """A noded restarted by hand (not through --restart) is no child of
    arbor local; teardown must still end it."""
    c = cluster(2)
    pid = restart_by_hand(c, "node2")
    wait_for(lambda: any(p != pid for p, _ in leftover_daemons(c.dir)
                         if "node2" in _), 30, "the hand-started noded")
    left = c.stop()
    assert left == []


def test_restart_munged(cluster):
    """arbor local --restart munged: the cluster's own munged, killed,
    comes back with its key, and commands authenticate again."""
    c = cluster(1)
    old = c.daemon_pid("munged")
    new = c.restart("munged", sig="KILL")
    assert new != old and not alive(old) and alive(new)
    p = c.run(["arbor", "run", "-N", "1", "echo", "authenticated"])
    assert p.returncode == 0 and p.stdout.strip() == "authenticated", \
        p.stderr
    left = c.stop()
    assert left == [] and not alive(new)


def test_teardown_kills_munged_started_by_hand(cluster):
    """A munged restarted by hand on the cluster's socket is no child of
    arbor local; teardown must still end it."""
    c = cluster(1)
    pid = restart_by_hand(c, "munged")

    def hand_started():
        try:
            return c.daemon_pid("munged") != pid
        except arbor_cluster.ClusterError:
            return False
    wait_for(hand_started, 30, "the hand-started munged")
    hand = c.daemon_pid("munged")
    p = c.run(["arbor", "run", "-N", "1", "true"])
    assert p.returncode == 0, p.stderr
    c.stop()
    assert not alive(hand)


def test_sighup_reopens_the_logs(cluster):
    """logrotate's way: rename the log files, SIGHUP the daemons; they go
    on, and write to new files by the old names."""
    c = cluster(1)
    logdir = os.path.join(c.dir, "log")
    for node, name in (("ctld", "ctld.log"), ("node1", "noded-node1.log")):
        os.rename(os.path.join(logdir, name), os.path.join(logdir, name + ".1"))
        pid = c.daemon_pid(node)
        os.kill(pid, signal.SIGHUP)
        wait_for(lambda: "log reopened" in c.logs(node), 30,
                 "%s to reopen its log" % node)
        assert alive(pid) and c.daemon_pid(node) == pid
        with open(os.path.join(logdir, name + ".1")) as f:
            assert "log reopened" not in f.read()
    p = c.run(["arbor", "run", "-N", "1", "true"])
    assert p.returncode == 0, p.stderr
    assert "started" not in c.logs("node1")  # the old lines stayed behind
