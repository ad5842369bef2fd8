#!/usr/bin/env python3
"""bench/mpi.py - what MPI support costs, and how fast MPI programs start.

    python3 bench/mpi.py [--build DIR] [--reps 30] [--hello 50]
                         [--sizes 1,4,16,64] [--quick]

On one emulated cluster of max(--sizes) nodes (4 at least) it prints:

  * PMIx cost: `arbor run -N4 -n8 true` with --mpi=pmix and --mpi=none,
    alternated round by round, --reps rounds: medians and the difference
    (the issue's target: 5 ms at most);
  * Open MPI hello world (MPI_Init, rank and size, MPI_Finalize) at
    -N4 -n8 with --mpi=pmix, --hello runs: how many succeeded, median,
    min and max (target: every run, and half of Slurm 22.05's 696 ms);
  * wire-up: from just before `arbor run` starts to the end of the first
    MPI_Barrier (rank 0 prints it), at one task per node for each size.

The programs are test/integration/mpi/mpi_check.c compiled with Open MPI's
mpicc. Commands run as the unprivileged user arbortest when we are root,
through one Python driver per measurement. Ranks of the emulated nodes
share this host, so Open MPI's TCP transport is kept on loopback, as in
the tests. Not part of ctest: timings depend on the machine.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "lib"))

import arbor_cluster  # noqa: E402
from arbor_cluster import Cluster  # noqa: E402

MPI_ENV = {"OMPI_MCA_btl_tcp_if_include": "lo"}

# Runs as the test user. Argument: {"rounds": n, "cmds": [argv, ...],
# "timeout": s, "stamp": bool}: each round runs every cmd once, in order.
# With "stamp", PMI_START (seconds since the epoch) is set just before each
# run and the last line of stdout (rank 0's wire-up seconds) is kept.
DRIVER = r'''
import json, os, subprocess, sys, time
a = json.loads(sys.argv[1])
res = [{"times": [], "fails": 0, "last_error": None, "out": []}
       for _ in a["cmds"]]
for _ in range(a["rounds"]):
    for argv, r in zip(a["cmds"], res):
        env = dict(os.environ)
        env["PMI_START"] = "%.6f" % time.time()
        t0 = time.monotonic()
        try:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=a["timeout"])
        except subprocess.TimeoutExpired:
            r["fails"] += 1
            r["last_error"] = "timeout"
            continue
        dt = time.monotonic() - t0
        if p.returncode != 0:
            r["fails"] += 1
            err = p.stderr.decode(errors="replace").strip().splitlines()
            r["last_error"] = "rc %d: %s" % (p.returncode,
                                             err[-1] if err else "")
            continue
        r["times"].append(dt)
        if a.get("stamp"):
            lines = p.stdout.decode().split()
            if lines:
                r["out"].append(float(lines[-1]))
print(json.dumps(res))
'''


def say(msg):
    print("bench: %s" % msg, file=sys.stderr, flush=True)


def drive(c, cmds, rounds, timeout, stamp=False):
    req = {"rounds": rounds, "timeout": timeout, "stamp": stamp,
           "cmds": [[c.arbor] + list(argv[1:]) for argv in cmds]}
    p = c.run(["/usr/bin/python3", "-c", DRIVER, json.dumps(req)],
              env=MPI_ENV, timeout=rounds * len(cmds) * (timeout + 5) + 60)
    if p.returncode != 0:
        raise RuntimeError("driver failed: %s" % p.stderr.strip()[-300:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def ms(v):
    return "%7.1f" % (v * 1e3)


def stats(times):
    if not times:
        return "      -       -       -"
    return "%s %s %s" % (ms(statistics.median(times)), ms(min(times)),
                         ms(max(times)))


def compile_check(d):
    mpicc = shutil.which("mpicc.openmpi") or shutil.which("mpicc")
    if not mpicc:
        sys.exit("bench: Open MPI's mpicc is missing (scripts/setup.sh)")
    out = os.path.join(d, "mpi_check")
    subprocess.run([mpicc, "-O2", "-o", out, os.path.join(
        HERE, "..", "test", "integration", "mpi", "mpi_check.c")], check=True)
    os.chmod(out, 0o755)
    return out


def pmix_cost(c, reps):
    base = ["arbor", "run", "-N", "4", "-n", "8"]
    res = drive(c, [base[:2] + ["--mpi=pmix"] + base[2:] + ["true"],
                    base[:2] + ["--mpi=none"] + base[2:] + ["true"]],
                reps, 60)
    print("\nPMIx cost, -N4 -n8 true, %d alternating rounds (ms: median "
          "min max)" % reps)
    for name, r in zip(("--mpi=pmix", "--mpi=none"), res):
        print("  %-11s %s%s" % (name, stats(r["times"]),
                                "  (%d failed: %s)" % (r["fails"],
                                                       r["last_error"])
                                if r["fails"] else ""))
    if res[0]["times"] and res[1]["times"]:
        d = statistics.median(res[0]["times"]) - statistics.median(
            res[1]["times"])
        print("  difference  %s ms (target <= 5 ms)" % ms(d).strip())


def hello(c, prog, runs):
    res = drive(c, [["arbor", "run", "--mpi=pmix", "-N", "4", "-n", "8",
                     prog, "all"]], runs, 120)[0]
    print("\nOpen MPI hello world, -N4 -n8 --mpi=pmix, %d runs" % runs)
    print("  succeeded   %d of %d%s" % (len(res["times"]), runs,
                                        "  (last failure: %s)"
                                        % res["last_error"]
                                        if res["fails"] else ""))
    print("  ms          %s   (median min max; target <= 348 ms, half of "
          "Slurm's 696)" % stats(res["times"]))


def wireup(c, prog, sizes, reps):
    print("\nWire-up, start of arbor run to the end of the first "
          "MPI_Barrier, one task per node (ms: median min max; whole run)")
    for k in sizes:
        res = drive(c, [["arbor", "run", "--mpi=pmix", "-N", str(k), "-n",
                         str(k), prog, "wireup"]], reps, 120, stamp=True)[0]
        print("  %4d nodes  %s   run %s%s" % (
            k, stats(res["out"]), stats(res["times"]),
            "  (%d failed: %s)" % (res["fails"], res["last_error"])
            if res["fails"] else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--hello", type=int, default=50)
    ap.add_argument("--sizes", default="1,4,16,64")
    ap.add_argument("--quick", action="store_true",
                    help="10 rounds, 10 hellos, sizes up to 16")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.quick:
        a.reps, a.hello, sizes = 10, 10, [s for s in sizes if s <= 16]
    build = os.path.abspath(a.build) if a.build else arbor_cluster.build_dir()
    d = tempfile.mkdtemp(prefix="arbor-bench-mpi-")
    os.chmod(d, 0o755)
    prog = compile_check(d)
    n = max(sizes + [4])
    say("starting a %d-node cluster" % n)
    c = Cluster(n, build=build)
    try:
        pmix_cost(c, a.reps)
        hello(c, prog, a.hello)
        wireup(c, prog, sizes, max(3, a.reps // 3))
    finally:
        c.stop()
        c.remove()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
