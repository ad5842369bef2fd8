"""Event triggers: strigger --set/--get/--clear (ctld/notify/trigger.h).

The trigger program is a small script that appends who ran it and its
arguments to a file, so the tests see what Slurm passes: the nodes (a
hostlist) for node events, the job id for job events, after the
program's own arguments, run as the user who set the trigger. Also: who
may set and clear what, the --get table, PERM triggers and their
survival across a controller restart.
"""

import os
import re

from test_batch import read, script, submitted_id
from test_cancel import wait_for, wait_state
from test_nodestate import control

RECORDER = "#!/bin/sh\necho \"$(id -un) $*\" >> %s/fired.txt\n"


def strigger(c, *args, user=None):
    prog = os.path.join(os.path.dirname(c.arbor), "strigger")
    return c.run([prog] + list(args), user=user)


def recorder(c):
    return script(c, "rec.sh", RECORDER % c.scratch, mode=0o755)


def fired(c):
    try:
        return read(c, "fired.txt").splitlines()
    except FileNotFoundError:
        return []


def table(c, *args, user=None):
    p = strigger(c, "--get", *args, user=user)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_node_down_runs_the_program_as_its_owner(cluster, test_user):
    c = cluster(2)
    rec = recorder(c)
    p = strigger(c, "--set", "--node=node2", "--down", "--program=" + rec)
    assert p.returncode == 0 and p.stdout == "", p
    rows = table(c)
    assert rows[0].split() == ["TRIG_ID", "RES_TYPE", "RES_ID", "TYPE",
                               "OFFSET", "USER", "FLAGS", "PROGRAM"], rows
    assert re.fullmatch(r" +\d+ node +node2 down +0 arbortest +%s" % rec,
                        rows[1]), rows
    # another node going down: not this trigger's
    assert control(c, "update", "NodeName=node1", "State=DOWN",
                   "Reason=t").returncode == 0
    assert control(c, "update", "NodeName=node2", "State=DOWN",
                   "Reason=t").returncode == 0
    wait_for(lambda: fired(c), 30, "the trigger program")
    assert fired(c) == ["arbortest node2"], fired(c)
    # fired once, then gone
    wait_for(lambda: len(table(c)) == 0, 10, "the trigger removed")


def test_job_triggers_fini_and_time(cluster, test_user):
    c = cluster(1)
    rec = recorder(c)
    p = c.run(["arbor", "batch", "-o", "/dev/null", "-t", "1",
               "--wrap", "sleep 300"])
    jid = submitted_id(p)
    wait_state(c, jid, "RUNNING", 30)
    # --time 55 s before a 1-minute limit: about 5 s after the start
    assert strigger(c, "--set", "-j", str(jid), "--time", "--offset=-55",
                    "-p", rec + " limit").returncode == 0
    assert strigger(c, "--set", "--jobid=%d" % jid, "--fini",
                    "--program=%s fini" % rec).returncode == 0
    rows = table(c, "--jobid=%d" % jid)
    assert len(rows) == 3 and " time " in rows[1] and " -55 " in rows[1], rows
    wait_for(lambda: "arbortest limit %d" % jid in fired(c), 30,
             "the --time trigger")
    assert "fini" not in " ".join(fired(c))
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    wait_for(lambda: "arbortest fini %d" % jid in fired(c), 30,
             "the --fini trigger (%s)" % fired(c))
    assert fired(c) == ["arbortest limit %d" % jid,
                        "arbortest fini %d" % jid], fired(c)


def test_who_may_set_and_clear(cluster, test_user):
    c = cluster(1)
    rec = recorder(c)
    # a job of arbortest2: arbortest may not watch it
    p = c.run(["arbor", "batch", "-o", "/dev/null", "--wrap", "sleep 300"],
              user="arbortest2")
    other = submitted_id(p)
    p = strigger(c, "--set", "-j", str(other), "--fini", "-p", rec)
    assert p.returncode == 1 and "not yours" in p.stderr, p
    # a program its owner may not execute
    secret = script(c, "secret.sh", "#!/bin/sh\ntrue\n", mode=0o700)
    p = strigger(c, "--set", "--down", "-p", secret)
    assert p.returncode == 1 and "not executable" in p.stderr, p
    # strigger's own checks, before anything is sent
    p = strigger(c, "--set", "--down", "-p", "rec.sh")
    assert p.returncode == 1 and 'must start with "/"' in p.stderr, p
    p = strigger(c, "--set", "--fini", "-p", rec)
    assert p.returncode == 1 and "--jobid" in p.stderr, p
    p = strigger(c, "--clear")
    assert p.returncode == 1 and "--id, --jobid, or --user" in p.stderr, p
    # arbortest's trigger: arbortest2 sees it but may not clear it
    assert strigger(c, "--set", "--up", "-p", rec).returncode == 0
    rows = table(c, user="arbortest2")
    assert len(rows) == 2, rows
    tid = rows[1].split()[0]
    p = strigger(c, "--clear", "--id=" + tid, user="arbortest2")
    assert p.returncode == 1 and "permission denied" in p.stderr, p
    assert strigger(c, "--clear", "-Q", "--id=" + tid,
                    user="arbortest2").returncode == 0
    assert len(table(c)) == 2
    # its owner may; and root may clear anyone's
    assert strigger(c, "--clear", "--id=" + tid).returncode == 0
    assert table(c) == []
    assert strigger(c, "--set", "--up", "-p", rec).returncode == 0
    assert strigger(c, "--clear", "--user=arbortest",
                    user="root").returncode == 0
    assert table(c) == []
    assert c.run(["arbor", "cancel", str(other)],
                 user="root").returncode == 0


def test_perm_trigger_survives_a_restart_and_fires_again(cluster,
                                                          test_user):
    c = cluster(2)
    rec = recorder(c)
    assert strigger(c, "--set", "-n", "--drained", "--flags=PERM",
                    "-p", rec + " drained").returncode == 0
    before = table(c)
    assert len(before) == 2 and " PERM " in before[1], before
    c.restart("ctld")
    assert table(c) == before
    for node in ("node1", "node2"):
        assert control(c, "update", "NodeName=" + node, "State=DRAIN",
                       "Reason=t").returncode == 0
        wait_for(lambda: "arbortest drained %s" % node in fired(c), 30,
                 "the trigger for %s (%s)" % (node, fired(c)))
    assert table(c) == before  # PERM: still there
