#!/usr/bin/env python3
"""bench/gpu_launch.py - the launch latency of a GPU step against a CPU
step (issue 35): within 5 % is the target.

    python3 bench/gpu_launch.py [--build DIR] [--rounds 41] [--gpus 2]

Starts `arbor local -N 1 --gres gpu:G` (stand-in GPUs; as root with
ConstrainDevices=yes, so every step pays for its device cgroup or BPF
program: the CPU step is denied all the GPUs) and times, round after
round, the first of each round alternating, so that the machine's drift
and any cost of following the previous run fall on both alike,

    arbor run -N1 true        and        arbor run -N1 --gpus=1 true

each a new allocation (JOB_ALLOC, selection of the GPU, credential with
its devices, launch, environment, containment, teardown). Prints the
median, min and max of each in ms and the difference of the medians.
Not part of ctest: timings depend on the machine.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "lib"))

import arbor_cluster  # noqa: E402
from arbor_cluster import Cluster  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from launch import time_cmds  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=arbor_cluster.build_dir())
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--gpus", type=int, default=2)
    a = ap.parse_args()
    cpu = ["arbor", "run", "-N1", "true"]
    gpu = ["arbor", "run", "-N1", "--gpus=1", "true"]
    c = Cluster(1, build=a.build, cpus=4,
                local_args=["--gres", "gpu:%d" % a.gpus])
    try:
        times = {"cpu": [], "gpu": []}
        time_cmds(c, [(cpu, 3), (gpu, 3)], 60)  # warm both paths
        for r in range(a.rounds):  # who goes first alternates too
            order = ("cpu", "gpu") if r % 2 == 0 else ("gpu", "cpu")
            argv = {"cpu": cpu, "gpu": gpu}
            res, _ = time_cmds(c, [(argv[n], 1) for n in order], 60)
            for name, (t, err) in zip(order, res):
                if err:
                    raise SystemExit("%s step failed: %s" % (name, err))
                times[name] += t
        with open(c.conf) as f:
            constrained = "ConstrainDevices=yes" in f.read()
    finally:
        c.stop()
        c.remove()
    print("arbor run -N1, %d rounds alternating, %s"
          % (a.rounds, "ConstrainDevices=yes" if constrained
             else "no device containment (not root)"))
    med = {}
    for name in ("cpu", "gpu"):
        t = times[name]
        med[name] = statistics.median(t) * 1e3
        print("  %-22s median %6.1f ms  min %6.1f  max %6.1f"
              % ("true" if name == "cpu" else "--gpus=1 true", med[name],
                 min(t) * 1e3, max(t) * 1e3))
    print("  GPU step vs CPU step: %+.1f %%"
          % ((med["gpu"] - med["cpu"]) / med["cpu"] * 100))


if __name__ == "__main__":
    main()
