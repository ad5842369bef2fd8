"""arbor local --netns: separate hosts on one machine (docs/netns.md).

Each node and the ctld run in their own network and UTS namespaces, with
their own hostname and one address on a private bridge; commands run in
the host namespace and reach them over the bridge. These tests check
what makes the nodes separate hosts (a hostname, an address that is not
loopback, no way to another node but eth0), that the nodes still keep
their cgroups apart, that a node restarted by arbor local --restart goes
back into its namespace, and that a cluster killed without its teardown
leaves nothing that disturbs the next one. They run in the netns ctest
run (ARBOR_TEST_NETNS=1) and are deselected in the loopback one; the
launch, batch, cancel and MPI tests run there too, unchanged.
"""

import os
import shutil

import pytest

from arbor_cluster import expand_hostlist, leftover_daemons, netns_names
from test_cancel import wait_for

pytestmark = pytest.mark.netns_only

PYTHON = shutil.which("python3", path="/usr/bin:/bin") or "python3"

# Run on each node as the test user: what the node looks like from inside.
PROBE = r'''
import fcntl, os, socket, struct, sys

def addr(ifname):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r = fcntl.ioctl(s.fileno(), 0x8915,  # SIOCGIFADDR
                    struct.pack("256s", ifname.encode()[:15]))
    return socket.inet_ntoa(r[20:24])

def reach(host, port):
    try:
        socket.create_connection((host, port), timeout=5).close()
        return "ok"
    except ConnectionRefusedError:
        return "refused"
    except OSError as e:
        return "error-%s" % e.errno

peer, port = sys.argv[1], int(sys.argv[2])
ifs = sorted(n for _, n in socket.if_nameindex())
with open("/proc/self/cgroup") as f:
    cg = f.read()
print(os.environ["SLURMD_NODENAME"], socket.gethostname(), ",".join(ifs),
      addr("eth0"), reach("127.0.0.1", port), reach(peer, port),
      "/node_%s/" % os.environ["SLURMD_NODENAME"] in cg)
'''


def node_addrs(c):
    """{node: NodeAddr} from the cluster's arbor.conf."""
    out = {}
    with open(c.conf) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if "NodeName" in kv and "NodeAddr" in kv:
                out.update(zip(expand_hostlist(kv["NodeName"]),
                               expand_hostlist(kv["NodeAddr"])))
    return out


def conf_value(c, key):
    with open(c.conf) as f:
        for line in f:
            if line.startswith(key + "="):
                return line.strip().split("=", 1)[1]
    return None


def test_each_node_is_its_own_host(cluster, test_user):
    """Its hostname is its name, its only interfaces lo and eth0 with its
    NodeAddr (not loopback), its own noded is not on 127.0.0.1, and the
    next node's noded is reached over eth0; its steps nest in
    node_<NAME>."""
    c = cluster(3, netns=True)
    addrs = node_addrs(c)
    port = conf_value(c, "NodedPort")
    assert conf_value(c, "NodesShareHost") == "YES"
    assert not conf_value(c, "ControlAddr").startswith("127.")
    probe = os.path.join(c.scratch, "probe.py")
    with open(probe, "w") as f:
        f.write(PROBE)
    for i in range(1, 4):
        peer = addrs["node%d" % (i % 3 + 1)]
        p = c.run(["arbor", "run", "-w", "node%d" % i, "-N", "1", PYTHON,
                   probe, peer, port])
        assert p.returncode == 0, p.stderr
        name, host, ifs, addr, lo, other, nested = p.stdout.split()
        assert (name, host, ifs) == ("node%d" % i, "node%d" % i, "eth0,lo")
        assert addr == addrs[name] and not addr.startswith("127."), addr
        assert (lo, other, nested) == ("refused", "ok", "True"), p.stdout


def test_restart_puts_a_node_back_in_its_namespace(cluster, test_user):
    c = cluster(2, netns=True)
    c.restart("node2", sig="KILL")
    p = c.run(["arbor", "run", "-N", "2", "-l", "hostname"])
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.split("\n")[:2]) == ["0: node1", "1: node2"], \
        p.stdout


def test_leftovers_of_a_killed_cluster_are_removed(cluster, test_user):
    """arbor local killed by SIGKILL cannot tear down: its daemons die
    with it (parent-death signal), its namespaces and links stay, and the
    next --netns cluster removes them before it starts."""
    dead = cluster(2, netns=True)
    # Its spool on /dev/shm (local_conf.c) would stay too: ours to remove.
    spool = os.path.realpath(os.path.join(dead.dir, "spool"))
    dead.proc.kill()
    dead.proc.wait()
    try:
        wait_for(lambda: not leftover_daemons(dead.dir), 30,
                 "the killed cluster's daemons to exit")
        left = netns_names(dead.ns_tag)
        assert ("link", dead.ns_tag + "br") in left, left
        assert ("netns", dead.ns_tag + "-node1") in left, left
        c = cluster(1, netns=True)
        assert netns_names(dead.ns_tag) == []
        assert "left by clusters that died" in c.local_stderr()
        p = c.run(["arbor", "run", "hostname"])
        assert (p.returncode, p.stdout) == (0, "node1\n"), p.stderr
    finally:
        if spool.startswith("/dev/shm/arbor-spool."):
            shutil.rmtree(spool, ignore_errors=True)
