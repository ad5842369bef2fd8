"""A full StateSaveLocation (issue 32, item 7).

When the controller cannot record a change it does not make it, and says
so; a job whose start cannot be recorded does not start; what was
recorded never goes backwards. StateSaveLocation is a small tmpfs,
filled by root; the commands run as the test user.
"""

import os
import subprocess
import tempfile
import time

import pytest

from conftest import skip_or_fail
from test_state import batch
from test_cancel import queue_long, wait_for, wait_state

NO_SPACE = "No space left on device"


@pytest.fixture
def small_state():
    """A 4 MiB tmpfs, mode 0700 (the state is private), unmounted after."""
    d = tempfile.mkdtemp(prefix="arbor-state-disk-")
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700",
                        "tmpfs", d], stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        os.rmdir(d)
        skip_or_fail("cannot mount a tmpfs: %s" % p.stderr.strip())
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", d])
        os.rmdir(d)


def fill(path):
    """Fill the filesystem of 'path' (as root) to its last block."""
    with open(os.path.join(path, "filler"), "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass


def refused(p, what):
    assert p.returncode != 0, (what, p.stdout, p.stderr)
    assert "cannot record the change" in p.stderr, (what, p.stderr)
    assert NO_SPACE in p.stderr, (what, p.stderr)


def test_full_state_disk_changes_nothing(cluster, test_user, small_state):
    c = cluster(1, StateSaveLocation=small_state)
    marks = os.path.join(c.scratch, "marks")
    done = batch(c, "-o", "/dev/null", "--wrap", "true")
    wait_state(c, done, "COMPLETED", 30)
    held = batch(c, "-H", "-o", "/dev/null", "--wrap",
                 "echo held >> %s" % marks)
    to_cancel = batch(c, "-H", "-o", "/dev/null", "--wrap", "true")
    ending = batch(c, "-o", "/dev/null", "--wrap", "sleep 3")
    wait_state(c, ending, "RUNNING", 30)

    fill(small_state)
    # the running job ends meanwhile: its end is kept and retried
    p = c.run(["arbor", "run", "sh", "-c", "echo run >> %s" % marks])
    refused(p, "arbor run")
    refused(c.run(["arbor", "release", str(held)]), "arbor release")
    refused(c.run(["arbor", "cancel", str(to_cancel)]), "arbor cancel")
    refused(c.run(["arbor", "batch", "-o", "/dev/null", "--wrap", "true"]),
            "arbor batch")
    time.sleep(4)  # long enough for a wrongly released job to have run
    assert not os.path.exists(marks), open(marks).read()
    q = queue_long(c)
    assert q[held]["state"] == "PENDING", q
    assert q[to_cancel]["state"] == "PENDING", q
    assert "cannot write" in c.logs("ctld")
    assert c.logs("ctld").count("state database: cannot write") == 1

    os.unlink(os.path.join(small_state, "filler"))
    wait_for(lambda: "state database: written again" in c.logs("ctld"), 30,
             "the state to be written again")
    wait_state(c, ending, "COMPLETED", 30)
    c.restart("ctld", sig="KILL")
    q = queue_long(c)
    assert q[done]["state"] == "COMPLETED", q
    assert q[ending]["state"] == "COMPLETED", q  # never back to pending
    assert q[held]["state"] == "PENDING", q
    assert q[to_cancel]["state"] == "PENDING", q
    assert not [j for j in q.values() if j["state"] == "RUNNING"], q
    # with room again, changes are made and recorded
    assert c.run(["arbor", "release", str(held)]).returncode == 0
    wait_state(c, held, "COMPLETED", 30)
    with open(marks) as f:
        assert f.read() == "held\n"
