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

ARBOR_TEST_NETNS=1 runs the same tests on separate hosts: cluster(n) then
starts `arbor local --netns` (each node and the ctld in its own network
and UTS namespace on a private bridge; docs/netns.md); cluster(n,
netns=True) asks for that in any mode. When namespaces cannot be made
here (not root, no iproute2, a container without CAP_SYS_ADMIN) such a
test skips, or fails under CI. Tests marked
@pytest.mark.loopback("why") assume the loopback emulation and are
deselected in netns mode, the reason printed.
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
def second_user():
    """A second unprivileged user, another account's member."""
    if not arbor_cluster.is_root():
        skip_or_fail("needs root to run commands as %s"
                     % arbor_cluster.TEST_USER2)
    try:
        return pwd.getpwnam(arbor_cluster.TEST_USER2)
    except KeyError:
        skip_or_fail("user %s does not exist (scripts/setup.sh creates it)"
                     % arbor_cluster.TEST_USER2)


@pytest.fixture(scope="session")
def netns_unavailable():
    """Why --netns clusters cannot run here (None: they can); probed once,
    and only by sessions that start one."""
    return arbor_cluster.netns_unavailable()


@pytest.fixture
def cluster(build, request):
    started = []

    def start(n, tree_width=16, debug=False, cpus=None, netns=None,
              local_args=None, **settings):
        if netns is None:
            netns = arbor_cluster.netns_mode()
        if netns:
            why = request.getfixturevalue("netns_unavailable")
            if why:
                skip_or_fail("network namespaces: " + why)
        c = Cluster(n, tree_width=tree_width, debug=debug, settings=settings,
                    build=build, cpus=cpus, netns=netns,
                    local_args=local_args)
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
        ns_left = c.leftover_netns()
        if ns_left:
            problems.append("namespaces and links left behind by %s: %s" % (
                c.dir, " ".join("%s %s" % kn for kn in ns_left)))
            left = left or ns_left
        if not left and not os.environ.get("ARBOR_KEEP_LOGS"):
            c.remove()
    assert not problems, "\n".join(problems)


def pytest_sessionstart(session):
    """A netns run where namespaces cannot be made is skipped as a whole
    (exit 77: ctest's Skipped), except under CI, where each test fails."""
    if arbor_cluster.netns_mode() and not in_ci():
        why = arbor_cluster.netns_unavailable()
        if why:
            pytest.exit("ARBOR_TEST_NETNS=1 but network namespaces cannot "
                        "be made here: " + why, returncode=77)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "loopback(why): assumes the loopback emulation (nodes "
        "on 127.0.1.x); deselected when ARBOR_TEST_NETNS=1")
    config.addinivalue_line(
        "markers", "netns_only: tests of arbor local --netns itself "
        "(test_netns.py); deselected unless ARBOR_TEST_NETNS=1, so that "
        "they run once, in the netns run")


def pytest_collection_modifyitems(config, items):
    """Deselect what does not belong to this mode's run: in netns mode
    the tests that assume loopback nodes, otherwise the netns_only ones
    (a deselected test is not a skip: it is not part of the run at all,
    and the reason is printed)."""
    netns = arbor_cluster.netns_mode()
    keep, drop = [], []
    for item in items:
        why = None
        mark = item.get_closest_marker("loopback")
        if netns and mark:
            why = mark.args[0] if mark.args else "assumes loopback nodes"
        elif not netns and item.get_closest_marker("netns_only"):
            why = "runs in the netns run (ARBOR_TEST_NETNS=1)"
        (drop if why else keep).append(item)
        if why:
            sys.stderr.write("deselected %s: %s\n" % (item.nodeid, why))
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Expose each phase's report on the item (to dump logs on failure)."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
