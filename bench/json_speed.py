#!/usr/bin/env python3
"""bench/json_speed.py - is a --json answer as fast as the text one?

    python3 bench/json_speed.py [--build DIR] [--nodes 64] [--jobs 2000]
                          [--ended 500] [--reps 15] [--hold SECONDS]

On an emulated cluster of --nodes nodes, one job holds every CPU (with a
step), --jobs jobs of mixed shapes wait behind it (arbor-bench-queue -S)
and --ended jobs have run to their end (the accounting database). Then
each listing runs --reps times with its text layout and with --json,
alternating, and the medians of their wall times are printed with the
ratio json/text:

    arbor queue -t all        (every job)
    arbor info -N             (a line per node)
    arbor control show job    (every job, scontrol's records)
    arbor control show node
    arbor acct -a -X          (every ended job)

Commands run as arbortest when we are root. Not part of ctest.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "lib"))

from arbor_cluster import Cluster  # noqa: E402

LISTINGS = [
    ("queue", ["queue", "-t", "all"], ["queue", "-t", "all", "--json"]),
    ("info -N", ["info", "-N"], ["info", "--json"]),
    ("control show job", ["control", "show", "job"],
     ["control", "--json", "show", "job"]),
    ("control show node", ["control", "show", "node"],
     ["control", "--json", "show", "node"]),
    ("acct -a -X", ["acct", "-a", "-X"], ["acct", "-a", "-X", "--json"]),
]


def timed(c, args):
    t = time.perf_counter()
    p = c.run(["arbor"] + args, timeout=300)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit("arbor %s failed: %s" % (" ".join(args), p.stderr))
    return dt, len(p.stdout)


def setup(c, a):
    for _ in range(a.ended // 50):  # 50 ended jobs a submission
        p = c.run(["arbor", "batch", "-a", "0-49", "-o", "/dev/null",
                   "--wrap", "true"])
        if p.returncode != 0:
            sys.exit("cannot submit: " + p.stderr)
    while c.run(["arbor", "queue", "-h", "-o", "%i"]).stdout.strip():
        time.sleep(0.5)
    p = c.run(["arbor", "batch", "-N", str(a.nodes), "--exclusive", "-o",
               "/dev/null", "--wrap", "%s run -N %d sleep 3600"
               % (c.arbor, a.nodes)])
    if p.returncode != 0:
        sys.exit("cannot start the blocking job: " + p.stderr)
    tool = os.path.join(a.build, "bin", "arbor-bench-queue")
    p = c.run([tool, "-S", str(a.jobs), "-k", "4", "-m", str(a.nodes),
               "-C", "4"], timeout=1800)
    if p.returncode != 0:
        sys.exit("submissions failed: " + p.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--ended", type=int, default=500)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--hold", type=int, default=0, metavar="SECONDS",
                    help="keep the cluster this long afterwards (to profile "
                    "a listing with ARBOR_CONF as printed)")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    c = Cluster(a.nodes, build=a.build, cpus=4,
                settings={"MaxJobCount": a.jobs + a.ended + 1000},
                ready_timeout=max(60, a.nodes // 4))
    try:
        setup(c, a)
        print("%d nodes, %d jobs waiting, %d ended; medians of %d runs"
              % (a.nodes, a.jobs, a.ended, a.reps))
        print("%-20s %10s %10s %7s %10s %10s"
              % ("listing", "text ms", "json ms", "ratio", "text KB",
                 "json KB"))
        for name, text, js in LISTINGS:
            t, j = [], []
            for _ in range(a.reps):
                t.append(timed(c, text))
                j.append(timed(c, js))
            tm = statistics.median(x[0] for x in t) * 1000
            jm = statistics.median(x[0] for x in j) * 1000
            print("%-20s %10.1f %10.1f %7.2f %10.0f %10.0f"
                  % (name, tm, jm, jm / tm, t[-1][1] / 1024,
                     j[-1][1] / 1024))
        if a.hold:
            print("ARBOR_CONF=%s (held %d s)" % (c.conf, a.hold), flush=True)
            time.sleep(a.hold)
    finally:
        c.stop()


if __name__ == "__main__":
    main()
