"""arbor stat (sstat): what the tasks of a running step use, asked of the
nodes that run it.

A step of three tasks on two nodes, one of which holds 100 MB and burns
CPU: sstat must name that task and its node for MaxRSS, count three
tasks, list their processes, show only the lowest-numbered step by
default and every step (batch included) with -a, and refuse another
user. Errors name what was wrong.
"""

import os

from test_acct import kib
from test_batch import batch
from test_cancel import OTHER_USER, ensure_user, wait_for, wait_state

# Task 2 holds 100 MB and burns a CPU; the others sleep.
TASK = ("import os, time\n"
        "if os.environ['SLURM_PROCID'] == '2':\n"
        "    b = b'x' * (100 << 20)\n"
        "    t = time.time()\n"
        "    while time.time() - t < 3: pass\n"
        "open('ready.%s' % os.environ['SLURM_PROCID'], 'w').close()\n"
        "time.sleep(300)\n")


def stat(c, *args, user=None):
    return c.run(["arbor", "stat"] + list(args), user=user)


def stat_rows(c, *args):
    p = stat(c, "-P", "-n", *args)
    assert p.returncode == 0, p.stderr
    return [l.split("|") for l in p.stdout.splitlines() if l]


def test_running_step_usage(cluster, test_user):
    c = cluster(2, cpus=2)
    with open(os.path.join(c.scratch, "task.py"), "w") as f:
        f.write(TASK)
    jid = batch(c, "-N", "2", "-n", "3", "--wrap",
                "%s run -n 3 -m block python3 task.py" % c.arbor)
    wait_state(c, jid, "RUNNING", 30)
    wait_for(lambda: len([f for f in os.listdir(c.scratch)
                          if f.startswith("ready.")]) == 3,
             60, "the three tasks to be ready")
    fields = ("JobID,NTasks,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MinCPU,"
              "AveCPU,MaxVMSize,Nodelist,Pids")
    rows = stat_rows(c, "-j", str(jid), "-o", fields)
    assert len(rows) == 1, rows
    (jobid, ntasks, maxrss, node, task, averss, mincpu, avecpu, maxvm,
     nodelist, pids) = rows[0]
    assert jobid == "%d.0" % jid and ntasks == "3", rows
    assert 100 <= kib(maxrss) / 1024 <= 130, rows  # 100 MB and python
    assert (node, task) == ("node2", "2"), rows  # -m block: 0,1 | 2
    assert kib(averss) < kib(maxrss), rows
    assert kib(maxvm) >= kib(maxrss), rows
    assert nodelist == "node[1-2]", rows
    # sacct's CPU times: task 2 burnt about 3 s, the least a few ms
    minutes, seconds = avecpu.split(":")[-2:]
    assert 0.5 <= int(minutes) * 60 + float(seconds) <= 4, rows
    assert mincpu.startswith("00:00"), rows
    assert len(pids.split(",")) >= 3, rows
    for pid in pids.split(","):
        with open("/proc/%s/status" % pid) as f:
            assert "Uid:\t%d" % test_user.pw_uid in f.read()

    # -a: the batch step too; the table layout with its header
    rows = stat_rows(c, "-a", "-j", str(jid), "-o", "JobID,NTasks")
    assert sorted(rows) == sorted([["%d.batch" % jid, "1"],
                                   ["%d.0" % jid, "3"]]), rows
    p = stat(c, "-j", "%d.0" % jid, "-o", "JobID,NTasks")
    assert p.stdout.splitlines() == [
        "JobID          NTasks ", "------------ -------- ",
        "%-12s %8s " % ("%d.0" % jid, "3")], p.stdout
    # sstat's own entry point, -i
    p = c.run([os.path.join(os.path.dirname(c.arbor), "sstat"), "-i", "-n",
               "-P", "-j", "%d.0" % jid])
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("%d.0|node[1-2]|" % jid), p.stdout

    # another user may not look; root may
    other = ensure_user(OTHER_USER)
    p = stat(c, "-j", str(jid), user=other.pw_name)
    assert p.returncode == 1, p.stdout
    assert "Access/permission denied" in p.stderr, p.stderr
    assert stat(c, "-j", str(jid), user="root").returncode == 0
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0


def test_errors(cluster, test_user):
    c = cluster(1)
    p = stat(c)
    assert p.returncode == 1
    assert "no job given" in p.stderr, p.stderr
    p = stat(c, "-j", "5.x")
    assert p.returncode == 1
    assert "Invalid job id: 5.x" in p.stderr, p.stderr
    p = stat(c, "-j", "5", "-o", "JobID,Bogus")
    assert p.returncode == 1
    assert 'Invalid field requested: "Bogus"' in p.stderr, p.stderr
    p = stat(c, "-j", "999")
    assert p.returncode == 1
    assert "job 999 has no running steps" in p.stderr, p.stderr
    p = stat(c, "-j", "999.3")
    assert p.returncode == 1
    assert "step 999.3 is not running" in p.stderr, p.stderr
    p = stat(c, "-e")
    assert p.returncode == 0 and "MaxRSSNode" in p.stdout, p.stdout
    # a batch job whose only step is the batch script: -a shows it
    jid = batch(c, "--wrap", "sleep 60")
    wait_state(c, jid, "RUNNING", 30)
    p = stat(c, "-j", str(jid))
    assert p.returncode == 1
    assert "-a shows batch and extern ones" in p.stderr, p.stderr
    rows = stat_rows(c, "-a", "-j", str(jid), "-o", "JobID,NTasks")
    assert rows == [["%d.batch" % jid, "1"]], rows
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
