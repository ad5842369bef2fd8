#!/usr/bin/env python3
"""bench/pam_adopt.py - what pam_arbor_adopt adds to a login.

    python3 bench/pam_adopt.py [--build DIR] [--reps 200] [--jobs 1]

As root, on a 2-node emulated cluster with PrologFlags=Contain and --jobs
running jobs of the test user on node1, it times `pamtester SERVICE
arbortest acct_mgmt` --reps times against two PAM services: one with
pam_permit alone (the baseline: pamtester and PAM themselves) and one that
adds pam_arbor_adopt (reading arbor.conf, NODE_JOBS to the noded,
STEPD_ADOPT to the extern stepd, the move into the cgroup). It prints the
median, p90 and max of each and the module's median cost. Every adopted
pamtester process ends at once, so the job's container stays small. Not
part of ctest: timings depend on the machine.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "lib"))

import arbor_cluster  # noqa: E402
from arbor_cluster import Cluster, TEST_USER  # noqa: E402


def service(text):
    name = "arbor-bench-%s" % uuid.uuid4().hex[:10]
    with open(os.path.join("/etc/pam.d", name), "w") as f:
        f.write(text)
    return name


def time_logins(name, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.run(["pamtester", name, TEST_USER, "acct_mgmt"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL)
        times.append((time.perf_counter() - t0) * 1000)
        if p.returncode != 0:
            sys.exit("login refused: " + p.stderr.decode())
    return sorted(times)


def show(label, t):
    print("%-34s median %6.2f ms  p90 %6.2f ms  max %6.2f ms"
          % (label, statistics.median(t), t[int(len(t) * 0.9) - 1], t[-1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    if not arbor_cluster.is_root():
        sys.exit("pam_adopt.py: needs root (pamtester, /etc/pam.d)")
    build = a.build or arbor_cluster.build_dir()
    module = os.path.join(build, "lib", "security", "pam_arbor_adopt.so")
    c = Cluster(2, build=build, cpus=max(4, a.jobs),
                settings={"PrologFlags": "Contain"})
    names = []
    try:
        spool = re.search(r"^SpoolDir=(\S+)$", open(c.conf).read(),
                          re.M).group(1).replace("%n", "node1")
        for _ in range(a.jobs):
            p = c.run(["arbor", "batch", "--parsable", "-w", "node1", "-n",
                       "1", "-o", "/dev/null", "--wrap", "sleep 3600"])
            jid = int(p.stdout)
            sock = os.path.join(spool, "stepd.%d.4294967292.sock" % jid)
            while not os.path.exists(sock):
                time.sleep(0.05)
        names.append(service("account required pam_permit.so\n"))
        names.append(service(
            "account required pam_permit.so\n"
            "account required %s conf=%s nodename=node1\n" % (module, c.conf)))
        time_logins(names[1], 5)  # warm up
        base = time_logins(names[0], a.reps)
        adopt = time_logins(names[1], a.reps)
        print("%d logins each, %d running job%s of %s on node1"
              % (a.reps, a.jobs, "" if a.jobs == 1 else "s", TEST_USER))
        show("pamtester, pam_permit only", base)
        show("pamtester + pam_arbor_adopt", adopt)
        print("pam_arbor_adopt's cost per login: %.2f ms (median)"
              % (statistics.median(adopt) - statistics.median(base)))
    finally:
        for n in names:
            os.unlink(os.path.join("/etc/pam.d", n))
        c.stop()
        c.remove()


if __name__ == "__main__":
    main()
