"""Faults and hostile input at the edges of the daemons and commands:
timers after blocking work, connection limits, oversized fields and
replies, fd exhaustion, configuration mistakes (issue 6)."""

import subprocess
import time


def test_launch_after_queueing_longer_than_launch_timeout(cluster):
    """A job that waits in the queue longer than LaunchTimeout + slack
    must still launch: the launch timer counts from the launch, not from
    the loop's stale clock of before the allocation."""
    c = cluster(1, LaunchTimeout=2)
    first = c.popen(["arbor", "run", "--exclusive", "sleep", "7"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        t0 = time.monotonic()
        p = c.run(["arbor", "run", "echo", "ok"])
        waited = time.monotonic() - t0
    finally:
        first.wait(timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"
    assert waited > 4, "the second run did not queue (%.1f s)" % waited
