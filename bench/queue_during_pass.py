#!/usr/bin/env python3
"""bench/queue_during_pass.py - `arbor queue` answer times while backfill
passes over 10,000 pending jobs run.

    python3 bench/queue_during_pass.py [--build DIR] [--nodes 100]
        [--cpus 4] [--jobs 10000] [--calls 200] [--cli-calls 20]
        [--submits 20] [--bf-interval 1] [--schedulers backfill,builtin]

For each scheduler (SchedulerType=sched/backfill with
SchedulerParameters=bf_interval=N, then sched/builtin as the baseline) it
starts an emulated cluster of --nodes nodes of --cpus CPUs
(PriorityType=priority/multifactor), holds every CPU with one job
(`arbor batch -N NODES --exclusive -t 120 --wrap 'sleep 7200'`: backfill
knows when they come back), and queues --jobs pending jobs of mixed
shapes and time limits (arbor-bench-queue -S). A pass then starts every
bf_interval seconds (1: the least there is; a tick that comes while the
last plan is still being made is skipped), and tests every pending job
(the default bf_max_job_test is 10,000). Then arbor-bench-queue (bench/)
measures, one request at a time, 0 to 40 ms apart:

  * the controller's loop and backfill planner thread for 6 s with no
    request: how many plans were made, how long each took (the planner
    thread's CPU time, from /proc/PID/task/TID/schedstat, sampled every
    2 ms), and how long the loop was busy just before each plan (the
    strict pass and the snapshot) and just after it (applying the plan);
  * the JOB_INFO request of `arbor queue` (10,000 jobs answered), on one
    kept connection (the RPC alone) and on a new connection each time
    (configuration, munge credential, connect, as the command does);
  * the same for one job only (`arbor queue -j ID`: a small answer, what
    the loop's delay alone costs);
  * --submits batch submissions (each answered once durable);

with, for each, the controller loop's CPU time per request (its thread
time over the run, less its rate with no request);

and the wall time of the command `arbor queue -h` (and `-h -j ID`) run
--cli-calls times. Each prints median / p90 / p99 / max in ms (and the
count); with backfill also the same over the requests that overlapped a
pass: a plan being made, widened by the longest loop work seen before
and after a plan with no request (the snapshot, the applying).

The controller logs no pass duration: the plan figures are the planner
thread's CPU and wall time as sampled. The ctld runs at DebugLevel=debug
so that its "backfill: N jobs tested, S started, R reserved" lines (one
per applied plan that started or reserved a job) count the passes.

--nodes 1000 is cheap too (about 2 GB and 3 s to start here).

Commands run as the unprivileged user arbortest when we are root. Times
depend on the machine (a 2-core one: the planner thread takes one core
while a plan is made). Not part of ctest.
"""

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "lib"))

import arbor_cluster  # noqa: E402
from arbor_cluster import Cluster  # noqa: E402

QUIET_S = 6        # samples with no request, for the plan and loop figures
PAUSE_MS = 20      # requests start 0 to 2*PAUSE_MS ms after the last answer


