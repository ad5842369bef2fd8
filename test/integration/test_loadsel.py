"""Load-aware priority with reservations (issue 13 part 4).

Nodes report their CPU load and free memory with each registration
(NodeRegisterInterval); `arbor control show node` shows them as CPULoad
and FreeMem. With SelectLoadParameters the controller places a job on the
least loaded node that fits rather than the first one: here node1 runs
busy processes with CPUs to spare, and a new job lands on node2.

PriorityType=priority/wait: `arbor prio` shows each pending job's P, its
preset Y and its wait part k t E, and whether it reached the threshold
P_th (RESERVE); `arbor prio -w` shows P_th.
"""

import re
import time

from test_batch import submitted_id
from test_cancel import wait_state

BUSY = "nice -n 19 sh -c 'while :; do :; done' & " * 2 + "wait"


def node_field(c, node, key):
    p = c.run(["arbor", "control", "show", "node", node])
    assert p.returncode == 0, p.stderr
    m = re.search(r"\b%s=(\S+)" % key, p.stdout)
    assert m, p.stdout
    return m.group(1)


def wait_load(c, node, least, timeout):
    end = time.time() + timeout
    while True:
        load = node_field(c, node, "CPULoad")
        if load != "N/A" and float(load) >= least:
            return float(load)
        assert time.time() < end, "%s CPULoad stays %s" % (node, load)
        time.sleep(0.3)


def test_least_loaded_node(cluster, test_user):
    c = cluster(2, cpus=4, NodeRegisterInterval="1",
                SelectLoadParameters="cpu_weight=6,ram_weight=4")
    # node1 is preferred while both are idle: ties keep node order
    p = c.run(["arbor", "batch", "-w", "node1", "-n", "1", "-t", "5",
               "-o", "/dev/null", "--wrap", BUSY])
    assert p.returncode == 0, p.stderr
    busy = submitted_id(p)
    wait_state(c, busy, "RUNNING", 30)
    assert wait_load(c, "node1", 2.0, 20) >= 2.0
    assert node_field(c, "node2", "CPULoad") == "0.00"
    free = int(node_field(c, "node2", "FreeMem"))
    assert 0 < free <= int(node_field(c, "node2", "RealMemory"))
    # node1 still has 3 free CPUs, but node2 is idle: the job goes there
    p = c.run(["arbor", "run", "-n", "1", "printenv", "SLURMD_NODENAME"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "node2", p.stdout
    p = c.run(["arbor", "cancel", str(busy)])
    assert p.returncode == 0, p.stderr


def test_wait_priority_columns(cluster, test_user):
    c = cluster(1, cpus=2, PriorityType="priority/wait",
                PriorityPresets="default:10,%s:15" % test_user.pw_name,
                PriorityWaitWeight="60", PriorityThreshold="16")
    blocker = c.run(["arbor", "batch", "-n", "2", "-o", "/dev/null",
                     "--wrap", "sleep 30"])
    assert blocker.returncode == 0, blocker.stderr
    wait_state(c, submitted_id(blocker), "RUNNING", 30)
    p = c.run(["arbor", "batch", "-n", "1", "-o", "/dev/null",
               "--wrap", "true"])
    assert p.returncode == 0, p.stderr
    jid = submitted_id(p)
    time.sleep(1.2)
    # k = 60 a minute: about 1.5 a second with E = 1 + 1/2; P = 15 + k t E
    # reaches the threshold 16 within a second of waiting
    p = c.run(["arbor", "prio"])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["JOBID", "PARTITION", "PRIORITY", "PRESET",
                                "WAIT", "RESERVE"], lines
    row = [l.split() for l in lines[1:] if l.split()[0] == str(jid)][0]
    assert row[2] == "16.000" and row[3] == "15.000", row
    assert row[4] == "1.000" and row[5] == "yes", row
    p = c.run(["arbor", "prio", "-w"])
    assert p.returncode == 0 and "16.000" in p.stdout, p.stdout
    c.run(["arbor", "cancel", str(jid), str(submitted_id(blocker))])
