#!/usr/bin/env python3
"""bench/submit.py - durable batch submissions per second.

    python3 bench/submit.py [--build DIR] [--jobs 10000] [--conns 32]
                            [--pending]

On a 4-node emulated cluster, arbor-bench-submit (bench/) sends --jobs
held batch submissions over --conns client connections at once; the
controller answers each only once it is in its state database
(StateSaveLocation/arbor_state.db, SQLite WAL, synchronous=FULL), and
groups the commits of what arrives together. Prints the rate, the answer
times, and how many commits the controller made (from its log at
shutdown). The issue's target: 1,000 durable submissions a second.
With --pending the jobs are not held: a job holding every CPU runs first,
and every submission is a pending job each scheduling pass sorts by
priority (PriorityType=priority/multifactor) and tries.
Commands run as the unprivileged user arbortest when we are root. Not
part of ctest.
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "lib"))

import arbor_cluster  # noqa: E402
from arbor_cluster import Cluster  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--conns", type=int, default=32)
    ap.add_argument("--pending", action="store_true")
    a = ap.parse_args()
    build = a.build or arbor_cluster.build_dir()
    tool = os.path.join(build, "bin", "arbor-bench-submit")
    settings = {"MaxJobCount": a.jobs + 100}
    if a.pending:
        settings.update(PriorityType="priority/multifactor",
                        PriorityWeightAge="1000", PriorityWeightJobSize="100")
    c = Cluster(4, build=build, cpus=4, settings=settings)
    try:
        args = [tool, "-n", str(a.jobs), "-k", str(a.conns)]
        if a.pending:
            p = c.run(["arbor", "batch", "-N", "4", "--exclusive", "-o",
                       "/dev/null", "--wrap", "sleep 600"])
            if p.returncode != 0:
                sys.exit("cannot start the blocking job: " + p.stderr)
            args.append("-p")
        p = c.run(args, timeout=600)
        sys.stdout.write(p.stdout)
        if p.returncode != 0:
            sys.exit("arbor-bench-submit failed: " + p.stderr)
    finally:
        c.stop()
        log = open(os.path.join(c.dir, "log", "ctld.log")).read()
        m = re.findall(r"state database: (\d+) records written in (\d+) "
                       r"commits", log)
        if m:
            print("controller: %s records written in %s commits" % m[-1])
        c.remove()


if __name__ == "__main__":
    main()
