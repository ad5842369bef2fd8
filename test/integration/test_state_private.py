"""The controller's state is private (issue 32, item 9).

StateSaveLocation holds every user's batch scripts and exported
environment: arbor local makes it 0700, the databases are 0600, another
user cannot read them, and a controller refuses to start on a state
directory other users may read, saying what to chmod.
"""

import os
import signal
import stat
import subprocess

from test_state import batch
from test_cancel import wait_for, wait_state


def test_state_is_private_under_arbor_local(cluster, test_user):
    c = cluster(1)
    jid = batch(c, "-H", "--export=ALL,DB_PASSWORD=hunter2", "-o",
                "/dev/null", "--wrap", "echo secret")
    state = os.path.join(c.dir, "state")
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o700
    # the databases (state, accounting) and their -wal/-shm: 0600 (the
    # job id mark, a number, is behind the 0700 directory alone)
    dbs = [n for n in os.listdir(state) if ".db" in n]
    assert "arbor_state.db" in dbs and "arbor_state.db-wal" in dbs, dbs
    for name in dbs + ["cred.key"]:
        mode = stat.S_IMODE(os.stat(os.path.join(state, name)).st_mode)
        assert mode == 0o600, (name, oct(mode))
    db = os.path.join(state, "arbor_state.db")
    p = c.run(["cat", db])
    assert p.returncode != 0 and "Permission denied" in p.stderr, p
    p = c.run(["ls", state])
    assert p.returncode != 0 and "Permission denied" in p.stderr, p
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    wait_state(c, jid, "CANCELLED", 30)


def test_controller_refuses_a_readable_state_dir(cluster, test_user):
    c = cluster(1)
    state = os.path.join(c.dir, "state")
    pid = c.daemon_pid("ctld")
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not os.path.exists("/proc/%d" % pid)
             or "Z" in open("/proc/%d/stat" % pid).read().split(")")[1][:3],
             30, "the controller to stop")
    os.chmod(state, 0o755)
    ctld = os.path.join(c.build, "bin", "arbor-ctld")
    p = subprocess.run([ctld, "-f", c.conf], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=30,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert ("StateSaveLocation %s is open to others (mode 0755)" % state
            in p.stderr), p.stderr
    assert "chmod 700 %s" % state in p.stderr, p.stderr
