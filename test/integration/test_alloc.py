"""arbor alloc (salloc): interactive allocations on an emulated cluster.

The allocation is granted with Slurm's messages, its command runs with the
job's variables, and `arbor run` inside it starts steps 0, 1, ... of that
one job; the command's exit, a cancel or a hangup release it. salloc's
scheduling options (--dependency, --begin, --hold) and SALLOC_* input
variables are honoured.
"""

import os
import signal
import subprocess
import time

from arbor_cluster import proc_cmdlines
from test_batch import env_with_path
from test_cancel import queue_long, start, wait_for, wait_state


def test_two_steps_in_one_job(cluster, test_user):
    c = cluster(2)
    p = c.run(["arbor", "alloc", "-N", "2", "--", "sh", "-c",
               "arbor run -N 2 sh -c 'echo $SLURM_JOB_ID.$SLURM_STEP_ID' "
               "| sort -u; arbor run -N 1 sh -c "
               "'echo $SLURM_JOB_ID.$SLURM_STEP_ID'; "
               "echo alloc $SLURM_JOB_ID $SLURM_JOB_NUM_NODES"],
              env=env_with_path(c))
    assert p.returncode == 0, (p.stdout, p.stderr)
    lines = p.stdout.split()
    jid = lines[-2]
    assert lines == ["%s.0" % jid, "%s.1" % jid, "alloc", jid, "2"], lines
    assert "Granted job allocation %s" % jid in p.stderr, p.stderr
    assert "Relinquishing job allocation %s" % jid in p.stderr, p.stderr
    # the epilogs may still be running when arbor alloc returns
    wait_state(c, int(jid), "COMPLETED", 30)


def test_step_fills_unequal_holdings(cluster, test_user):
    """alloc -n 5 on 4-CPU nodes holds 4 CPUs on one node and 1 on the
    other; a plain run inside it (-n 5 -N 2 from the environment) lays
    its tasks out 4+1 over what the job holds, as Slurm does (issue 33)."""
    c = cluster(2, cpus=4)
    p = c.run(["arbor", "alloc", "-n", "5", "--", "sh", "-c",
               "echo $SLURM_JOB_CPUS_PER_NODE; "
               "arbor run -l printenv SLURMD_NODENAME"],
              env=env_with_path(c))
    assert p.returncode == 0, (p.stdout, p.stderr)
    lines = p.stdout.splitlines()
    assert lines[0] == "4,1", lines
    hosts = sorted(l.split(": ", 1)[1] for l in lines[1:])
    assert hosts == ["node1"] * 4 + ["node2"], lines


def test_exit_code_and_salloc_variables(cluster, test_user):
    c = cluster(2)
    salloc = os.path.join(os.path.dirname(c.arbor), "salloc")
    p = c.run([salloc, "-J", "envjob", "--", "sh", "-c",
               "echo $SLURM_JOB_NODELIST; exit 4"],
              env={"SALLOC_PARTITION": "nosuch"})
    assert p.returncode == 1 and "nosuch" in p.stderr, p.stderr
    p = c.run([salloc, "-N", "2", "--", "sh", "-c",
               "echo $SLURM_JOB_NODELIST; exit 4"])
    assert p.returncode == 4, p.stderr
    assert p.stdout.strip() == "node[1-2]"
    assert p.stderr.startswith("salloc: "), p.stderr


