#!/usr/bin/env python3
"""bench/launch.py - launch latency and daemon memory on an emulated cluster.

    python3 bench/launch.py [--build DIR] [--reps 5] [--nodes 64]

Starts `arbor local -N 64` and measures the median wall time of
`arbor run -N K -n K true` for K = 1, 4, 16, 64, first with a fresh
allocation per run (JOB_ALLOC + STEP_CREATE + launch + teardown), then as a
step of an existing allocation (`arbor alloc -N 64` holding the nodes,
`arbor run --jobid J`). Then prints the resident memory (VmRSS) of the
arbor-ctld, one arbor-noded and one arbor-stepd (sampled while
`arbor run -N 1 sleep 2` runs). As root, commands run as the unprivileged
user arbortest, as real users would.

Not part of ctest: timings depend on the machine. Run it with
`cmake --build build --target bench` or directly.
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "lib"))

import arbor_cluster  # noqa: E402
from arbor_cluster import Cluster, proc_cmdlines  # noqa: E402


def timed_run(c, args, reps):
    times = []
    for _ in range(reps):
        t0 = time.monotonic()
        p = c.run(args, timeout=300)
        dt = time.monotonic() - t0
        if p.returncode != 0:
            raise SystemExit("bench: %s failed (rc %d):\n%s"
                             % (" ".join(args), p.returncode, p.stderr))
        times.append(dt)
    return statistics.median(times), min(times), max(times)


def start_allocation(c, nnodes):
    """arbor alloc -N nnodes holding the nodes; returns (popen, job id)."""
    p = c.popen(["arbor", "alloc", "-N", str(nnodes), "--", "sh", "-c",
                 'echo "JOBID=$SLURM_JOB_ID"; exec sleep 600'],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True)
    line = p.stdout.readline().decode().strip()
    if not line.startswith("JOBID=") or not line[6:].isdigit():
        p.kill()
        raise SystemExit("bench: arbor alloc did not start: %r %s"
                         % (line, p.stderr.read().decode()))
    return p, line[6:]


def stop_allocation(p):
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def vmrss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def stepd_rss(c):
    """VmRSS of an arbor-stepd serving `arbor run -N 1 sleep 2`."""
    p = c.popen(["arbor", "run", "-N", "1", "sleep", "2"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
    rss = 0
    deadline = time.monotonic() + 10
    try:
        while not rss and time.monotonic() < deadline:
            for pid, argv in proc_cmdlines().items():
                if os.path.basename(argv[0]) == "arbor-stepd" and c.conf in argv:
                    time.sleep(0.5)  # let it reach its steady state
                    try:
                        rss = vmrss_kb(pid)
                    except OSError:
                        pass
                    break
            time.sleep(0.05)
    finally:
        p.wait(timeout=60)
    return rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=arbor_cluster.build_dir())
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--nodes", type=int, default=64)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    missing = arbor_cluster.missing_programs(build)
    if missing:
        raise SystemExit("bench: not built in %s: %s" % (build, missing))
    sizes = [k for k in (1, 4, 16, 64) if k <= args.nodes]

    t0 = time.monotonic()
    c = Cluster(args.nodes, build=build, ready_timeout=120)
    startup = time.monotonic() - t0
    try:
        rows = []
        for k in sizes:
            rows.append((k, timed_run(c, ["arbor", "run", "-N", str(k), "-n",
                                          str(k), "true"], args.reps)))
        alloc, jobid = start_allocation(c, args.nodes)
        try:
            in_alloc = [timed_run(c, ["arbor", "run", "--jobid", jobid, "-N",
                                      str(k), "-n", str(k), "true"], args.reps)
                        for k in sizes]
        finally:
            stop_allocation(alloc)
        ctld_rss = vmrss_kb(c.daemon_pid("ctld"))
        noded_rss = vmrss_kb(c.daemon_pid("node1"))
        step_rss = stepd_rss(c)
    finally:
        left = c.stop()
        c.remove()

    print("arbor launch benchmark: %d emulated nodes, %d reps, build %s"
          % (args.nodes, args.reps, build))
    print("cluster start (arbor local until ready): %.2f s" % startup)
    print()
    print("%6s  %-28s  %-28s" % ("", "arbor run (new allocation)",
                                 "arbor run --jobid (in alloc)"))
    print("%6s  %8s %8s %8s    %8s %8s %8s" % ("N=n", "median", "min", "max",
                                               "median", "min", "max"))
    for (k, (med, lo, hi)), (med2, lo2, hi2) in zip(rows, in_alloc):
        print("%6d  %7.0fms %7.0fms %7.0fms    %7.0fms %7.0fms %7.0fms"
              % (k, med * 1e3, lo * 1e3, hi * 1e3, med2 * 1e3, lo2 * 1e3,
                 hi2 * 1e3))
    print()
    print("resident memory (VmRSS):")
    print("  arbor-ctld (%d nodes)  %6d kB" % (args.nodes, ctld_rss))
    print("  arbor-noded            %6d kB" % noded_rss)
    print("  arbor-stepd (1 task)   %6d kB" % step_rss)
    if left:
        print("bench: processes left behind: %s" % left, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
