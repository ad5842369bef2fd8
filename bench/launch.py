#!/usr/bin/env python3
"""bench/launch.py - launch latency, throughput, CPU, munge calls and memory.

    python3 bench/launch.py [--build DIR] [--quick] [--sizes 1,4,16,64,256,1024]
                            [--widths 2,16,64] [--reps 5] [--timeout 60]

For each TreeWidth W it starts one emulated cluster (`arbor local -N MAX
--tree-width W`, MAX the largest size) and prints its start (registration)
time, then the wall time (median/min/max over --reps) of

    arbor run -N K -n K true        and     arbor run -N K -n 4K true

for each size K, first with a new allocation per run (JOB_ALLOC +
STEP_CREATE + launch + teardown), then as a step of an existing allocation
(`arbor alloc -N MAX --exclusive` holding the nodes, `arbor run --jobid J`). On the
cluster of TreeWidth 16 (else the first width) it also measures:

  * back-to-back `arbor run -N1 true` for about 3 s: runs per second;
  * CPU time of all processes per launched node (see cpu_per_node()), and
    beside it the least one node can cost on this machine
    (bench/arbor-bench-floor, see machine_floor());
  * VmRSS of the arbor-ctld, one arbor-noded and one arbor-stepd.

Then a separate cluster whose MungeSocket is a counting proxy in front of
the real munged counts munged calls per launch (see MungeProxy).

Commands run as the unprivileged user arbortest when we are root, as real
users would, through one small Python driver per measurement (runuser is
paid once, not per launch; the driver's own spawn cost, well under a
millisecond, is in the figures). A launch that fails or exceeds --timeout
prints "FAILED: reason" in its cell and the bench goes on; after a
timeout, the larger sizes of that row kind are skipped on that cluster.

Not part of ctest: timings depend on the machine. Run it with
`cmake --build build --target bench` or directly; --quick (3 reps,
TreeWidth 16, sizes up to 64) gives a table in about a minute.
"""

import argparse
import json
import os
import re
import selectors
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "lib"))

import arbor_cluster  # noqa: E402
from arbor_cluster import Cluster, proc_cmdlines  # noqa: E402

ALL_SIZES = (1, 4, 16, 64, 256, 1024)
ALL_WIDTHS = (2, 16, 64)
MUNGE_SIZES = (1, 16, 64, 256)
CPU_SIZE = 64          # the launch size whose CPU per node is measured
THROUGHPUT_SECONDS = 3.0
CLK_TCK = os.sysconf("SC_CLK_TCK")

# Runs as the test user: times commands, reports JSON on stdout. Argument:
# {"mode": "time", "cmds": [[argv, reps], ...], "timeout": s} -> one
# result per cmd: {"times": [...], "error": str|null}; or {"mode": "loop",
# "argv": [...], "seconds": s, "timeout": s} -> {"runs", "elapsed",
# "error"}. Both add "cpu": CPU seconds of the commands (RUSAGE_CHILDREN).
DRIVER = r'''
import json, os, resource, subprocess, sys, time
a = json.loads(sys.argv[1])
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def once(argv, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout after %gs" % timeout
    dt = time.monotonic() - t0
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        return None, "rc %d: %s" % (p.returncode, err[-1] if err else "")
    return dt, None
c0 = cpu()
if a["mode"] == "time":
    out = []
    for argv, reps in a["cmds"]:
        r = {"times": [], "error": None}
        for _ in range(reps):
            dt, err = once(argv, a["timeout"])
            if err:
                r["error"] = err
                break
            r["times"].append(dt)
        out.append(r)
    res = {"results": out}
else:
    n, err, t0 = 0, None, time.monotonic()
    while time.monotonic() - t0 < a["seconds"]:
        dt, err = once(a["argv"], a["timeout"])
        if err:
            break
        n += 1
    res = {"runs": n, "elapsed": time.monotonic() - t0, "error": err}
res["cpu"] = cpu() - c0
print(json.dumps(res))
'''


def say(msg):
    """Progress on stderr (the tables go to stdout)."""
    print("bench: %s" % msg, file=sys.stderr, flush=True)


