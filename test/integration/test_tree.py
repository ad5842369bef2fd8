"""The launch tree: fan-out shape from the noded logs, and a hung node."""

import os
import re
import signal
import time

from arbor_cluster import proc_cmdlines

FORWARD = re.compile(r"launch (\d+)\.(\d+) forwarded to (\S+) \(slice ")


def forwards(c, nodes, job_step):
    """{node: [children it forwarded job_step to]} from the noded logs."""
    tree = {}
    for node in nodes:
        for m in FORWARD.finditer(c.logs(node)):
            if (m.group(1), m.group(2)) == job_step:
                tree.setdefault(node, []).append(m.group(3))
    return tree


def test_tree_width_2_fans_out_in_depth(cluster):
    c = cluster(16, tree_width=2, debug=True)
    p = c.run(["arbor", "run", "-N", "16", "-l", "printenv", "SLURMD_NODENAME",
               "SLURM_JOB_ID", "SLURM_STEP_ID"])
    assert p.returncode == 0, p.stderr
    lines = [line.split(": ", 1)[1] for line in p.stdout.splitlines()]
    names = {v for v in lines if v.startswith("node")}
    assert names == {"node%d" % i for i in range(1, 17)}
    job, step = [v for v in lines if not v.startswith("node")][:2]
    nodes = ["node%d" % i for i in range(1, 17)]
    tree = forwards(c, nodes, (job, step))
    assert tree, "no 'forwarded to' lines in the noded logs"
    children = {ch for chs in tree.values() for ch in chs}
    roots = [n for n in tree if n not in children]
    assert len(roots) == 1, tree
    root = roots[0]
    for node, chs in tree.items():
        assert len(chs) <= 2, "%s forwarded to %s" % (node, chs)
    assert 1 <= len(tree[root]) <= 2
    # Depth > 1: a node node zero forwarded to forwarded again.
    assert any(ch in tree for ch in tree[root]), tree
    # Every node but node zero was reached exactly once.
    reached = sorted(ch for chs in tree.values() for ch in chs)
    assert reached == sorted(n for n in nodes if n != root), tree


def tasks_running(marker):
    return [pid for pid, argv in proc_cmdlines().items()
            if argv[:2] == ["sleep", marker]]


def test_stopped_noded_fails_the_launch(cluster):
    c = cluster(16, tree_width=2)
    pid = c.daemon_pid("node5")
    marker = "1234"
    os.kill(pid, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        p = c.run(["arbor", "run", "-N", "16", "sleep", marker], timeout=90)
        elapsed = time.monotonic() - t0
    finally:
        os.kill(pid, signal.SIGCONT)
    assert p.returncode != 0, p.stdout + p.stderr
    assert "node5" in p.stderr, p.stderr
    assert elapsed < 20, "arbor run took %.1fs" % elapsed
    # No task of the failed step may stay running, on any node.
    deadline = time.monotonic() + 20
    while tasks_running(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not tasks_running(marker)
    # The cluster still works once node5 answers again.
    p = c.run(["arbor", "run", "-N", "16", "true"], timeout=90)
    assert p.returncode == 0, p.stderr
