"""arbor bcast (sbcast) and arbor gather (sgather): files to and from every
node of a running job, written and read there as the job's user.

In "arbor local" the nodes share one file system: every node still gets
each block down the launch tree and writes its own temporary copy, then
renames it onto DEST (identical contents). That each node did its part
shows where a node fails: every node is named with its own error.
"""

import os
import stat

from test_batch import batch
from test_cancel import OTHER_USER, ensure_user, wait_state


def sbcast(c, *args, user=None):
    return c.run(["arbor", "bcast"] + list(args), user=user)


def running_job(c, nodes):
    jid = batch(c, "-N", str(nodes), "--wrap", "sleep 300")
    wait_state(c, jid, "RUNNING", 30)
    return jid


def write(path, data, mode=0o644, owner=None):
    """A file of the test user's (the job's user reads its own files)."""
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)
    if owner:
        os.chown(path, owner.pw_uid, owner.pw_gid)


def test_sbcast_to_every_node(cluster, test_user):
    # TreeWidth 1: node1 -> node2 -> node3, each block forwarded twice
    c = cluster(3, tree_width=1)
    jid = running_job(c, 3)
    src = os.path.join(c.scratch, "prog")
    data = os.urandom(300 * 1024 + 7)  # several blocks at -s 64k
    write(src, data, 0o750, test_user)
    p = sbcast(c, "-j", str(jid), "-s", "64k", "-p", "prog", "copied")
    assert p.returncode == 0, p.stderr + c.local_stderr()
    dest = os.path.join(c.scratch, "copied")  # relative: the cwd's
    with open(dest, "rb") as f:
        assert f.read() == data
    st = os.stat(dest)
    assert st.st_uid == test_user.pw_uid  # written as the user, not root
    assert stat.S_IMODE(st.st_mode) == 0o750
    assert int(st.st_mtime) == int(os.stat(src).st_mtime)  # -p
    assert not [n for n in os.listdir(c.scratch) if ".bcast." in n]

    # An existing DEST: refused without -f, on every node, exit 1
    p = sbcast(c, "-j", str(jid), "prog", dest)
    assert p.returncode == 1
    for node in ("node1", "node2", "node3"):
        assert "%s: %s exists" % (node, dest) in p.stderr, p.stderr
    p = sbcast(c, "-j", str(jid), "-f", "prog", dest)
    assert p.returncode == 0, p.stderr

    # DEST ending in '/': SOURCE's name in that directory; SLURM_JOB_ID
    sub = os.path.join(c.scratch, "sub")
    os.mkdir(sub)
    os.chmod(sub, 0o1777)
    p = c.run([os.path.join(os.path.dirname(c.arbor), "sbcast"), "prog",
               sub + "/"], env={"SLURM_JOB_ID": str(jid)})
    assert p.returncode == 0, p.stderr
    assert os.path.exists(os.path.join(sub, "prog"))


def test_sbcast_writes_as_the_user(cluster, test_user):
    c = cluster(2)
    jid = running_job(c, 2)
    write(os.path.join(c.scratch, "f"), b"data")
    # a directory only root may write: the nodes act as the user
    rootdir = os.path.join(c.dir, "rootonly")
    os.mkdir(rootdir, 0o755)
    p = sbcast(c, "-j", str(jid), "f", os.path.join(rootdir, "f"))
    assert p.returncode == 1
    for node in ("node1", "node2"):
        assert node + ": cannot open" in p.stderr, p.stderr
        assert "Permission denied" in p.stderr, p.stderr
    assert os.listdir(rootdir) == []


def test_sbcast_refusals(cluster, test_user):
    c = cluster(2)
    ensure_user(OTHER_USER)
    jid = running_job(c, 2)
    write(os.path.join(c.scratch, "f"), b"data")
    # another user may not write on this job's nodes
    p = sbcast(c, "-j", str(jid), "f", "/tmp/f", user=OTHER_USER)
    assert p.returncode == 1
    assert "Access/permission denied for job %d" % jid in p.stderr, p.stderr
    # no job at all, and a job that is over
    p = sbcast(c, "f", "/tmp/f")
    assert p.returncode != 0 and "no job" in p.stderr, p.stderr
    p = c.run(["arbor", "cancel", str(jid)])
    assert p.returncode == 0, p.stderr
    wait_state(c, jid, ("CANCELLED",), 30)
    p = sbcast(c, "-j", str(jid), "f", os.path.join(c.scratch, "late"))
    assert p.returncode == 1
    assert "job %d is" % jid in p.stderr, p.stderr
    assert not os.path.exists(os.path.join(c.scratch, "late"))
    # bad options say so
    p = sbcast(c, "-F", "9", "-j", str(jid), "f", "g")
    assert p.returncode != 0 and "fanout" in p.stderr


def test_sbcast_send_libs(cluster, test_user):
    c = cluster(2)
    jid = running_job(c, 2)
    exe = "/bin/ls"
    p = sbcast(c, "-j", str(jid), "--send-libs", "--exclude=NONE", exe,
               os.path.join(c.scratch, "ls"))
    assert p.returncode == 0, p.stderr
    libs = os.listdir(os.path.join(c.scratch, "ls_libs"))
    assert "libc.so.6" in libs, libs
    # the default exclusion (/lib, /usr/lib, ...) sends no system library
    p = sbcast(c, "-j", str(jid), "--send-libs", exe,
               os.path.join(c.scratch, "ls2"))
    assert p.returncode == 0, p.stderr
    assert not os.path.exists(os.path.join(c.scratch, "ls2_libs"))
    assert os.path.exists(os.path.join(c.scratch, "ls2"))


def test_sgather(cluster, test_user):
    c = cluster(3)
    jid = running_job(c, 3)
    src = os.path.join(c.scratch, "result")
    write(src, b"x" * 100000, 0o640, test_user)
    p = c.run(["arbor", "gather", "-k", "-j", str(jid), src, "out"])
    assert p.returncode == 0, p.stderr
    for node in ("node1", "node2", "node3"):
        path = os.path.join(c.scratch, "out." + node)
        with open(path, "rb") as f:
            assert f.read() == b"x" * 100000
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert os.path.exists(src)  # -k
    p = c.run(["arbor", "gather", "-k", "-j", str(jid), src, "out"])
    assert p.returncode == 1 and "-f/--force" in p.stderr, p.stderr
    # without -k the source is removed; on one shared file system the
    # first node removes it, so a one-node job shows it
    jid1 = running_job(c, 1)
    p = c.run(["arbor", "gather", "-j", str(jid1), src, "one"])
    assert p.returncode == 0, p.stderr
    assert not os.path.exists(src)
    # another user's job: refused
    ensure_user(OTHER_USER)
    p = c.run(["arbor", "gather", "-k", "-j", str(jid), "/etc/hostname",
               "/tmp/x"], user=OTHER_USER)
    assert p.returncode == 1 and "denied" in p.stderr, p.stderr
