"""Connection limits under a hostile user (issue 32, items 3, 4, 5, 13).

One ordinary user must not be able to fill the controller's sessions or
the node daemon's local socket: sessions are capped per uid, root and the
daemons keep a reserve, and a refused client prints the server's reason
instead of "Broken pipe". Counts are kept small with MaxSessionsPerUser.
"""

import os
import signal
import socket
import subprocess
import time

from arbor_cluster import TEST_USER
from test_faults import closed_by_peer, ctld_addr


def hold_runs(c, n):
    """n `arbor run` of the test user, each holding its ctld session (a
    job allocated or pending) until killed."""
    procs = [c.popen(["arbor", "run", "-N1", "-n1", "sleep", "60"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)
             for _ in range(n)]
    return procs


def wait_queued(c, n, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        p = c.run(["arbor", "queue", "-h"], user="root")
        if p.returncode == 0 and len(p.stdout.split("\n")) - 1 >= n:
            return
        time.sleep(0.3)
    raise AssertionError("%d jobs never queued: %s" % (n, p.stdout))


def test_sessions_capped_per_uid_with_the_reason(cluster):
    """A user holding MaxSessionsPerUser sessions is refused the next one
    with a sentence naming the limit; root and other users still get in."""
    c = cluster(1, MaxSessionsPerUser=3)
    procs = hold_runs(c, 3)
    try:
        wait_queued(c, 3)
        p = c.run(["arbor", "queue"])
        assert p.returncode != 0, p.stdout
        assert ("controller refused the connection: too many sessions for "
                "uid %d (limit 3)" % c_uid()) in p.stderr, p.stderr
        assert "Broken pipe" not in p.stderr and "reset" not in p.stderr
        assert "too many sessions for uid" in c.logs("ctld")
        assert c.run(["arbor", "queue"], user="root").returncode == 0
        p = c.run(["arbor", "info"], user="nobody")
        assert p.returncode == 0, p.stderr
    finally:
        for q in procs:
            os.killpg(q.pid, signal.SIGKILL)  # the wrapper and arbor
            q.wait()
    # the sessions went with their clients: the user is served again
    end = time.monotonic() + 15
    while c.run(["arbor", "queue"]).returncode != 0:
        assert time.monotonic() < end, "still refused after the holders left"
        time.sleep(0.3)


def c_uid():
    import pwd
    return pwd.getpwnam(TEST_USER).pw_uid


def test_silent_flood_cannot_lock_an_address_out(cluster):
    """Reopening silent connections from one address (over the 64 that
    address may hold unauthenticated) delays, but does not shut out, a
    client from that address: each newcomer closes the oldest silent one."""
    c = cluster(1)
    addr = ctld_addr(c)
    socks = [socket.create_connection(addr) for _ in range(64)]
    time.sleep(1.5)  # older than the 1 s a newcomer is given
    try:
        for _ in range(3):
            p = c.run(["arbor", "info"])
            assert p.returncode == 0, p.stderr
            # the flood refills what was closed for the client
            socks += [socket.create_connection(addr) for _ in range(4)]
        closed = sum(closed_by_peer(s, 0.2) for s in socks[:64])
        assert closed >= 3, "no silent connection made room"
    finally:
        for s in socks:
            s.close()


def test_idle_sessions_are_closed_but_allocations_kept(cluster):
    """SessionIdleTimeout closes idle sessions of ordinary users, never one
    that holds an allocation (its job would end)."""
    c = cluster(1, SessionIdleTimeout=2)
    p = c.popen(["arbor", "run", "-N1", "-n1", "sleep", "8"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
