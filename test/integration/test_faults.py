"""Faults and hostile input at the edges of the daemons and commands:
timers after blocking work, connection limits, oversized fields and
replies, fd exhaustion, configuration mistakes (issue 6)."""

import subprocess
import time


def test_launch_after_queueing_longer_than_launch_timeout(cluster):
    """A job that waits in the queue longer than LaunchTimeout + slack
    must still launch: the launch timer counts from the launch, not from
    the loop's stale clock of before the allocation."""
    c = cluster(1, LaunchTimeout=2)
    first = c.popen(["arbor", "run", "--exclusive", "sleep", "7"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        t0 = time.monotonic()
        p = c.run(["arbor", "run", "echo", "ok"])
        waited = time.monotonic() - t0
    finally:
        first.wait(timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"
    assert waited > 4, "the second run did not queue (%.1f s)" % waited


# ---- hostile connections (items 5 and 6) --------------------------------

import os  # noqa: E402
import re  # noqa: E402
import socket  # noqa: E402
import struct  # noqa: E402

MAGIC = 0x41524252


def conf_value(c, key):
    with open(c.conf) as f:
        return re.search(r"^%s=(\S+)" % key, f.read(), re.M).group(1)


def ctld_addr(c):
    return (conf_value(c, "ControlAddr"), int(conf_value(c, "CtldPort")))


def header(body_len, token_len, msg_type=109):
    """A frame header: magic, major 1, minor, type, flags, tag, lens."""
    return struct.pack("!IHHHHIII", MAGIC, 1, 2, msg_type, 0, 1, token_len,
                       body_len)


def proc_status(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def closed_by_peer(s, timeout):
    """True if the peer closes (EOF or reset) within timeout seconds."""
    s.settimeout(timeout)
    try:
        while True:
            if not s.recv(4096):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def test_unauthenticated_peer_cannot_make_ctld_hold_memory(cluster):
    """A header announcing a 16 MiB body with a forged token: the token is
    checked before any body is buffered, so the connection is closed at
    once and the controller's memory does not grow."""
    c = cluster(1)
    pid = c.daemon_pid("ctld")
    rss0 = proc_status(pid, "VmRSS")
    socks = []
    for _ in range(12):
        s = socket.create_connection(ctld_addr(c))
        token = b"MUNGE:" + b"A" * 200
        s.sendall(header(16 << 20, len(token)) + token)
        try:
            s.sendall(b"\0" * (4 << 20))
        except OSError:
            pass
        socks.append(s)
    for s in socks:
        assert closed_by_peer(s, 10), "a forged frame was not refused"
        s.close()
    grown = proc_status(pid, "VmRSS") - rss0
    assert grown < 16 * 1024, "ctld grew by %d kB" % grown
    assert "security:" in c.logs("ctld")
    p = c.run(["arbor", "info"])
    assert p.returncode == 0, p.stderr


def test_idle_and_excess_unauthenticated_connections_are_closed(cluster):
    """Connections that never authenticate are closed after the auth
    timeout, and one address cannot hold more than a bounded number."""
    c = cluster(1)
    socks = [socket.create_connection(ctld_addr(c)) for _ in range(80)]
    t0 = time.monotonic()
    # Over the per-address limit (64): closed at once.
    refused = sum(closed_by_peer(s, 0.5) for s in socks[64:])
    assert refused == 16
    # The rest are closed once the authentication timeout (10 s) passes.
    assert all(closed_by_peer(s, 20) for s in socks[:64])
    assert time.monotonic() - t0 < 30
    for s in socks:
        s.close()
    p = c.run(["arbor", "queue"])
    assert p.returncode == 0, p.stderr


def test_fd_exhaustion_does_not_spin(cluster):
    """With the controller out of descriptors, accept() fails with EMFILE:
    the controller must back off instead of spinning and flooding its log,
    and serve again once descriptors are free."""
    c = cluster(1)
    pid = c.daemon_pid("ctld")
    old = subprocess.run(["prlimit", "--pid", str(pid), "--nofile",
                          "--output=SOFT,HARD", "--noheadings", "--raw"],
                         check=True, stdout=subprocess.PIPE,
                         universal_newlines=True).stdout.split()
    subprocess.run(["prlimit", "--pid", str(pid), "--nofile=40:%s" % old[1]],
                   check=True)
    log0 = len(c.logs("ctld"))
    cpu0 = cpu_seconds(pid)
    socks = []
    for _ in range(60):
        try:
            socks.append(socket.create_connection(ctld_addr(c), timeout=2))
        except OSError:
            break
    time.sleep(3)
    cpu = cpu_seconds(pid) - cpu0
    grown = len(c.logs("ctld")) - log0
    for s in socks:
        s.close()
    subprocess.run(["prlimit", "--pid", str(pid),
                    "--nofile=%s:%s" % tuple(old)], check=True)
    assert cpu < 1.0, "ctld used %.2f s of CPU in 3 s" % cpu
    assert grown < 20000, "ctld logged %d bytes in 3 s" % grown
    time.sleep(1.5)
    p = c.run(["arbor", "info"])
    assert p.returncode == 0, p.stderr


def test_oversized_fields_are_refused(cluster):
    """Field sizes are bounded on input: a 131,000-character job name is
    refused with an error naming the field, and the queue stays usable."""
    c = cluster(1)
    p = c.run(["arbor", "run", "-J", "x" * 131000, "true"])
    assert p.returncode != 0
    assert "field 'name' is 131000 bytes long, more than 1024" in p.stderr
    p = c.run(["arbor", "run", "-J", "y" * 1024, "true"])
    assert p.returncode == 0, p.stderr
    p = c.run(["arbor", "queue", "-t", "all"])
    assert p.returncode == 0, p.stderr


def test_ctld_warns_about_a_cluster_without_nodes(cluster):
    """A configuration without nodes or partitions starts a controller that
    can run nothing: it must say so (at warning level, the default log
    shows it)."""
    c = cluster(1)
    with open(c.conf) as f:
        lines = [l for l in f.read().splitlines()
                 if not l.startswith(("NodeName", "PartitionName",
                                      "CtldPort", "CtldLogFile"))]
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    conf = os.path.join(c.dir, "empty.conf")
    log = os.path.join(c.dir, "log", "empty-ctld.log")
    with open(conf, "w") as f:
        f.write("\n".join(lines + ["CtldPort=%d" % port,
                                   "CtldLogFile=%s" % log]) + "\n")
    ctld = subprocess.Popen([os.path.join(c.build, "bin", "arbor-ctld"),
                             "-f", conf], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        text = ""
        while time.monotonic() < deadline and "listening" not in text:
            time.sleep(0.1)
            if os.path.exists(log):
                text = open(log).read()
    finally:
        ctld.terminate()
        ctld.wait(timeout=30)
    assert "warning: %s defines no nodes (NodeName=)" % conf in text, text
