"""CPU-hour limits (CpuHoursLimitsFile, libconfig format).

A user may have at most so many CPU-hours (CPUs x time limit) asked by
their running jobs: a job that would pass the limit stays pending with
reason CPUHoursLimit and starts by itself when the user's usage falls;
arbor control reconfigure (root) reads a raised limit; a broken file
keeps the limits in force and says why.
"""

import os
import tempfile

from test_batch import batch
from test_cancel import wait_state


def reason(c, jid):
    p = c.run(["arbor", "queue", "-h", "-j", str(jid)])
    return p.stdout.split("(")[-1].rstrip(")\n") if "(" in p.stdout else ""


def test_limit_holds_then_releases(cluster, test_user):
    user = test_user.pw_name
    fd, path = tempfile.mkstemp(prefix="arbor-limits-", suffix=".cfg")
    try:
        os.write(fd, b"default = 100;\nusers = { %s = 1.5; };\n"
                 % user.encode())
        os.close(fd)
        os.chmod(path, 0o644)
        c = cluster(1, cpus=4, CpuHoursLimitsFile=path)
        first = batch(c, "-n", "1", "-t", "60", "--wrap", "sleep 30")
        wait_state(c, first, "RUNNING", 30)
        second = batch(c, "-n", "1", "-t", "60", "--wrap", "true")
        wait_state(c, second, "PENDING", 5)
        assert reason(c, second) == "CPUHoursLimit"
        # a user may not reconfigure; a broken file keeps the limits
        p = c.run(["arbor", "control", "reconfigure"])
        assert p.returncode != 0 and "denied" in p.stderr, p.stderr
        with open(path, "w") as f:
            f.write("users = { %s = ; };\n" % user)
        p = c.run(["arbor", "control", "reconfigure"], user="root")
        assert p.returncode != 0 and "line 1" in p.stderr, p.stderr
        assert reason(c, second) == "CPUHoursLimit"
        # raised and read again: the second job starts by itself
        with open(path, "w") as f:
            f.write("users = { %s = 3; };\n" % user)
        p = c.run(["arbor", "control", "reconfigure"], user="root")
        assert p.returncode == 0, p.stderr
        wait_state(c, second, ("RUNNING", "COMPLETED"), 30)
        # the limit again: usage falls when the first job ends
        third = batch(c, "-n", "3", "-t", "60", "--wrap", "true")
        wait_state(c, third, "PENDING", 5)
        assert reason(c, third) == "CPUHoursLimit"
        assert c.run(["arbor", "cancel", str(first)]).returncode == 0
        wait_state(c, third, ("RUNNING", "COMPLETED"), 30)
    finally:
        os.unlink(path)
