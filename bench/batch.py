#!/usr/bin/env python3
"""bench/batch.py - how fast batch jobs go through the controller.

    python3 bench/batch.py [--build DIR] [--nodes 16] [--jobs 1000]
                           [--submitters 4] [--reps 20] [--quick]

On one emulated cluster (--nodes nodes of 4 CPUs) it prints:

  * throughput: --jobs `arbor batch --wrap=true` jobs, submitted by
    --submitters concurrent submitters (each its own sbatch processes,
    one after the other), from the first submission to the moment every
    job is COMPLETED and done completing: jobs per second (the issue's
    target: 1,000 jobs/s; real Slurm 22.05 here: 46-56 jobs/s);
  * the same jobs as one array (`arbor batch --array=0-999 --wrap=true`):
    one submission, so the rate is the controller's, the nodes' and the
    scripts' alone;
  * latency: one `arbor batch --wait --wrap=true` on the idle cluster,
    from submission to the job being gone (ended, epilog done), --reps
    times: median, min and max (target: 30 ms; Slurm: about 3 s);
  * the floor: the process starts that --jobs separate submissions cannot
    avoid, alone, by the same submitters: per job one `arbor --version`
    (the cheapest arbor process, less than any `arbor batch`) and one
    `/bin/sh -c true` (what runs a --wrap script). No batch system can go
    through jobs faster than this on the machine, daemons or not.

Each submitter is a shell loop (as users' scripts submit), not a Python
subprocess per job, whose fork of the interpreter would cost more than
the job.

Commands run as the unprivileged user arbortest when we are root. Not
part of ctest: timings depend on the machine.
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

# Runs as the test user. {"arbor": path, "jobs": n, "submitters": k,
# "reps": r}: prints {"throughput": [t_submit, t_done, ids],
# "latency": [s, ...]}.
DRIVER = r'''
import json, subprocess, sys, time, threading
a = json.loads(sys.argv[1])
arbor = a["arbor"]
ids, lock = [], threading.Lock()

# A submitter is a shell loop, as users' scripts submit: a Python
# subprocess per job would cost more than the job (its fork of this
# interpreter), and measure the driver.
def sh_loop(n, body):
    return subprocess.run(["/bin/sh", "-c",
                           'i=0; while [ $i -lt %d ]; do %s || exit 1; '
                           'i=$((i+1)); done' % (n, body)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL)

def submit(n):
    p = sh_loop(n, '"$0" batch --parsable -o /dev/null --wrap=true'
                .replace('"$0"', arbor))
    if p.returncode != 0:
        sys.exit("submission failed: " + p.stderr.decode())
    with lock:
        ids.extend(int(x) for x in p.stdout.split())

def queue():
    p = subprocess.run([arbor, "queue", "-h", "-t", "all", "-o", "%i %T"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        p = subprocess.run([arbor, "queue", "-h", "-t", "all", "-l"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return {int(l.split()[0]): l.split()[4]
                for l in p.stdout.decode().splitlines() if l.strip()}
    return {int(l.split()[0]): l.split()[1]
            for l in p.stdout.decode().splitlines() if l.strip()}

def floor_rate(n, k):
    def starts(m):
        sh_loop(m, "%s --version >/dev/null && /bin/sh -c true" % arbor)
    t0 = time.monotonic()
    th = [threading.Thread(target=starts, args=(n // k + (i < n % k),))
          for i in range(k)]
    for t in th: t.start()
    for t in th: t.join()
    return time.monotonic() - t0

def array_rate(n):
    t0 = time.monotonic()
    p = subprocess.run([arbor, "batch", "--parsable", "-o", "/dev/null",
                        "--array=0-%d" % (n - 1), "--wrap=true"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("array submission failed: " + p.stderr.decode())
    jid = p.stdout.decode().strip()
    while True:
        q = subprocess.run([arbor, "queue", "-h", "-t", "all", "-j", jid],
                           stdout=subprocess.PIPE).stdout.decode()
        if q.count(" CD ") == n:
            return time.monotonic() - t0
        time.sleep(0.01)

res = {}
if a["jobs"]:
    k = a["submitters"]
    t0 = time.monotonic()
    th = [threading.Thread(target=submit, args=(a["jobs"] // k +
                                                (i < a["jobs"] % k),))
          for i in range(k)]
    for t in th: t.start()
    for t in th: t.join()
    t_sub = time.monotonic() - t0
    want = set(ids)
    while True:
        q = queue()
        if all(q.get(i) == "COMPLETED" for i in want):
            break
        time.sleep(0.01)
    res["throughput"] = [t_sub, time.monotonic() - t0, len(ids)]
    res["array"] = [array_rate(min(a["jobs"], 1000)), min(a["jobs"], 1000)]
    res["floor"] = [floor_rate(a["jobs"], k), a["jobs"]]
lat = []
for _ in range(a["reps"]):
    t0 = time.monotonic()
    p = subprocess.run([arbor, "batch", "--wait", "-Q", "-o", "/dev/null",
                        "--wrap=true"], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("batch --wait failed: " + p.stderr.decode())
    lat.append(time.monotonic() - t0)
res["latency"] = lat
print(json.dumps(res))
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--nodes", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--submitters", type=int, default=4)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--quick", action="store_true",
                    help="200 jobs, 5 latency runs")
    a = ap.parse_args()
    if a.quick:
        a.jobs, a.reps = 200, 5
    build = os.path.abspath(a.build or arbor_cluster.build_dir())
    c = Cluster(a.nodes, build=build, cpus=4,
                settings={"MaxJobCount": max(10000, 2 * a.jobs)})
    try:
        arg = {"arbor": c.arbor, "jobs": a.jobs, "submitters": a.submitters,
               "reps": a.reps}
        p = subprocess.run(c.command(["python3", "-c", DRIVER,
                                      json.dumps(arg)]),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=c.scratch, timeout=3600)
        if p.returncode != 0:
            sys.exit("driver failed: %s\n%s" % (p.stderr.decode(),
                                                 c.all_logs()))
        res = json.loads(p.stdout)
    finally:
        c.stop()
        c.remove()
    print("batch benchmark: %d nodes x 4 CPUs" % a.nodes)
    if "throughput" in res:
        t_sub, t_all, n = res["throughput"]
        print("  throughput: %d jobs (%d submitters): submitted in %.2f s, "
              "all complete in %.2f s: %.0f jobs/s (target 1000)"
              % (n, a.submitters, t_sub, t_all, n / t_all))
    if "array" in res:
        t, n = res["array"]
        print("  as one array of %d: all complete in %.2f s: %.0f jobs/s"
              % (n, t, n / t))
    if "floor" in res:
        t, n = res["floor"]
        print("  floor: %d x (arbor --version + /bin/sh -c true) alone, %d "
              "submitters: %.2f s: %.0f jobs/s at most on this machine"
              % (n, a.submitters, t, n / t))
    lat = [x * 1000 for x in res["latency"]]
    if lat:
        print("  latency: one job, submit to gone: median %.1f ms, min %.1f, "
              "max %.1f over %d runs (target 30 ms)"
              % (statistics.median(lat), min(lat), max(lat), len(lat)))


if __name__ == "__main__":
    main()
