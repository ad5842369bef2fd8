"""Licenses (arbor.conf Licenses=, -L/--licenses), counted by the scheduler.

A job that asks for licenses starts only when they are free, holds them
until it is done, and waits meanwhile with reason "Licenses" (squeue);
scontrol show licenses says what is used; the count survives a
controller restart; requests naming an unknown license, more than the
cluster has, or a malformed list are refused at submission with Slurm's
message; a changed Licenses= is read by arbor control reconfigure.
"""

import os
import re

from test_batch import batch, script
from test_cancel import wait_for, wait_state


def lic(c, name=None):
    """{name: (total, used, free)} from arbor control show licenses."""
    p = c.run(["arbor", "control", "-o", "show", "licenses"]
              + ([name] if name else []))
    assert p.returncode == 0, p.stderr
    out = {}
    for m in re.finditer(r"LicenseName=(\S+) Total=(\d+) Used=(\d+) "
                         r"Free=(\d+) Reserved=0 Remote=no", p.stdout):
        out[m.group(1)] = tuple(int(m.group(k)) for k in (2, 3, 4))
    return out


def field(c, jid, fmt):
    p = c.run(["arbor", "queue", "-h", "-t", "all", "-j", str(jid),
               "-o", fmt])
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def refused(p):
    return p.returncode != 0 and \
        "Invalid license specification" in p.stderr


def test_second_job_waits_for_licenses(cluster, test_user):
    c = cluster(1, cpus=4, Licenses="fluent:3,ansys")
    p = c.run(["arbor", "control", "show", "lic"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(
        "LicenseName=ansys\n    Total=1 Used=0 Free=1 Reserved=0 "
        "Remote=no\nLicenseName=fluent\n"), p.stdout
    first = batch(c, "-L", "fluent:2", "--wrap", "sleep 60")
    wait_state(c, first, "RUNNING", 30)
    assert lic(c, "fluent") == {"fluent": (3, 2, 1)}
    # #SBATCH -L, as users' scripts say it
    path = script(c, "lic.sh", "#!/bin/sh\n#SBATCH -L fluent:2\ntrue\n")
    second = batch(c, path)
    wait_state(c, second, "PENDING", 10)
    assert field(c, second, "%r") == "Licenses"
    assert field(c, second, "%W") == "fluent:2"
    # a job that wants no license is not held back behind it
    third = batch(c, "-n", "1", "--wrap", "true")
    wait_state(c, third, "COMPLETED", 30)
    p = c.run(["arbor", "control", "show", "job", str(first)])
    assert "Licenses=fluent:2 " in p.stdout, p.stdout
    assert c.run(["arbor", "cancel", str(first)]).returncode == 0
    wait_state(c, second, ("RUNNING", "COMPLETED"), 30)
    wait_state(c, second, "COMPLETED", 30)
    assert lic(c)["fluent"] == (3, 0, 3)


def test_any_of_and_alloc(cluster, test_user):
    """'|': the first free one, in order; salloc and srun take -L too."""
    c = cluster(1, cpus=4, Licenses="a:1,b:1")
    first = batch(c, "-L", "a", "--wrap", "sleep 60")
    wait_state(c, first, "RUNNING", 30)
    p = c.run(["arbor", "run", "-L", "a|b", "sh", "-c",
               "arbor queue -h -j $SLURM_JOB_ID -o %W"],
              env={"PATH": "%s:/usr/bin:/bin" % os.path.dirname(c.arbor)})
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "b:1", p.stdout  # a was taken: held b
    p = c.run(["arbor", "alloc", "-L", "b", "true"])
    assert p.returncode == 0, p.stderr
    c.run(["arbor", "cancel", str(first)])


def test_restart_keeps_the_count(cluster, test_user):
    c = cluster(1, cpus=4, Licenses="fluent:3")
    first = batch(c, "-L", "fluent:2", "--wrap", "sleep 120")
    wait_state(c, first, "RUNNING", 30)
    c.restart("ctld")
    assert lic(c)["fluent"] == (3, 2, 1)
    second = batch(c, "-L", "fluent:2", "--wrap", "true")
    wait_state(c, second, "PENDING", 10)
    assert field(c, second, "%r") == "Licenses"
    assert c.run(["arbor", "cancel", str(first)]).returncode == 0
    wait_state(c, second, "COMPLETED", 30)


def test_bad_specs_refused(cluster, test_user):
    c = cluster(1, Licenses="fluent:3")
    for spec, why in (("matlab", "'matlab' is not configured"),
                      ("fluent:4", "the cluster has 3"),
                      ("fluent,ansys|x", "cannot be mixed"),
                      ("fluent:x", "count must be")):
        p = c.run(["arbor", "batch", "-L", spec, "--wrap", "true"])
        assert refused(p) and why in p.stderr, (spec, p.stderr)
    p = c.run(["arbor", "run", "-L", "matlab", "true"])
    assert refused(p), p.stderr
    p = c.run(["arbor", "alloc", "--licenses=fluent:9", "true"])
    assert refused(p), p.stderr
    p = c.run(["arbor", "queue", "-h"])
    assert p.stdout.strip() == "", p.stdout  # nothing was queued
    p = c.run(["arbor", "control", "show", "lic", "nope"])
    assert p.returncode == 1 and "License nope not found" in p.stdout
    # a bad Licenses= line names its value
    bad = os.path.join(c.scratch, "bad.conf")
    with open(c.conf) as f, open(bad, "w") as g:
        g.write(re.sub(r"(?m)^Licenses=.*$", "Licenses=fluent:many", f.read()))
    os.chmod(bad, 0o644)
    p = c.run(["arbor", "control", "show", "config"],
              env={"ARBOR_CONF": bad})
    assert p.returncode != 0 and "Licenses" in p.stderr \
        and "fluent:many" in p.stderr, p.stderr


def test_reconfigure(cluster, test_user):
    c = cluster(1, Licenses="fluent:1")
    first = batch(c, "-L", "fluent", "--wrap", "sleep 60")
    wait_state(c, first, "RUNNING", 30)
    second = batch(c, "-L", "fluent", "--wrap", "true")
    wait_state(c, second, "PENDING", 10)
    with open(c.conf) as f:
        text = f.read()
    assert "Licenses=fluent:1" in text
    with open(c.conf, "w") as f:
        f.write(text.replace("Licenses=fluent:1", "Licenses=fluent:2,ansys:4"))
    p = c.run(["arbor", "control", "reconfigure"], user="root")
    assert p.returncode == 0, p.stderr
    assert lic(c)["ansys"] == (4, 0, 4)
    assert lic(c)["fluent"][0] == 2
    wait_state(c, second, "COMPLETED", 30)  # the second one is free now
    wait_for(lambda: lic(c)["fluent"] == (2, 1, 1), 10, "fluent back")
    c.run(["arbor", "cancel", str(first)])
