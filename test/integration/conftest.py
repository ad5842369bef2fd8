"""Fixtures for the Arbor integration tests.

Every test gets its own emulated cluster from the `cluster` factory:

    def test_x(cluster):
        c = cluster(8)                       # arbor local -N 8
        c = cluster(16, tree_width=2, debug=True, KillWait=2)
        p = c.run(["arbor", "run", "-N", "8", "hostname"])

Commands run as the unprivileged user `arbortest` when we are root (via
runuser), else as ourselves, with ARBOR_CONF pointing at the cluster.
Teardown SIGTERMs arbor local and fails the test if any arbor-ctld,
arbor-noded or arbor-stepd that mentions the cluster's directory is left.

Missing prerequisites (the build, munged, root for tests that need a second
user) skip with a reason, except under CI (CI=true), where nothing may
skip: the fixture fails instead.
"""

import os
import pwd
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))

import arbor_cluster  # noqa: E402
from arbor_cluster import Cluster, TEST_USER  # noqa: E402


def in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def skip_or_fail(reason):
    """Skip with a reason, or fail when running under CI."""
    if in_ci():
        pytest.fail("CI=true, cannot skip: " + reason, pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def build():
    build = arbor_cluster.build_dir()
    missing = arbor_cluster.missing_programs(build)
    if missing:
        skip_or_fail("not built in %s: %s" % (build, ", ".join(missing)))
    if not arbor_cluster.find_munged():
        skip_or_fail("munged is not installed")
    return build


@pytest.fixture
def test_user():
    """The unprivileged user commands run as; needs root to switch to it."""
    if not arbor_cluster.is_root():
        skip_or_fail("needs root to run commands as %s" % TEST_USER)
    try:
        return pwd.getpwnam(TEST_USER)
    except KeyError:
        skip_or_fail("user %s does not exist (scripts/setup.sh creates it)"
                     % TEST_USER)


@pytest.fixture
def cluster(build, request):
    started = []

    def start(n, tree_width=16, debug=False, cpus=None, **settings):
        c = Cluster(n, tree_width=tree_width, debug=debug, settings=settings,
                    build=build, cpus=cpus)
        started.append(c)
        return c

    yield start

    failed = getattr(request.node, "rep_call", None)
    failed = failed is not None and failed.failed
    problems = []
    for c in started:
        if failed:
            sys.stderr.write("\n==== logs of %s\n%s\n%s\n"
                             % (c.dir, c.local_stderr(), c.all_logs()))
        left = c.stop()
        if left:
            problems.append("left behind by %s:\n  %s" % (
                c.dir, "\n  ".join("%d %s" % p for p in left)))
        if not left and not os.environ.get("ARBOR_KEEP_LOGS"):
            c.remove()
    assert not problems, "\n".join(problems)


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Expose each phase's report on the item (to dump logs on failure)."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
