"""arbor local itself: CMD mode, exit codes, --conf-only, clean teardown."""

import os
import re
import shutil
import socket
import subprocess
import tempfile

import pytest

import arbor_cluster
from arbor_cluster import leftover_daemons, user_cmd


@pytest.fixture
def workdir(build):
    d = os.path.realpath(tempfile.mkdtemp(prefix="arbor-local-it-"))
    os.chmod(d, 0o1777)  # TMPDIR of arbor local, maybe run as arbortest
    yield d
    shutil.rmtree(d, ignore_errors=True)


def local(build, args, tmpdir, user=None, timeout=120):
    """Run "arbor local ARGS" with TMPDIR=tmpdir; CompletedProcess (text)."""
    arbor = arbor_cluster.bin_path("arbor", build)
    env = {"TMPDIR": tmpdir, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    p = subprocess.run(user_cmd([arbor, "local"] + args, user, env),
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, cwd=tmpdir, timeout=timeout,
                       universal_newlines=True)
    return p


def assert_clean(tmpdir):
    """Nothing of a cluster under tmpdir survives, and its dir is gone."""
    assert leftover_daemons(tmpdir) == []
    procs = [(pid, argv) for pid, argv in arbor_cluster.proc_cmdlines().items()
             if any(tmpdir in a for a in argv) and pid != os.getpid()]
    assert procs == []
    assert [e for e in os.listdir(tmpdir)
            if e.startswith("arbor-local.")] == []


def test_local_true_leaves_nothing(build, workdir):
    p = local(build, ["-N", "4", "--", "true"], workdir)
    assert p.returncode == 0, p.stderr
    assert_clean(workdir)


def test_local_false_propagates_exit_code(build, workdir):
    p = local(build, ["-N", "2", "--", "false"], workdir)
    assert p.returncode == 1, p.stderr
    p = local(build, ["-N", "2", "--", "sh", "-c", "exit 7"], workdir)
    assert p.returncode == 7, p.stderr
    assert_clean(workdir)


def test_local_killed_cmd(build, workdir):
    p = local(build, ["-N", "2", "--", "sh", "-c", "kill -9 $$"], workdir)
    assert p.returncode == 137, p.stderr
    assert_clean(workdir)


def test_local_kills_leftover_tasks(build, workdir):
    # CMD starts a job that outlives it; teardown must kill it all.
    marker = "4321"
    script = ('"$ARBOR" run -N 2 sleep %s & sleep 2; echo started' % marker)
    arbor = arbor_cluster.bin_path("arbor", build)
    p = local(build, ["-N", "2", "--", "env", "ARBOR=" + arbor,
                      "sh", "-c", script], workdir)
    assert p.returncode == 0, p.stderr
    assert "started" in p.stdout
    assert [a for a in arbor_cluster.proc_cmdlines().values()
            if a[:2] == ["sleep", marker]] == []
    assert_clean(workdir)


def test_local_runs_a_step(build, workdir):
    arbor = arbor_cluster.bin_path("arbor", build)
    p = local(build, ["-N", "3", "--", arbor, "run", "-N", "3", "-n", "6",
                      "-l", "printenv", "SLURM_PROCID"], workdir)
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == sorted(
        "%d: %d" % (i, i) for i in range(6))
    assert_clean(workdir)


def test_local_as_unprivileged_user(build, workdir, test_user):
    arbor = arbor_cluster.bin_path("arbor", build)
    p = local(build, ["-N", "2", "--", arbor, "run", "-N", "2", "-n", "4",
                      "id", "-u"], workdir, user=test_user.pw_name)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(test_user.pw_uid)] * 4
    assert_clean(workdir)


def test_local_conf_only(build, workdir):
    d = os.path.join(workdir, "c")
    p = local(build, ["-N", "300", "--dir", d, "--conf-only", "--tree-width",
                      "3", "--set", "KillWait=9", "--set", "CredExpire=60"],
              workdir)
    assert p.returncode == 0, p.stderr
    path = p.stdout.strip()
    assert path == os.path.join(d, "arbor.conf")
    with open(path) as f:
        text = f.read()
    assert oct(os.stat(path).st_mode & 0o777) == "0o644"
    assert "ClusterName=local" in text
    assert "NodeName=node[1-254] NodeAddr=127.0.1.[1-254]" in text
    assert "NodeName=node[255-300] NodeAddr=127.0.2.[1-46]" in text
    assert "PartitionName=debug Nodes=ALL Default=YES" in text
    assert "TreeWidth=3" in text
    assert re.search(r"^KillWait=9$", text, re.M)
    assert not re.search(r"^KillWait=5$", text, re.M)
    assert "CredExpire=60" in text
    assert re.search(r"^CtldPort=\d+$", text, re.M)
    assert re.search(r"^NodedPort=\d+$", text, re.M)
    assert_clean(workdir)


def test_local_bad_set_is_refused(build, workdir):
    p = local(build, ["-N", "1", "--conf-only", "--set", "TreeWidth=abc"],
              workdir)
    assert p.returncode != 0
    assert "arbor local:" in p.stderr and "TreeWidth" in p.stderr


def test_local_daemon_failure_tears_down(build, workdir):
    # Hold node2's address:port so that its noded cannot bind.
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
    s.bind(("127.0.1.2", 0))
    s.listen(1)
    port = s.getsockname()[1]
    try:
        p = local(build, ["-N", "3", "--set", "NodedPort=%d" % port, "--",
                          "true"], workdir, timeout=90)
    finally:
        s.close()
    assert p.returncode == 1, p.stderr
    assert "node2" in p.stderr, p.stderr
    assert_clean(workdir)


def test_local_containment_settings_and_cleanup(build, workdir):
    """Root: a CgroupRoot of its own, removed at teardown. Others: pgid."""
    arbor = arbor_cluster.bin_path("arbor", build)
    p = subprocess.Popen([arbor, "local", "-N", "2", "--keep", "--",
                          "sh", "-c", 'cat "$ARBOR_CONF"; ' + arbor +
                          " run -N 2 -n 4 true"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=workdir,
                         env=dict(os.environ, TMPDIR=workdir),
                         universal_newlines=True)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    if os.geteuid() != 0:
        assert "ProctrackType=proctrack/pgid" in out
        return
    root = "arbor/local-%d" % p.pid
    assert "CgroupRoot=%s" % root in out
    with open("/proc/self/mounts") as f:
        mounts = [line.split()[1] for line in f
                  if line.split()[2] in ("cgroup", "cgroup2")]
    left = [m for m in mounts if os.path.exists(os.path.join(m, root))]
    assert left == [], "cgroups left behind: %s" % left
