"""arbor run on an emulated cluster: placement, identity, exit codes, I/O."""

import os
import re

from arbor_cluster import expand_hostlist


def labelled(out):
    """{rank: [lines]} from "-l" output ("R: text")."""
    lines = {}
    for line in out.splitlines():
        m = re.match(r"^\s*(\d+): ?(.*)$", line)
        assert m, "unlabelled line %r in %r" % (line, out)
        lines.setdefault(int(m.group(1)), []).append(m.group(2))
    return lines


def check_ok(p):
    assert p.returncode == 0, "rc %d\nstdout:\n%s\nstderr:\n%s" % (
        p.returncode, p.stdout, p.stderr)


def test_16_tasks_on_8_nodes_labelled(cluster):
    c = cluster(8)
    p = c.run(["arbor", "run", "-N", "8", "-n", "16", "-l",
               "printenv", "SLURM_PROCID"])
    check_ok(p)
    got = labelled(p.stdout)
    assert sorted(got) == list(range(16))
    for rank, lines in got.items():
        assert lines == [str(rank)]


def test_block_distribution_env(cluster):
    c = cluster(8)
    script = ('echo $SLURM_PROCID $SLURM_NODEID $SLURM_LOCALID '
              '$SLURMD_NODENAME $SLURM_STEP_NODELIST $SLURM_NTASKS '
              '$SLURM_NNODES')
    p = c.run(["arbor", "run", "-N", "8", "-n", "16", "-l",
               "sh", "-c", script])
    check_ok(p)
    got = labelled(p.stdout)
    assert sorted(got) == list(range(16))
    names = set()
    for rank, lines in got.items():
        procid, nodeid, localid, nodename, nodelist, ntasks, nnodes = \
            lines[0].split()
        assert int(procid) == rank
        assert int(nodeid) == rank // 2, lines
        assert int(localid) == rank % 2, lines
        assert expand_hostlist(nodelist)[int(nodeid)] == nodename, lines
        assert (ntasks, nnodes) == ("16", "8")
        names.add(nodename)
    assert names == {"node%d" % i for i in range(1, 9)}


def test_tasks_run_as_the_user(cluster, test_user):
    c = cluster(8)
    p = c.run(["arbor", "run", "-N", "8", "-n", "16", "-l", "id", "-u"],
              user=test_user.pw_name)
    check_ok(p)
    got = labelled(p.stdout)
    assert sorted(got) == list(range(16))
    for rank, lines in got.items():
        assert lines == [str(test_user.pw_uid)]
        assert lines != ["0"]


def test_exit_code_propagates(cluster):
    c = cluster(2)
    p = c.run(["arbor", "run", "-N", "2", "-n", "2", "sh", "-c", "exit 3"])
    assert p.returncode == 3, p.stderr
    assert "exit code 3" in p.stderr


def test_killed_task_gives_137(cluster):
    c = cluster(2)
    p = c.run(["arbor", "run", "-N", "2", "-n", "4", "sh", "-c",
               'if [ "$SLURM_PROCID" = 2 ]; then kill -9 $$; fi; exit 0'])
    assert p.returncode == 137, p.stderr
    assert re.search(r"error: node\d+: task 2: Killed", p.stderr), p.stderr


def test_highest_exit_code_wins(cluster):
    c = cluster(4)
    p = c.run(["arbor", "run", "-N", "4", "-n", "4", "sh", "-c",
               'case $SLURM_PROCID in 1) exit 5;; 3) exit 2;; esac; exit 0'])
    assert p.returncode == 5, p.stderr
    assert re.search(r"task 1: Exited with exit code 5", p.stderr), p.stderr
    assert re.search(r"task 3: Exited with exit code 2", p.stderr), p.stderr


def test_stdin_to_all_tasks(cluster):
    c = cluster(2)
    p = c.run(["arbor", "run", "-N", "2", "-n", "2", "cat"], input="hello\n")
    check_ok(p)
    assert p.stdout.splitlines() == ["hello", "hello"]


def test_stdin_to_task_zero(cluster):
    c = cluster(2)
    p = c.run(["arbor", "run", "-N", "2", "-n", "2", "-l", "--input=0", "cat"],
              input="hello\n")
    check_ok(p)
    assert labelled(p.stdout) == {0: ["hello"]}


def test_stdin_none(cluster):
    c = cluster(2)
    p = c.run(["arbor", "run", "-N", "2", "-n", "2", "--input=none", "cat"],
              input="hello\n")
    check_ok(p)
    assert p.stdout == ""


def test_output_file_per_task(cluster):
    c = cluster(4)
    pattern = os.path.join(c.scratch, "out.%t")
    p = c.run(["arbor", "run", "-N", "4", "-n", "8", "-o", pattern,
               "printenv", "SLURM_PROCID"])
    check_ok(p)
    assert p.stdout == ""
    for rank in range(8):
        with open(os.path.join(c.scratch, "out.%d" % rank)) as f:
            assert f.read() == "%d\n" % rank
    assert not os.path.exists(os.path.join(c.scratch, "out.8"))


def test_info_shows_idle_nodes(cluster):
    c = cluster(8)
    p = c.run(["arbor", "info"])
    check_ok(p)
    out = p.stdout.lower()
    assert "idle" in out, p.stdout
    assert "node[1-8]" in out, p.stdout
    idle = [line for line in out.splitlines() if "idle" in line]
    assert any(re.search(r"\b8\b", line) for line in idle), p.stdout