def drive(c, req, timeout):
    """Run the driver as the cluster's user; its JSON answer or raise."""
    args = ["/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK)
            else sys.executable, "-c", DRIVER, json.dumps(req)]
    p = c.run(args, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("driver failed (rc %d): %s"
                           % (p.returncode, p.stderr.strip()[-300:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def time_cmds(c, cmds, timeout):
    """[(argv, reps)] -> [(times, error)], one driver for all of them."""
    req = {"mode": "time", "timeout": timeout,
           "cmds": [[[c.arbor] + list(argv[1:]), reps] for argv, reps in cmds]}
    budget = sum(reps for _, reps in cmds) * (timeout + 5) + 30
    res = drive(c, req, budget)
    return [(r["times"], r["error"]) for r in res["results"]], res["cpu"]


def run_argv(k, tasks, jobid=None):
    argv = ["arbor", "run"]
    if jobid:
        argv += ["--jobid", jobid]
    return argv + ["-N", str(k), "-n", str(tasks), "true"]


def fmt_cell(times, error, notes):
    """'median min max' in ms, or "FAILED [i]" with the reason appended
    to notes (printed under the table)."""
    if error:
        notes.append(" ".join(error.split()))
        return "  FAILED [%d]" % len(notes)
    if not times:
        return "-"
    return "%8.1f %7.1f %7.1f" % (statistics.median(times) * 1e3,
                                  min(times) * 1e3, max(times) * 1e3)


def start_allocation(c, nnodes, timeout):
    """arbor alloc -N nnodes --exclusive holding the nodes; (popen, job id) or raise."""
    p = c.popen(["arbor", "alloc", "-N", str(nnodes), "--exclusive", "--",
                 "sh", "-c",
                 'echo "JOBID=$SLURM_JOB_ID"; exec sleep 3600'],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    ready = sel.select(timeout)
    sel.close()
    line = p.stdout.readline().decode().strip() if ready else ""
    if not line.startswith("JOBID=") or not line[6:].isdigit():
        stop_allocation(p)
        err = p.stderr.read().decode(errors="replace").strip()
        raise RuntimeError("arbor alloc -N %d: %s" % (
            nnodes, err.splitlines()[-1] if err else
            "no job id within %ds" % timeout))
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


def latency_rows(c, sizes, reps, timeout, jobid=None):
    """{(k, tasks): (times, error)} for each size, tasks = K and 4K."""
    out = {}
    skip = None
    for k in sizes:
        for tasks in (k, 4 * k):
            if skip:
                out[(k, tasks)] = ([], "skipped (%s)" % skip)
                continue
            say("W=%s K=%d n=%d %s" % (c.tree_width, k, tasks,
                                       "in job %s" % jobid if jobid
                                       else "new allocation"))
            try:
                (r,), _ = time_cmds(c, [(run_argv(k, tasks, jobid), reps)],
                                    timeout)
            except Exception as e:  # the driver itself failed
                r = ([], str(e))
            out[(k, tasks)] = r
            if r[1] and r[1].startswith("timeout"):
                skip = "K=%d timed out" % k
    return out


# ---- the task's own start-up --------------------------------------------

def write_bare_program(path):
    """An x86-64 executable with no C library, whose code is exit(0): an
    ELF header, one loadable segment, mov $60,%eax; xor %edi,%edi; syscall
    (arbor-bench-floor execs the same one). A task that starts in
    microseconds, where /bin/true's C library spends most of a millisecond
    learning the CPU (CPUID instructions, each a trap in a VM)."""
    code = bytes([0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05])
    at, ehsize, phsize = 0x400000, 64, 56
    size = ehsize + phsize + len(code)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    eh = ident + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, at + ehsize + phsize,
                             ehsize, 0, 0, ehsize, phsize, 1, 0, 0, 0)
    ph = struct.pack("<IIQQQQQQ", 1, 5, 0, at, at, size, size, 0x1000)
    with open(path, "wb") as f:
        f.write(eh + ph + code)
    os.chmod(path, 0o755)


def task_startup(c, reps, timeout):
    """Median ms of `arbor run -N K PROG` for /bin/true and for a program
    without a C library, K = 1 and 4, rounds alternating: {(prog, k): ms}."""
    if os.uname().machine != "x86_64":
        return "not on x86-64"
    bare = os.path.join(c.scratch, "bare-exit")
    write_bare_program(bare)
    progs = (("true", "true"), ("bare", bare))
    cmds, keys = [], []
    for _ in range(3):
        for name, prog in progs:
            for k in (1, 4):
                cmds.append((["arbor", "run", "-N", str(k), prog],
                             max(reps // 3, 1)))
                keys.append((name, k))
    res, _ = time_cmds(c, cmds, timeout)
    times = {}
    for key, (t, err) in zip(keys, res):
        if err:
            return err
        times.setdefault(key, []).extend(t)
    return {key: statistics.median(t) * 1e3 for key, t in times.items()}


# ---- CPU per launched node ------------------------------------------------

def cluster_pids(c):
    """{"ctld": pid, "noded": [pids], "spawner": [pids], "munged": pid|None,
    "local": pid}."""
    pids = {"ctld": None, "noded": [], "spawner": [], "munged": None,
            "local": c.proc.pid}
    mdir = os.path.join(c.dir, "munge")
    for pid, argv in proc_cmdlines().items():
        prog = os.path.basename(argv[0])
        if prog == "arbor-ctld" and c.conf in argv:
            pids["ctld"] = pid
        elif prog == "arbor-noded" and c.conf in argv:
            pids["noded"].append(pid)
        elif prog == "arbor-stepd" and c.conf in argv \
                and "--spawner" in argv:
            pids["spawner"].append(pid)
        elif prog == "munged" and any(mdir in a for a in argv):
            pids["munged"] = pid
    return pids


def proc_cpu(pid, children=True):
    """utime+stime (+cutime+cstime: reaped children) of pid, seconds."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
    except OSError:
        return 0.0
    f = st[st.rindex(")") + 2:].split()
    ticks = int(f[11]) + int(f[12])
    if children:
        ticks += int(f[13]) + int(f[14])
    return ticks / CLK_TCK


def cpu_snapshot(pids):
    return {
        "arbor-ctld": proc_cpu(pids["ctld"]) if pids["ctld"] else 0.0,
        "arbor-noded": sum(proc_cpu(p) for p in pids["noded"]),
        "stepd spawners (+stepds, tasks)":
            sum(proc_cpu(p) for p in pids["spawner"]),
        "munged": proc_cpu(pids["munged"]) if pids["munged"] else 0.0,
        "arbor local (+orphans reaped)": proc_cpu(pids["local"]),
    }


def cpu_per_node(c, k, reps, timeout):
    """CPU of every process, per launched node, over 'reps' launches of
    `arbor run -N k -n k true` (new allocations). Sums, before and after,
    utime+stime+cutime+cstime from /proc/PID/stat of the ctld, every noded,
    every noded's stepd spawner (cutime/cstime: the stepds and tasks they
    reaped; a noded reaps the stepds it execs itself), munged and arbor
    local (the subreaper of orphans), plus the arbor run processes'
    RUSAGE_CHILDREN in the driver; divides by k*reps. Clock-tick (1/CLK_TCK
    s) resolution per process. Returns ({part: seconds}, error)."""
    pids = cluster_pids(c)
    before = cpu_snapshot(pids)
    try:
        ((times, err),), run_cpu = time_cmds(
            c, [(run_argv(k, k), reps)], timeout)
    except Exception as e:
        return None, str(e)
    if err:
        return None, err
    time.sleep(1.0)  # let nodeds reap their stepds
    after = cpu_snapshot(pids)
    parts = {name: after[name] - before[name] for name in before}
    parts["arbor run (as the user)"] = run_cpu
    return parts, None


def machine_floor(build):
    """bench/arbor-bench-floor's lines ({part: ms}), or an error string: the
    least one launched node can cost on this machine (a forked step
    process, its job and step cgroups, one exec of /bin/true), measured
    right after cpu_per_node so that both see the host alike."""
    prog = os.path.join(build, "bin", "arbor-bench-floor")
    if not os.access(prog, os.X_OK):
        return "no %s (build it: make arbor-bench-floor)" % prog
    p = subprocess.run([prog, "300"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    parts = {}
    for line in p.stdout.decode(errors="replace").splitlines():
        m = re.match(r"(.+?)\s+([0-9.]+) ms$", line)
        if m:
            parts[m.group(1)] = float(m.group(2))
    if "fork+cgroups+task" not in parts:
        return "arbor-bench-floor: %s" % p.stdout.decode(errors="replace")
    return parts


# ---- munged calls ---------------------------------------------------------

class MungeProxy:
    """A unix socket in front of munged that counts accepted connections:
    libmunge opens one connection per munge_encode/munge_decode, so the
    count is the number of munged calls. One thread, a selector loop
    relaying both ways."""

    def __init__(self, path, upstream):
        self.path, self.upstream = path, upstream
        self.count = 0
        self.failed = 0
        self.lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.lsock.bind(path)
        os.chmod(path, 0o777)
        self.lsock.listen(4096)
        self.sel = selectors.DefaultSelector()
        self.stop_r, self.stop_w = os.pipe()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _close(self, pair):
        for s in pair["socks"]:
            try:
                self.sel.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()

    def _accept(self):
        try:
            cs, _ = self.lsock.accept()
        except OSError:
            return
        self.count += 1
        us = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            us.connect(self.upstream)
        except OSError:
            self.failed += 1
            cs.close()
            us.close()
            return
        pair = {"socks": (cs, us), "eof": 0}
        self.sel.register(cs, selectors.EVENT_READ, (pair, us))
        self.sel.register(us, selectors.EVENT_READ, (pair, cs))

    def _relay(self, src, pair, dst):
        try:
            data = src.recv(65536)
        except OSError:
            data = b""
        if data:
            try:
                dst.sendall(data)
                return
            except OSError:
                pass
        # EOF (or an error): pass the half-close on; close when both done.
        self.sel.unregister(src)
        pair["eof"] += 1
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pair["eof"] = 2
        if pair["eof"] >= 2:
            self._close(pair)

    def _loop(self):
        self.sel.register(self.lsock, selectors.EVENT_READ, None)
        self.sel.register(self.stop_r, selectors.EVENT_READ, "stop")
        while True:
            for key, _ in self.sel.select():
                if key.data == "stop":
                    return
                if key.data is None:
                    self._accept()
                else:
                    pair, dst = key.data
                    if key.fileobj in pair["socks"]:
                        try:
                            self._relay(key.fileobj, pair, dst)
                        except (KeyError, ValueError):
                            pass

    def close(self):
        os.write(self.stop_w, b"x")
        self.thread.join(timeout=5)
        self.lsock.close()
        os.close(self.stop_r)
        os.close(self.stop_w)


def munge_calls(build, sizes, reps, timeout):
    """[(k, calls per launch, calls per node, idle calls/s)] or raise."""
    nodes = max(sizes)
    tmp = tempfile.mkdtemp(prefix="arbor-bench-munge-")
    os.chmod(tmp, 0o755)
    cdir = os.path.join(tmp, "cluster")
    os.mkdir(cdir)
    proxy = MungeProxy(os.path.join(tmp, "proxy.sock"),
                       os.path.join(cdir, "munge", "munge.sock"))
    c = None
    try:
        say("munge: starting %d nodes behind the counting proxy" % nodes)
        c = Cluster(nodes, build=build, ready_timeout=120, dir=cdir,
                    settings={"MungeSocket": proxy.path})
        c.tree_width = 16
        time.sleep(1.0)
        n0, t0 = proxy.count, time.monotonic()
        time.sleep(2.0)
        idle = (proxy.count - n0) / (time.monotonic() - t0)
        rows = []
        for k in sizes:
            say("munge: K=%d" % k)
            # The first launch at K opens the kept connections (a munge
            # encode and decode each); the steady state is counted after.
            n0, t0 = proxy.count, time.monotonic()
            ((times, err),), _ = time_cmds(c, [(run_argv(k, k), 1)], timeout)
            cold = proxy.count - n0 - idle * (time.monotonic() - t0)
            n0, t0 = proxy.count, time.monotonic()
            if not err:
                ((times, err),), _ = time_cmds(c, [(run_argv(k, k), reps)],
                                               timeout)
            calls = proxy.count - n0 - idle * (time.monotonic() - t0)
            if err:
                rows.append((k, None, None, None, err))
            else:
                rows.append((k, cold, calls / reps, calls / reps / k, None))
        return rows, idle, proxy.failed, c.ready_seconds
    finally:
        if c:
            left = c.stop()
            if left:
                say("processes left behind: %s" % left)
        proxy.close()
        shutil.rmtree(tmp, ignore_errors=True)


# ---- memory ---------------------------------------------------------------

def vmrss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
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
                if os.path.basename(argv[0]) == "arbor-stepd" \
                        and c.conf in argv and "--spawner" not in argv:
                    time.sleep(0.5)  # let it reach its steady state
                    rss = vmrss_kb(pid)
                    break
            time.sleep(0.05)
    finally:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return rss


# ---- one cluster per TreeWidth ---------------------------------------------

def bench_width(build, w, sizes, reps, timeout, extras):
    """Everything measured on the cluster of TreeWidth w: a dict."""
    nodes = max(sizes)
    r = {"width": w, "nodes": nodes}
    say("W=%d: starting %d nodes" % (w, nodes))
    t0 = time.monotonic()
    try:
        c = Cluster(nodes, tree_width=w, build=build,
                    ready_timeout=max(120, nodes // 4))
    except Exception as e:
        r["error"] = str(e).strip().splitlines()[0]
        return r
    c.tree_width = w
    r["start"] = time.monotonic() - t0
    r["registration"] = c.ready_seconds
    try:
        r["new"] = latency_rows(c, sizes, reps, timeout)
        try:
            alloc, jobid = start_allocation(c, nodes, timeout)
        except Exception as e:
            r["alloc_error"] = str(e)
        else:
            try:
                r["in"] = latency_rows(c, sizes, reps, timeout, jobid)
            finally:
                stop_allocation(alloc)
        if extras:
            say("W=%d: back-to-back arbor run -N1 true" % w)
            try:
                r["loop"] = drive(c, {"mode": "loop",
                                      "argv": [c.arbor] + run_argv(1, 1)[1:],
                                      "seconds": THROUGHPUT_SECONDS,
                                      "timeout": timeout}, timeout + 30)
            except Exception as e:
                r["loop"] = {"error": str(e)}
            say("W=%d: the task's own start-up" % w)
            try:
                r["startup"] = task_startup(c, reps, timeout)
            except Exception as e:
                r["startup"] = str(e)
            k = max([s for s in sizes if s <= CPU_SIZE] or [min(sizes)])
            say("W=%d: CPU per node at K=%d" % (w, k))
            r["cpu_k"] = k
            r["cpu_runs"] = max(reps, 5)
            r["cpu"] = cpu_per_node(c, k, max(reps, 5), timeout)
            r["floor"] = machine_floor(build)
            pids = cluster_pids(c)
            r["rss"] = (vmrss_kb(pids["ctld"]) if pids["ctld"] else 0,
                        vmrss_kb(min(pids["noded"])) if pids["noded"] else 0,
                        stepd_rss(c))
    finally:
        left = c.stop()
        c.remove()
        if left:
            r["left"] = left
    return r


def print_width(r, sizes, reps):
    w, nodes = r["width"], r["nodes"]
    print()
    print("== TreeWidth %d, %d nodes ==" % (w, nodes))
    if "error" in r:
        print("cluster start FAILED: %s" % r["error"])
        return
    reg = r.get("registration")
    print("cluster start: %.2f s (arbor local until ready; registration of "
          "all nodes: %s)" % (r["start"], "%.2f s" % reg if reg is not None
                              else "?"))
    print("launch latency, ms (median min max over %d runs): "
          "arbor run -N K -n T true" % reps)
    print("%6s %6s  %-25s  %s" % ("K", "T", "new allocation per run",
                                  "step in the allocation"))
    print("%6s %6s  %-25s  %s" % ("", "", "  median     min     max",
                                  "  median     min     max"))
    notes = []
    for k in sizes:
        for tasks in (k, 4 * k):
            new = fmt_cell(*r["new"][(k, tasks)], notes)
            if "in" in r:
                inside = fmt_cell(*r["in"][(k, tasks)], notes)
            else:
                inside = fmt_cell([], r.get("alloc_error", "no allocation"),
                                  notes)
            print("%6d %6d  %-25s  %s" % (k, tasks, new, inside))
    for i, note in enumerate(notes, 1):
        print("  [%d] %s" % (i, note))
    if "left" in r:
        print("processes left behind: %s" % r["left"])


def print_extras(r):
    print()
    print("== on the TreeWidth %d cluster (%d nodes) ==" % (r["width"],
                                                           r["nodes"]))
    loop = r.get("loop", {})
    if loop.get("error"):
        print("back-to-back arbor run -N1 true: FAILED: %s (after %s runs)"
              % (loop["error"], loop.get("runs", 0)))
    elif loop:
        print("back-to-back arbor run -N1 true: %d runs in %.2f s = %.0f "
              "runs/s (target >= 200/s); arbor run CPU %.1f ms/run"
              % (loop["runs"], loop["elapsed"], loop["runs"] / loop["elapsed"],
                 loop["cpu"] * 1e3 / max(loop["runs"], 1)))
    print_startup(r.get("startup"))
    parts, err = r.get("cpu", (None, "not measured"))
    k = r.get("cpu_k", 0)
    print()
    print("CPU time of all processes per launched node, arbor run -N %d -n %d "
          "true, new allocations:" % (k, k))
    print("  (user+system CPU consumed during the launches: /proc/PID/stat "
          "utime+stime+cutime+cstime")
    print("   of the ctld, every noded and its stepd spawner (with the stepds "
          "and tasks they reaped),")
    print("   munged and arbor local,", end="")
    print(" plus RUSAGE_CHILDREN of the arbor run processes; divided by "
          "K x runs; 1/%d s ticks)" % CLK_TCK)
    if err:
        print("  FAILED: %s" % err)
    else:
        nlaunch = k * r["cpu_runs"]
        total = sum(parts.values())
        for name, v in parts.items():
            print("  %-32s %8.2f ms/node" % (name, v * 1e3 / nlaunch))
        print("  %-32s %8.2f ms/node (target <= 2)" % ("total",
                                                       total * 1e3 / nlaunch))
        print_floor(r.get("floor"), total * 1e3 / nlaunch)
    ctld, noded, stepd = r.get("rss", (0, 0, 0))
    print()
    print("resident memory (VmRSS), %d-node cluster (targets at 64 nodes: "
          "15, 4, 2 MiB):" % r["nodes"])
    print("  arbor-ctld            %7.1f MiB" % (ctld / 1024))
    print("  arbor-noded (node1)   %7.1f MiB" % (noded / 1024))
    print("  arbor-stepd (1 task)  %7.1f MiB" % (stepd / 1024))


def print_startup(st):
    """-N1 and -N4 with /bin/true against a task without a C library."""
    if st is None:
        return
    print()
    print("the task's own start-up: arbor run -N K PROG, median ms, rounds "
          "alternating:")
    if not isinstance(st, dict):
        print("  not measured: %s" % st)
        return
    for k in (1, 4):
        t, b = st[("true", k)], st[("bare", k)]
        print("  K=%d  /bin/true %6.2f   a program without a C library %6.2f"
              "   (difference %.2f)" % (k, t, b, t - b))


def print_floor(floor, total_ms):
    """The machine's floor per node beside the measured total."""
    if not isinstance(floor, dict):
        print("  the least a node can cost here: not measured (%s)" % floor)
        return
    least = floor["fork+cgroups+task"]
    print("  the least a node can cost here  %8.2f ms/node (arbor-bench-floor:"
          " a forked step process," % least)
    print("    its job and step cgroups, one exec of /bin/true, no messages;"
          " fork+exit %.2f, the exec %.2f)"
          % (floor.get("fork+exit", 0), floor.get("task (exec /bin/true)", 0)))
    if "task without libc" in floor:
        print("    of that exec, %.2f ms is the C library's start-up (an exec of"
              " a program without one: %.2f ms);"
              % (floor.get("task (exec /bin/true)", 0)
                 - floor["task without libc"], floor["task without libc"]))
    if "cpuid" in floor:
        print("    one CPUID instruction costs %.1f us here (glibc's start-up"
              " runs dozens; in a VM each traps)" % (floor["cpuid"] * 1e3))
    print("  Arbor above that floor          %8.2f ms/node" % (total_ms - least))


def parse_list(s):
    return sorted({int(x) for x in s.split(",") if x.strip()})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=arbor_cluster.build_dir())
    ap.add_argument("--quick", action="store_true",
                    help="3 reps, TreeWidth 16, sizes up to 64")
    ap.add_argument("--sizes", type=parse_list,
                    help="node counts K (default %s)"
                    % ",".join(map(str, ALL_SIZES)))
    ap.add_argument("--widths", type=parse_list,
                    help="TreeWidths (default %s)"
                    % ",".join(map(str, ALL_WIDTHS)))
    ap.add_argument("--reps", type=int, help="runs per cell (default 5)")
    ap.add_argument("--timeout", type=float, default=60,
                    help="seconds per arbor run (default 60)")
    ap.add_argument("--no-munge", action="store_true",
                    help="skip the munged call count")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    missing = arbor_cluster.missing_programs(build)
    if missing:
        raise SystemExit("bench: not built in %s: %s" % (build, missing))
    sizes = args.sizes or [k for k in ALL_SIZES
                           if not args.quick or k <= 64]
    widths = args.widths or ([16] if args.quick else list(ALL_WIDTHS))
    reps = args.reps or (3 if args.quick else 5)
    if min(sizes) < 1 or min(widths) < 1 or reps < 1:
        raise SystemExit("bench: sizes, widths and reps must be positive")
    extras_w = 16 if 16 in widths else widths[0]

    print("arbor launch benchmark: sizes %s, TreeWidths %s, %d runs per "
          "cell, timeout %gs, build %s"
          % (",".join(map(str, sizes)), ",".join(map(str, widths)), reps,
             args.timeout, build))
    print("(wall time of each arbor run, run as %s by a driver process; "
          "one cluster of %d nodes per TreeWidth)"
          % (arbor_cluster.TEST_USER if arbor_cluster.is_root()
             else "this user", max(sizes)))
    sys.stdout.flush()
    left = False
    for w in widths:
        r = bench_width(build, w, sizes, reps, args.timeout, w == extras_w)
        print_width(r, sizes, reps)
        if w == extras_w and "error" not in r:
            print_extras(r)
        left = left or "left" in r
        sys.stdout.flush()

    if not args.no_munge:
        msizes = [k for k in MUNGE_SIZES if k <= max(sizes)]
        print()
        print("== munged calls per launch: arbor run -N K -n K true, new "
              "allocations, TreeWidth 16 ==")
        print("(connections accepted by a counting proxy set as MungeSocket; "
              "libmunge makes one per encode/decode;")
        print(" the idle rate, e.g. pings, is subtracted; target: at most one "
              "per node plus a constant)")
        try:
            rows, idle, failed, reg = munge_calls(build, msizes, reps,
                                                  args.timeout)
        except Exception as e:
            print("FAILED: %s" % str(e).strip().splitlines()[0])
        else:
            print("cluster of %d nodes registered in %s; idle: %.1f calls/s"
                  "%s" % (max(msizes), "%.2f s" % reg if reg is not None
                          else "?", idle,
                          "; %d proxied connects failed" % failed
                          if failed else ""))
            print("%6s  %14s  %14s  %14s" % ("K", "first launch",
                                              "calls/launch", "calls/node"))
            print("%6s  %14s  %14s" % ("", "(dials peers)", "(then, mean)"))
            for k, cold, per_launch, per_node, err in rows:
                if err:
                    print("%6d  FAILED: %s" % (k, " ".join(err.split())))
                else:
                    print("%6d  %14.1f  %14.1f  %14.2f"
                          % (k, cold, per_launch, per_node))
        sys.stdout.flush()
    if left:
        print("bench: processes were left behind (see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
