#!/usr/bin/env python3
"""bench/sim.py - arbor-sim's table for the shipped trace.

    python3 bench/sim.py [--build DIR] [--trace FILE] [--sample 1024]
                         [--iterations 10] [--seed 1]

Replays random samples of --sample consecutive jobs of the trace
(../shared/traces/lublin_256.swf: 256 processors, 10,000 jobs) through
the controller's scheduling code under each policy and prints average
wait, average bounded slowdown and utilization, beside the published
figures for that trace and sample size (RLScheduler, SC20, Table V).
Not part of ctest.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "lib"))

import arbor_cluster  # noqa: E402

POLICIES = [
    ("FCFS, no backfill", [], "7273.77"),
    ("FCFS + backfill (conservative)",
     ["SchedulerType=sched/backfill"], "235.82"),
    ("FCFS + backfill (EASY)",
     ["SchedulerType=sched/backfill", "SchedulerParameters=bf_mode=easy"],
     ""),
    ("small first + backfill (conservative)",
     ["SchedulerType=sched/backfill", "PriorityType=priority/multifactor",
      "PriorityWeightJobSize=1000", "PriorityFavorSmall=YES"], ""),
    ("small first + backfill (EASY)",
     ["SchedulerType=sched/backfill", "SchedulerParameters=bf_mode=easy",
      "PriorityType=priority/multifactor", "PriorityWeightJobSize=1000",
      "PriorityFavorSmall=YES"], ""),
    ("priority/wait, P_th 130 + backfill (conservative)",
     ["SchedulerType=sched/backfill", "PriorityType=priority/wait",
      "PriorityPresets=default:10", "PriorityThreshold=130"], ""),
]


def run(sim, trace, sets, a):
    args = [sim, "--sample", str(a.sample), "--seed", str(a.seed),
            "--iterations", str(a.iterations)]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args + [trace], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, check=False)
    if p.returncode:
        sys.exit("arbor-sim failed: " + p.stderr)
    return dict(l.split("=", 1) for l in p.stdout.split())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--trace", default=os.path.join(
        HERE, "..", "..", "shared", "traces", "lublin_256.swf"))
    ap.add_argument("--sample", type=int, default=1024)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    sim = os.path.join(a.build or arbor_cluster.build_dir(), "bin",
                       "arbor-sim")
    print("%s, %d samples of %d jobs (seed %d)" % (
        os.path.basename(a.trace), a.iterations, a.sample, a.seed))
    print("%-40s %12s %12s %8s %10s" % ("policy", "avg wait s",
                                        "avg bsld", "util", "published"))
    for name, sets, published in POLICIES:
        r = run(sim, a.trace, sets, a)
        print("%-40s %12.0f %12.2f %8.3f %10s" % (
            name, float(r["avg_wait_s"]), float(r["avg_bounded_slowdown"]),
            float(r["utilization"]), published))


if __name__ == "__main__":
    main()