def pct(v, p):
    """The p-th percentile of sorted v (nearest rank)."""
    if not v:
        return float("nan")
    k = max(0, min(len(v) - 1, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def stats(v):
    v = sorted(v)
    if not v:
        return "no samples"
    return ("median %.1f, p90 %.1f, p99 %.1f, max %.1f ms (%d)"
            % (statistics.median(v), pct(v, 90), pct(v, 99), v[-1], len(v)))


def as_user(c):
    """subprocess keywords running a command as the cluster's user."""
    if c.user:
        return {"user": c.user, "group": c.user, "extra_groups": []}
    return {}


class Probe:
    """One arbor-bench-queue run's answers and samples."""

    def __init__(self, out):
        self.q, self.s, self.c = [], [], []
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == "q":
                self.q.append((float(f[1]), float(f[2]), int(f[3])))
            elif f and f[0] == "s":
                self.s.append((float(f[1]), float(f[2]), int(f[3])))
            elif f and f[0] == "c":
                self.c.append((float(f[1]), int(f[2]), int(f[3])))


def plans(samples):
    """The planner's busy stretches: [(start, end, cpu_ms)], from the
    samples whose planner CPU time grew (gaps under 20 ms merged: the
    kernel updates a running thread's time at its ticks)."""
    runs = []
    for (t0, _, p0), (t1, _, p1) in zip(samples, samples[1:]):
        if p1 <= p0:
            continue
        if runs and t0 - runs[-1][1] < 0.020:
            runs[-1][1] = t1
            runs[-1][2] += (p1 - p0) / 1e6
        else:
            runs.append([t0, t1, (p1 - p0) / 1e6])
    return [r for r in runs if r[2] >= 1.0]


def loop_busy(samples):
    """The loop's busy stretches [(start, end, cpu_ms)]: samples in which
    it ran at least half the time, gaps under 10 ms merged."""
    runs = []
    for (t0, l0, _), (t1, l1, _) in zip(samples, samples[1:]):
        if t1 <= t0 or (l1 - l0) / 1e9 < 0.5 * (t1 - t0):
            continue
        if runs and t0 - runs[-1][1] < 0.010:
            runs[-1][1] = t1
            runs[-1][2] += (l1 - l0) / 1e6
        else:
            runs.append([t0, t1, (l1 - l0) / 1e6])
    return runs


def span_of(v):
    return "%d" % v[0] if min(v) == max(v) else "%d-%d" % (min(v), max(v))


def overlaps(t0, ms, spans):
    t1 = t0 + ms / 1e3
    return any(s < t1 and t0 < e for s, e, _ in spans)


def planner_tid(pid):
    """The controller's thread (not its loop) that ran most over 3 s:
    with 10,000 pending jobs and passes back to back, the planner."""
    def cpu():
        out = {}
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    out[int(tid)] = int(f.read().split()[0])
            except OSError:
                pass
        return out
    a = cpu()
    time.sleep(3)
    b = cpu()
    grew = sorted(((b[t] - a.get(t, 0), t) for t in b if t != pid),
                  reverse=True)
    return (grew[0][1], grew[0][0] / 3e7) if grew and grew[0][0] > 0 \
        else (None, 0.0)


def log_passes(log, t0, t1):
    """Times (unix s) of the ctld's "backfill: N jobs tested, S started,
    R reserved" lines in [t0, t1], and (N, S, R) of each."""
    out = []
    for m in re.finditer(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}) .*?"
                         r"backfill: (\d+) jobs tested, (\d+) started, "
                         r"(\d+) reserved", log, re.M):
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f")
        t = time.mktime(t.timetuple()) + t.microsecond / 1e6
        if t0 <= t <= t1:
            out.append((t, tuple(int(g) for g in m.group(2, 3, 4))))
    return out