def test_dependency_hold_and_cancel(cluster, test_user):
    c = cluster(1)
    p = c.run(["arbor", "batch", "--parsable", "--wrap", "sleep 1"])
    first = int(p.stdout)
    # waits for the batch job, then gets the node
    t0 = time.monotonic()
    p = c.run(["arbor", "alloc", "-d", "afterany:%d" % first, "--", "true"])
    assert p.returncode == 0, p.stderr
    # salloc's words while it waits, and when it stops waiting
    lines = [l.split(": ", 1)[1] for l in p.stderr.splitlines()]
    jid = lines[0].split()[-1]
    assert lines[:4] == ["Pending job allocation %s" % jid,
                         "job %s queued and waiting for resources" % jid,
                         "job %s has been allocated resources" % jid,
                         "Granted job allocation %s" % jid], p.stderr
    assert time.monotonic() - t0 >= 0.5
    # held: released by arbor release; cancelling the held one ends salloc
    a = start(c, ["arbor", "alloc", "-H", "-J", "heldalloc", "--", "sleep",
                  "60"])

    def pending_id():
        for jid, j in queue_long(c).items():
            if j["name"] == "heldalloc" and j["state"] == "PENDING":
                return jid
        return None
    jid = wait_for(pending_id, 30, "the held allocation")
    assert c.run(["arbor", "release", str(jid)]).returncode == 0
    wait_state(c, jid, "RUNNING", 30)
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    out, err = a.communicate(timeout=60)
    assert a.returncode != 0
    assert b"revoked" in err, err
    wait_state(c, jid, "CANCELLED", 30)


def test_hangup_releases(cluster, test_user):
    c = cluster(1)
    a = start(c, ["arbor", "alloc", "-J", "hup", "--", "sleep", "60"])

    def running():
        for jid, j in queue_long(c).items():
            if j["name"] == "hup" and j["state"] == "RUNNING":
                return jid
        return None
    jid = wait_for(running, 30, "the allocation")
    # the terminal hangs up: SIGHUP to arbor alloc itself (not runuser)
    pids = [pid for pid, argv in proc_cmdlines().items()
            if argv[:4] == [c.arbor, "alloc", "-J", "hup"]]
    assert len(pids) == 1, pids
    os.kill(pids[0], signal.SIGHUP)
    a.communicate(timeout=30)
    # the command died of the hangup: the job ends FAILED (its exit code)
    wait_for(lambda: queue_long(c)[jid]["state"] == "FAILED", 30,
             "the allocation to be released")


# ---- terminals: arbor run --pty, the interactive step ---------------------

PTY_DRIVER = r'''
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
def until(pred, secs):
    global out
    end = time.time() + secs
    while time.time() < end and not pred():
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                d = os.read(fd, 4096)
            except OSError:
                return
            if not d:
                return
            out += d
until(lambda: b"$ " in out or b"# " in out, 20)
os.write(fd, b"echo STEP-$SLURM_STEP_ID-$SLURMD_NODENAME-$(tty)-$(stty size)\r")
until(lambda: b"STEP-" in out.split(b"\r\n", 1)[-1] and b"/dev/" in out, 20)
os.write(fd, b"exit 3\r")
until(lambda: False, 10)
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.stdout.write("\nSTATUS %d\n" % os.WEXITSTATUS(st))
'''


def pty_run(c, args, env=None):
    e = {"PS1": "$ ", "SHELL": "/bin/sh", "TERM": "xterm"}
    e.update(env or {})
    return c.run(["python3", "-c", PTY_DRIVER] + args, env=e, timeout=90)


def test_run_pty_in_an_allocation(cluster, test_user):
    c = cluster(2)
    p = pty_run(c, [c.arbor, "alloc", "-N", "2", "--", c.arbor, "run", "--pty",
                    "-w", "node2", "-N", "1", "/bin/sh"])
    assert "STATUS 3" in p.stdout, (p.stdout, p.stderr)
    assert "STEP-0-node2-/dev/pts/" in p.stdout, p.stdout


def test_interactive_step(cluster, test_user):
    c = cluster(2, LaunchParameters="use_interactive_step")
    p = pty_run(c, [c.arbor, "alloc", "-N", "2"])
    assert "STATUS 3" in p.stdout, (p.stdout, p.stderr)
    # the shell ran as step "interactive" (4294967290) on the first node
    assert "STEP-4294967290-node1-/dev/pts/" in p.stdout, p.stdout
    assert "Granted job allocation" in p.stdout, p.stdout
