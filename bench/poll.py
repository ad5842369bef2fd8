#!/usr/bin/env python3
"""bench/poll.py - do clients polling the queue delay launches?

    python3 bench/poll.py [--build DIR] [--held 1000] [--rate 100]
                          [--reps 40] [--acct N]

On a 4-node emulated cluster holding --held pending (held) batch jobs, it
times `arbor run -N 2 true` --reps times on an otherwise idle controller,
then again while pollers run `arbor queue` --rate times a second in all
(the workflow managers' habit), and prints both medians, the delay, and
how long each `arbor queue` took. Every one of those queue answers lists
all --held jobs, from the controller's memory; the launches are served by
the same event loop. With --acct N, N jobs run to their end first and the
pollers ask `arbor acct -a -X` instead: every answer lists those N jobs
from the accounting database (read by its own thread) and the --held
ones from memory. Commands run as arbortest when we are root. Not part
of ctest.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "lib"))

import arbor_cluster  # noqa: E402
from arbor_cluster import Cluster  # noqa: E402

# Runs as the test user: {"arbor", "reps", "rate"} -> prints
# {"idle": [s...], "polled": [s...], "queue": [s...], "polls": n}.
DRIVER = r'''
import json, subprocess, sys, threading, time
a = json.loads(sys.argv[1])
arbor, reps, rate = a["arbor"], a["reps"], a["rate"]
poll = [arbor] + a["poll"]

def launches():
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.run([arbor, "run", "-N", "2", "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode:
            sys.exit("launch failed: " + p.stderr.decode())
        out.append(time.perf_counter() - t0)
    return out

stop, qtimes, lock = False, [], threading.Lock()
def poller(period):
    nxt = time.perf_counter()
    while not stop:
        t0 = time.perf_counter()
        subprocess.run(poll, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with lock:
            qtimes.append(time.perf_counter() - t0)
        nxt += period
        time.sleep(max(0, nxt - time.perf_counter()))

idle = launches()
threads = [threading.Thread(target=poller, args=(4.0 / rate,))
           for _ in range(4)]
for t in threads:
    t.start()
time.sleep(1)
polled = launches()
stop = True
for t in threads:
    t.join()
print(json.dumps({"idle": idle, "polled": polled, "queue": qtimes}))
'''


def run_to_the_end(c, tool, n):
    """n held jobs, released, and waited for until none is left."""
    p = c.run([tool, "-n", str(n), "-k", "8"], timeout=300)
    if p.returncode:
        sys.exit("cannot queue the jobs: " + p.stderr)
    ids = c.run(["arbor", "queue", "-h", "-o", "%i"]).stdout.split()
    if not ids:  # no -o yet: the first column
        ids = [l.split()[0] for l in
               c.run(["arbor", "queue", "-h"]).stdout.splitlines()]
    for i in range(0, len(ids), 200):
        c.run(["arbor", "release"] + ids[i:i + 200])
    for _ in range(600):
        if not c.run(["arbor", "queue", "-h"]).stdout.strip():
            return
        time.sleep(0.5)
    sys.exit("the jobs did not end")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--held", type=int, default=1000)
    ap.add_argument("--rate", type=int, default=100)
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--acct", type=int, default=0,
                    help="run N jobs to their end, then poll arbor acct")
    a = ap.parse_args()
    build = a.build or arbor_cluster.build_dir()
    c = Cluster(4, build=build, cpus=4,
                settings={"MaxJobCount": a.held + 1000})
    try:
        tool = os.path.join(build, "bin", "arbor-bench-submit")
        if a.acct:
            run_to_the_end(c, tool, a.acct)
        p = c.run([tool, "-n", str(a.held), "-k", "8"], timeout=300)
        if p.returncode:
            sys.exit("cannot queue the held jobs: " + p.stderr)
        poll = ["acct", "-a", "-X", "-n"] if a.acct else ["queue", "-h"]
        args = json.dumps({"arbor": c.arbor, "reps": a.reps,
                           "rate": a.rate, "poll": poll})
        p = c.run([sys.executable, "-c", DRIVER, args], timeout=600)
        if p.returncode:
            sys.exit("driver failed: " + p.stderr)
        r = json.loads(p.stdout)
        idle = statistics.median(r["idle"]) * 1e3
        polled = statistics.median(r["polled"]) * 1e3
        q = sorted(r["queue"])
        span = sum(r["polled"]) + 1
        what = "arbor acct" if a.acct else "arbor queue"
        print("%d held jobs%s listed by every %s"
              % (a.held, " and %d ended" % a.acct if a.acct else "", what))
        print("arbor run -N 2 true, idle:              median %6.1f ms"
              % idle)
        print("arbor run -N 2 true, %3d %s/s asked: median %6.1f ms "
              "(+%.1f ms)" % (a.rate, poll[0], polled, polled - idle))
        print("%s: %d answered (%.0f/s), median %.1f ms, p90 %.1f ms"
              % (what, len(q), len(q) / span, statistics.median(q) * 1e3,
                 q[int(len(q) * 0.9) - 1] * 1e3))
    finally:
        c.stop()
        c.remove()


if __name__ == "__main__":
    main()