def run_case(a, build, sched):
    tool = os.path.join(build, "bin", "arbor-bench-queue")
    settings = {"MaxJobCount": a.jobs + 1000,
                "PriorityType": "priority/multifactor",
                "PriorityWeightAge": "1000", "PriorityWeightJobSize": "100",
                "SchedulerType": "sched/" + sched,
                "DebugLevel": "debug"}
    if sched == "backfill":
        settings["SchedulerParameters"] = "bf_interval=%d" % a.bf_interval
    print("sched/%s%s:" % (sched, " (bf_interval=%d)" % a.bf_interval
                           if sched == "backfill" else ""))
    t = time.monotonic()
    c = Cluster(a.nodes, build=build, cpus=a.cpus, settings=settings,
                ready_timeout=max(60, a.nodes // 4))
    mono_to_unix = time.time() - time.monotonic()
    try:
        print("  cluster: %d nodes x %d CPUs ready in %.1f s"
              % (a.nodes, a.cpus, time.monotonic() - t))
        p = c.run(["arbor", "batch", "-N", str(a.nodes), "--exclusive",
                   "-t", "120", "-o", "/dev/null", "--wrap", "sleep 7200"])
        if p.returncode != 0:
            sys.exit("cannot start the blocking job: " + p.stderr)
        blocker = p.stdout.split()[-1]
        for _ in range(300):
            q = c.run(["arbor", "queue", "-h", "-t", "R", "-j", blocker])
            if q.stdout.strip():
                break
            time.sleep(0.2)
        else:
            sys.exit("the blocking job %s never ran" % blocker)
        t = time.monotonic()
        p = c.run([tool, "-S", str(a.jobs), "-k", "8", "-m", str(a.nodes),
                   "-C", str(a.cpus)], timeout=1800)
        if p.returncode != 0:
            sys.exit("submissions failed: " + p.stderr)
        print("  %d pending jobs of mixed shapes queued in %.1f s, every "
              "CPU held by job %s" % (a.jobs, time.monotonic() - t, blocker))
        probe_id = str(int(blocker) + a.jobs // 2)
        pid = c.daemon_pid("ctld")
        tid, share = planner_tid(pid)
        if sched == "backfill" and tid:
            print("  planner thread %d: %.0f %% of a CPU over 3 s" % (tid, share))
        elif sched == "backfill":
            print("  no controller thread but the loop ran in 3 s: no plan "
                  "being made?")
        base = [tool, "-P", str(pid), "-i", str(PAUSE_MS)]
        if tid and sched == "backfill":
            base += ["-W", str(tid)]

        def probe(args, timeout=1800):
            r = c.run(base + args, timeout=timeout)
            if r.returncode != 0:
                print("  arbor-bench-queue %s failed: %s"
                      % (" ".join(args), r.stderr.strip()))
            return Probe(r.stdout)

        w0 = time.monotonic()
        quiet = probe(["-d", str(QUIET_S)])
        runs = [("arbor queue RPC, kept connection",
                 probe(["-q", str(a.calls)]), "q"),
                ("arbor queue RPC, new connection each",
                 probe(["-q", str(a.calls // 2), "-c"]), "q"),
                ("arbor queue -j ID RPC, kept connection",
                 probe(["-q", str(a.calls), "-j", probe_id]), "q"),
                ("submission (durable), kept connection",
                 probe(["-s", str(a.submits), "-i", "100"]), "s")]
        cli = []
        for args in (["-h"], ["-h", "-j", probe_id]):
            v, n = [], 0
            for _ in range(a.cli_calls):
                t = time.monotonic()
                r = subprocess.run([c.arbor, "queue"] + args,
                                   env={"ARBOR_CONF": c.conf,
                                        "PATH": os.environ.get("PATH", "")},
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL, cwd=c.scratch,
                                   **as_user(c))
                v.append((time.monotonic() - t) * 1e3)
                n = r.stdout.count(b"\n")
                if r.returncode != 0:
                    print("  arbor queue %s failed: %s"
                          % (" ".join(args), r.stderr.decode().strip()))
                    break
            cli.append(("command arbor queue %s (%d lines)"
                        % (" ".join(args), n), v))
        w1 = time.monotonic()
    finally:
        c.stop()
        log = c.logs("ctld")
        c.remove()

    # The controller's threads with no request.
    if sched == "backfill":
        ps = plans(quiet.c)
        lb = loop_busy(quiet.c)
        pre, post = [], []
        for s, e, _ in ps:
            pre += [r[2] for r in lb if s - 0.015 <= r[1] <= s + 0.005]
            post += [r[2] for r in lb if e - 0.005 <= r[0] <= e + 0.015]
        span = quiet.c[-1][0] - quiet.c[0][0] if quiet.c else 0
        if ps:
            print("  plans made in %.1f s with no request: %d; planner CPU "
                  "per plan: %s" % (span, len(ps), stats([p[2] for p in ps])))
            print("    wall per plan: %s"
                  % stats([(p[1] - p[0]) * 1e3 for p in ps]))
        else:
            print("  no plan seen being made in %.1f s (planner thread "
                  "not found or idle)" % span)
        before = (max(pre) if pre else 0) / 1e3 + 0.005
        after = (max(post) if post else 0) / 1e3 + 0.005
        print("  loop busy before a plan (strict pass + snapshot): %s"
              % stats(pre))
        print("  loop busy after a plan (applying it): %s" % stats(post))
        if quiet.c:
            loop_ms = (quiet.c[-1][1] - quiet.c[0][1]) / 1e6
            print("  loop CPU with no request: %.0f ms in %.1f s (%.0f %%); "
                  "longest busy stretch %.1f ms"
                  % (loop_ms, span, loop_ms / span / 10 if span else 0,
                     max([(r[1] - r[0]) * 1e3 for r in lb] or [0])))
    elif quiet.c:
        span = quiet.c[-1][0] - quiet.c[0][0]
        loop_ms = (quiet.c[-1][1] - quiet.c[0][1]) / 1e6
        print("  loop CPU with no request: %.0f ms in %.1f s"
              % (loop_ms, span))

    # The requests.
    idle_rate = 0.0     # loop ms per s with no request
    if len(quiet.c) > 1 and quiet.c[-1][0] > quiet.c[0][0]:
        idle_rate = ((quiet.c[-1][1] - quiet.c[0][1]) / 1e6
                     / (quiet.c[-1][0] - quiet.c[0][0]))
    all_plans = []
    for name, pr, kind in runs:
        rows = pr.q if kind == "q" else pr.s
        lat = [r[1] for r in rows]
        extra = ""
        if kind == "q" and rows:
            extra = ", %d jobs each" % rows[0][2]
        print("  %s%s: %s" % (name, extra, stats(lat)))
        if pr.c and rows:
            # The loop's CPU time per request, less what it spent with
            # no request in as long (passes, pings).
            span = pr.c[-1][0] - pr.c[0][0]
            used = (pr.c[-1][1] - pr.c[0][1]) / 1e6 - idle_rate * span
            print("    controller loop CPU per request: %.1f ms"
                  % (used / len(rows)))
        if sched == "backfill":
            ps = plans(pr.c)
            all_plans += ps
            # The whole pass: the loop's strict pass and snapshot before
            # the plan, its applying after, as long as with no request.
            passes = [(s_ - before, e + after, 0) for s_, e, _ in ps]
            during = [r[1] for r in rows if overlaps(r[0], r[1], passes)]
            print("    during a pass: %s" % stats(during))
    for name, v in cli:
        print("  %s: %s" % (name, stats(v)))
    if sched == "backfill":
        passes = log_passes(log, w0 + mono_to_unix, w1 + mono_to_unix)
        gaps = [(b[0] - a_[0]) * 1e3 for a_, b in zip(passes, passes[1:])]
        print("  plans made while requests were made (planner thread): %d, "
              "CPU %s"
              % (len(all_plans), stats([p[2] for p in all_plans])))
        print("  passes logged by the ctld while measuring: %d; one to the "
              "next: %s" % (len(passes), stats(gaps)))
        if passes:
            print("    each: jobs tested %s, started %s, reserved %s"
                  % tuple(span_of([p[1][i] for p in passes])
                          for i in range(3)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--cli-calls", type=int, default=20)
    ap.add_argument("--submits", type=int, default=20)
    ap.add_argument("--bf-interval", type=int, default=1)
    ap.add_argument("--schedulers", default="backfill,builtin")
    a = ap.parse_args()
    build = os.path.abspath(a.build or arbor_cluster.build_dir())
    if not os.access(os.path.join(build, "bin", "arbor-bench-queue"), os.X_OK):
        sys.exit("no %s/bin/arbor-bench-queue: build it first" % build)
    t0 = time.monotonic()
    for sched in a.schedulers.split(","):
        run_case(a, build, sched)
    print("total %.0f s" % (time.monotonic() - t0))


if __name__ == "__main__":
    main()
