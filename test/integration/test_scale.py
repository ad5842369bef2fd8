"""Scale and kept connections: a 256-node launch, and a noded restarted
between launches is dialled again (issue 8)."""

import collections


def test_256_nodes_one_task_each(cluster):
    # 256 emulated nodes start their stepds on this host's few cores (and
    # under ASan, slowly): what is tested is that they all start, not how
    # fast, so the launch has a generous budget.
    c = cluster(256, LaunchTimeout=60)
    p = c.run(["arbor", "run", "-N", "256", "-n", "256", "-l", "printenv",
               "SLURMD_NODENAME"], timeout=180)
    assert p.returncode == 0, p.stderr
    names = collections.Counter(
        line.split(": ", 1)[1] for line in p.stdout.splitlines())
    assert set(names) == {"node%d" % i for i in range(1, 257)}
    assert all(n == 1 for n in names.values()), names.most_common(3)
    # Again, on the connections the first launch left open.
    p = c.run(["arbor", "run", "-N", "256", "-n", "256", "true"], timeout=180)
    assert p.returncode == 0, p.stderr


def test_restarted_noded_is_dialled_again(cluster):
    c = cluster(4, tree_width=2)
    for _ in range(2):  # the ctld and node zero now keep connections
        p = c.run(["arbor", "run", "-N", "4", "hostname"])
        assert p.returncode == 0, p.stderr
    c.restart("node3")
    p = c.run(["arbor", "run", "-N", "4", "-l", "printenv", "SLURMD_NODENAME"])
    assert p.returncode == 0, p.stderr
    assert sorted(line.split(": ", 1)[1] for line in p.stdout.splitlines()) \
        == ["node1", "node2", "node3", "node4"]
    # The ctld's kept connection to the old node3 died with it: the job's
    # end (JOB_TERMINATE) reached the new one, which is back in service.
    p = c.run(["arbor", "run", "-N", "4", "-w", "node3", "true"])
    assert p.returncode == 0, p.stderr
