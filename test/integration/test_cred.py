"""Credentials: a tampered or forged credential launches nothing.

arbor-test-launch (test/tools) creates a real step, then sends node zero a
LAUNCH whose credential was altered after signing (--tamper) or signed by
the wrong party (--forge). It prints "launch refused: ..." and exits 0 when
the launch is refused; the task (touch FILE) must never run anywhere.
"""

import os
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


def test_tampered_credential_launches_nothing(cluster, test_launch):
    c = cluster(2)
    refused_launch(c, test_launch, "--tamper")


def test_forged_credential_launches_nothing(cluster, test_launch, test_user):
    # The forger must not be ArborUser (under arbor local run by root,
    # ArborUser is root): a credential it signs itself is then not genuine.
    c = cluster(2)
    refused_launch(c, test_launch, "--forge")


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
