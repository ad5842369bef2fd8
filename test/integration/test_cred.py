"""Credentials: a tampered or forged credential launches nothing.

arbor-test-launch (test/tools) creates a real step, then sends node zero a
LAUNCH whose credential was altered after sealing (--tamper) or sealed by
the wrong party (--forge: plausible claims under a key of its own, with
the genuine key's id). It prints "launch refused: ..." and exits 0 when
the launch is refused; the task (touch FILE) must never run anywhere.
The credential key itself (StateSaveLocation/cred.key) reaches every
noded from the controller.
"""

import hashlib
import os
import stat
import time

import pytest

import arbor_cluster
from conftest import skip_or_fail


@pytest.fixture
def test_launch(build):
    path = arbor_cluster.bin_path("arbor-test-launch", build)
    if not os.access(path, os.X_OK):
        skip_or_fail("%s is not built" % path)
    return path


def refused_launch(c, tool, mode):
    marker = os.path.join(c.scratch, "launched-%s" % mode.lstrip("-"))
    p = c.run([tool, mode, "-N", "2", "--", "touch", marker], timeout=60)
    assert p.returncode == 0, "rc %d\n%s%s" % (p.returncode, p.stdout, p.stderr)
    assert "launch refused" in p.stdout + p.stderr, p.stdout + p.stderr
    time.sleep(2)  # a wrongly started task would have touched it by now
    assert not os.path.exists(marker), "the task ran despite %s" % mode
    return p.stdout + p.stderr


def test_tampered_credential_launches_nothing(cluster, test_launch):
    c = cluster(2)
    refused_launch(c, test_launch, "--tamper")


def test_forged_credential_launches_nothing(cluster, test_launch, test_user):
    c = cluster(2)
    out = refused_launch(c, test_launch, "--forge")
    assert "forged or tampered" in out, out


def test_every_node_holds_the_controllers_key(cluster):
    """cred.key is made once, 0600, and each noded logs its id."""
    c = cluster(2)
    path = os.path.join(c.dir, "state", "cred.key")
    st = os.stat(path)
    assert stat.S_IMODE(st.st_mode) == 0o600
    with open(path, "rb") as f:
        key = f.read()
    assert len(key) == 32
    kid = hashlib.blake2b(key, digest_size=32).hexdigest()[:16]
    for node in ("node1", "node2"):
        deadline = time.time() + 10
        while "credential key %s from the controller" % kid not in c.logs(node):
            assert time.time() < deadline, c.logs(node)
            time.sleep(0.1)
    # a restarted controller keeps it: steps still launch, no new key
    c.restart("ctld")
    p = c.run(["arbor", "run", "-N2", "true"], timeout=60)
    assert p.returncode == 0, p.stderr
    with open(path, "rb") as f:
        assert f.read() == key


def test_valid_credential_launches(cluster, test_launch):
    """Control: the same tool with a genuine credential does run the task."""
    c = cluster(2)
    marker = os.path.join(c.scratch, "launched-valid")
    p = c.run([test_launch, "--valid", "-N", "2", "--", "touch", marker],
              timeout=60)
    assert "launch accepted" in p.stdout + p.stderr, p.stdout + p.stderr
    for _ in range(50):
        if os.path.exists(marker):
            break
        time.sleep(0.1)
    assert os.path.exists(marker)
