#!/usr/bin/env python3
"""compat.py - the commands of one build against the daemons of another.

Within a protocol major version, a newer command must work against an
older controller and the reverse (docs/admin.md, upgrading). This starts
an emulated cluster from the daemons of --daemons BUILD and runs the
Slurm commands users type most from --commands BUILD against it, as the
unprivileged test user, then prints one line per command: OK, or what
went wrong. Run it both ways before a release:

    python3 bench/compat.py --daemons /tmp/old/build --commands build
    python3 bench/compat.py --daemons build --commands /tmp/old/build

It exits 1 when a command failed. It needs root (to run as the test
user), like the integration tests; it is not one of them, since it needs
a build of an older release.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test",
                                "lib"))
import arbor_cluster  # noqa: E402


def tool(build, name):
    return os.path.join(os.path.abspath(build), "bin", name)


class Check:
    def __init__(self, cluster, commands):
        self.c = cluster
        self.commands = commands
        self.failed = 0

    def run(self, name, args, want=None):
        """Run the --commands build's 'name' with args; 'want' checks its
        stdout (a function returning a complaint or None)."""
        p = self.c.run([tool(self.commands, name)] + args)
        why = None
        if p.returncode != 0:
            why = "exit %d: %s" % (p.returncode, p.stderr.strip()[:200])
        elif want:
            why = want(p.stdout)
        print("%-44s %s" % (" ".join([name] + args)[:44], why or "OK"))
        self.failed += why is not None
        return p.stdout


def contains(text):
    return lambda out: None if text in out else "no %r in %r" % (text, out[:200])


def json_job(key, value):
    def check(out):
        try:
            jobs = json.loads(out)["jobs"]
        except (ValueError, KeyError) as e:
            return "bad JSON: %s" % e
        got = [j.get(key) for j in jobs]
        return None if value in got else "%s: %r" % (key, got)
    return check


def matrix(k):
    out = k.run("sbatch", ["--parsable", "-H", "-o", "/dev/null",
                           "--comment=compat", "--wrap", "true"])
    jid = out.strip()
    k.run("squeue", [], contains(jid))
    k.run("squeue", ["-h", "-o", "%i|%j|%T|%u"], contains(jid + "|wrap|PENDING"))
    k.run("squeue", ["--json"], json_job("job_id", int(jid or 0)))
    k.run("scontrol", ["show", "job", jid], contains("JobId=" + jid))
    k.run("arbor", ["control", "--json", "show", "job", jid],
          json_job("job_id", int(jid or 0)))
    k.run("scontrol", ["release", jid])
    k.run("srun", ["-N2", "-l", "true"])
    k.run("srun", ["-N2", "-n2", "-l", "printenv", "SLURM_PROCID"],
          contains("1: 1"))
    k.run("sinfo", [], contains("debug"))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        p = k.c.run([tool(k.commands, "sacct"), "-j", jid, "-X", "-P", "-n",
                     "-o", "JobID,State"])
        if "COMPLETED" in p.stdout:
            break
        time.sleep(0.5)
    k.run("sacct", ["-j", jid, "-X", "-P", "-n", "-o", "JobID,State"],
          contains(jid + "|COMPLETED"))
    k.run("sacct", ["--json", "-j", jid], json_job("job_id", int(jid or 0)))
    out = k.run("sbatch", ["--parsable", "-H", "--wrap", "true"])
    k.run("scancel", [out.strip()])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--daemons", required=True, help="build of the daemons")
    ap.add_argument("--commands", required=True, help="build of the commands")
    a = ap.parse_args()
    c = arbor_cluster.Cluster(2, build=os.path.abspath(a.daemons))
    try:
        for b, what in ((a.daemons, "daemons"), (a.commands, "commands")):
            p = c.run([tool(b, "arbor"), "--version"])
            print("%-8s %s: %s" % (what, b, p.stdout.strip()))
        k = Check(c, a.commands)
        matrix(k)
    finally:
        c.stop()
    print("%d failed" % k.failed)
    return 1 if k.failed else 0


if __name__ == "__main__":
    sys.exit(main())
