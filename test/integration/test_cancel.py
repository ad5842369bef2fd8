"""arbor cancel (scancel) and arbor run -K on an emulated cluster.

Cancelling ends a job through the termination sequence (SIGTERM, KillWait,
SIGKILL) and leaves it CANCELLED; -s delivers a signal and the job goes on;
only the owner (or root/ArborUser) may cancel; filters select jobs; -K ends
the step when a task fails. The helpers at the top are shared with the other
issue-3 tests (test_containment, test_identity, test_timelimit,
test_restart), which import them by name.
"""

import os
import pwd
import subprocess
import time

import pytest

from arbor_cluster import TEST_USER, is_root, proc_cmdlines, task_uid

OTHER_USER = "arbortest2"


# ---- helpers shared by the issue-3 tests ----------------------------------

def wait_for(pred, timeout, what, interval=0.2):
    """Poll pred() until it returns something true; fail after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() > deadline:
            pytest.fail("timed out after %ss waiting for %s" % (timeout, what))
        time.sleep(interval)


def queue_long(c):
    """{job_id: {"name", "user", "state", "exit"}} from arbor queue -t all,
    in fixed columns of 20 (squeue -O): names up to 20 characters."""
    p = c.run(["arbor", "queue", "-t", "all", "-h", "-O",
               "JobArrayID,Name,UserName,State,ExitCode"], user="root")
    assert p.returncode == 0, p.stderr
    jobs = {}
    for line in p.stdout.splitlines():
        f = [line[k:k + 20].strip() for k in range(0, 100, 20)]
        if f[0].isdigit():
            jobs[int(f[0])] = {"name": f[1], "user": f[2], "state": f[3],
                               "exit": f[4].split(":")[0]}
    return jobs


def job_state(c, job_id):
    return queue_long(c).get(job_id, {}).get("state")


def job_id_by_name(c, name, timeout=30):
    """The id of the (single) job named 'name', once it is RUNNING."""
    def find():
        for jid, j in queue_long(c).items():
            if j["name"] == name[:20] and j["state"] == "RUNNING":
                return jid
        return None
    return wait_for(find, timeout, "job %s to run" % name)


def wait_state(c, job_id, states, timeout):
    """Wait until job_id is in one of 'states'; returns the state."""
    if isinstance(states, str):
        states = (states,)
    return wait_for(lambda: job_state(c, job_id) in states and
                    job_state(c, job_id), timeout,
                    "job %d to be %s (now %s)" % (job_id, "/".join(states),
                                                  job_state(c, job_id)))


def start(c, args, user=None, env=None):
    """Start a command in the background; stdout/stderr captured."""
    return c.popen(args, user=user, env=env, stdin=subprocess.DEVNULL,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(p, timeout):
    """Wait for a start()ed command; (rc, stdout, stderr) as text."""
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        pytest.fail("command still running after %ss:\nstdout:\n%s\n"
                    "stderr:\n%s" % (timeout, out.decode(errors="replace"),
                                     err.decode(errors="replace")))
    return (p.returncode, out.decode(errors="replace"),
            err.decode(errors="replace"))


def files_in(c, prefix):
    """Names of files in the cluster's scratch dir starting with prefix."""
    return sorted(f for f in os.listdir(c.scratch) if f.startswith(prefix))


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def procs_matching(text, anyone=False):
    """pids whose command line is exactly 'text' (argv joined by spaces):
    the tasks' user's (another user's "sleep 300" on the host is not a
    task of ours), or with 'anyone' everybody's (a PAM session's sleeper
    runs as root: the test gives it a command line of its own)."""
    procs = proc_cmdlines(None if anyone else task_uid())
    return [pid for pid, argv in procs.items()
            if " ".join(argv) == text and pid != os.getpid()]


def ensure_user(name):
    """Create an unprivileged user (idempotent); skip if we cannot."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    if not is_root():
        pytest.skip("needs root to create user %s" % name)
    subprocess.run(["useradd", "-M", "-s", "/bin/sh", name], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return pwd.getpwnam(name)


# A task that reports it started (one file per rank) and runs until killed.
def looping_task(tag, trap=""):
    return ('%s echo $$ > "%s.$SLURM_PROCID"; '
            'while :; do sleep 0.2; done' % (trap, tag))


# ---- tests ----------------------------------------------------------------

def test_cancel_traps_sigterm_killed_after_killwait(cluster, test_user):
    c = cluster(2, KillWait=2)
    task = looping_task("started",
                        trap='trap "echo caught TERM $SLURM_PROCID" TERM;')
    p = start(c, ["arbor", "run", "-N", "2", "-n", "2", "-J", "trapterm",
                  "sh", "-c", task])
    jid = job_id_by_name(c, "trapterm")
    wait_for(lambda: len(files_in(c, "started.")) == 2, 30, "tasks to start")
    cancel = c.run(["arbor", "cancel", str(jid)])
    assert cancel.returncode == 0, cancel.stderr
    rc, out, err = finish(p, 60)
    # SIGTERM reached the trap, then SIGKILL ended the tasks.
    assert "caught TERM" in out, out
    assert "Killed" in err, err
    assert rc == 128 + 9, (rc, err)
    assert "Job %d cancelled" % jid in err, err
    assert wait_state(c, jid, "CANCELLED", 30) == "CANCELLED"


def test_cancel_usr1_delivers_and_job_keeps_running(cluster, test_user):
    c = cluster(2)
    task = looping_task(
        "started", trap='trap "echo x >> usr1.$SLURM_PROCID" USR1;')
    p = start(c, ["arbor", "run", "-N", "2", "-n", "2", "-J", "usr1",
                  "sh", "-c", task])
    jid = job_id_by_name(c, "usr1")
    wait_for(lambda: len(files_in(c, "started.")) == 2, 30, "tasks to start")
    s = c.run(["arbor", "cancel", "-s", "USR1", str(jid)])
    assert s.returncode == 0, s.stderr
    wait_for(lambda: files_in(c, "usr1.") == ["usr1.0", "usr1.1"], 30,
             "USR1 to reach both tasks")
    time.sleep(1)
    assert p.poll() is None, "arbor run ended after a USR1"
    assert job_state(c, jid) == "RUNNING"
    # SIGUSR1 by number, through the scancel name, works as well.
    scancel = os.path.join(c.build, "bin", "scancel")
    s = c.run([scancel, "--signal=10", str(jid)])
    assert s.returncode == 0, s.stderr
    wait_for(lambda: read(os.path.join(c.scratch, "usr1.0")).count("x") >= 2,
             30, "the second USR1")
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    finish(p, 60)
    wait_state(c, jid, "CANCELLED", 30)


def signal_job(c, tag, shell_trap, loops, opts=()):
    """A batch job whose step marks TAG.up, traps USR1 (TAG.step) and
    loops 'loops' tenths of a second; its shell marks TAG.shell once the
    step is over, and with shell_trap traps USR1 itself (TAG.shellsig)."""
    trap = "trap 'echo got > %s.shellsig' USR1; " % tag if shell_trap else ""
    step = os.path.join(c.scratch, "signal_step.sh")
    with open(step, "w") as f:
        f.write("trap 'echo got > $1.step; exit 0' USR1; echo up > $1.up\n"
                "i=0; while [ $i -lt $2 ]; do sleep 0.1; i=$((i+1)); done\n")
    os.chmod(step, 0o644)
    wrap = ("%sarbor run -n1 sh %s %s %d & wait; wait; echo alive > %s.shell"
            % (trap, step, tag, loops, tag))
    bindir = os.path.dirname(c.arbor)
    p = c.run(["arbor", "batch", "--parsable", "-o", "/dev/null", "-J", tag]
              + list(opts) + ["--wrap", wrap],
              env={"PATH": bindir + ":/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr
    jid = int(p.stdout)
    wait_for(lambda: os.path.exists(os.path.join(c.scratch, tag + ".up")),
             30, "%s's step to start" % tag)
    return jid


def test_signal_reaches_the_steps_not_the_batch_shell(cluster, test_user):
    """scancel --signal signals a job's steps but not its batch shell (which
    need not catch it); -b the shell alone; -f both (issue 33)."""
    c = cluster(3)
    marks = lambda tag: sorted(f for f in files_in(c, tag + ".")
                               if not f.endswith(".up"))
    steps = signal_job(c, "dflt", False, 600)
    shell = signal_job(c, "bonly", True, 30)
    full = signal_job(c, "full", True, 600)
    for args in (["-s", "USR1", str(steps)], ["-b", "-s", "USR1", str(shell)],
                 ["-f", "-s", "USR1", str(full)]):
        p = c.run(["arbor", "cancel"] + args)
        assert p.returncode == 0, (args, p.stderr)
    wait_state(c, steps, "COMPLETED", 30)
    assert marks("dflt") == ["dflt.shell", "dflt.step"]
    wait_state(c, shell, "COMPLETED", 30)
    assert marks("bonly") == ["bonly.shell", "bonly.shellsig"]
    wait_state(c, full, "COMPLETED", 30)
    assert marks("full") == ["full.shell", "full.shellsig", "full.step"]


def test_cancelled_batch_script_says_so_in_its_output(cluster, test_user):
    """A batch script without steps, cancelled: its output file ends with
    slurmstepd's line, "*** JOB N ON node1 CANCELLED AT TIME ***"."""
    c = cluster(1)
    p = c.run(["arbor", "batch", "--parsable", "-o", "cx.out", "--wrap",
               "echo started; sleep 300"])
    assert p.returncode == 0, p.stderr
    jid = int(p.stdout)
    out = os.path.join(c.scratch, "cx.out")
    wait_for(lambda: os.path.exists(out) and "started" in read(out), 30,
             "the script to start")
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    wait_state(c, jid, "CANCELLED", 30)
    wait_for(lambda: "*** JOB %d ON node1 CANCELLED AT " % jid in read(out),
             30, "the banner in %s: %r" % (out, read(out)))


def test_other_user_cannot_cancel(cluster, test_user):
    other = ensure_user(OTHER_USER)
    c = cluster(1)
    p = start(c, ["arbor", "run", "-J", "mine", "sh", "-c",
                  looping_task("started")])
    jid = job_id_by_name(c, "mine")
    s = c.run(["arbor", "cancel", str(jid)], user=other.pw_name)
    assert s.returncode == 1
    assert ("arbor cancel: error: Kill job error on job id %d: "
            "Access/permission denied for job %d" % (jid, jid)) in s.stderr, \
        s.stderr
    s = c.run(["arbor", "cancel", "-s", "KILL", str(jid)], user=other.pw_name)
    assert s.returncode == 1
    time.sleep(1)
    assert p.poll() is None, "the job died after a refused cancel"
    assert job_state(c, jid) == "RUNNING"
    # The owner may.
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    finish(p, 60)
    wait_state(c, jid, "CANCELLED", 30)


def test_cancel_command_line_errors(cluster):
    c = cluster(1)
    p = c.run(["arbor", "cancel"])
    assert p.returncode == 1
    assert "No job identification provided" in p.stderr
    p = c.run(["arbor", "cancel", "5.x"])
    assert p.returncode == 1
    assert "Invalid job id 5.x" in p.stderr
    p = c.run(["arbor", "cancel", "--bogus", "5"])
    assert p.returncode == 1
    assert "unrecognized option '--bogus'" in p.stderr
    p = c.run(["arbor", "cancel", "-s", "NOSUCH", "5"])
    assert p.returncode == 1
    assert "Invalid job signal: NOSUCH" in p.stderr
    p = c.run(["arbor", "cancel", "-t", "WHATEVER"])
    assert p.returncode == 1
    # A job id that never existed: a plain scancel takes it as done
    # already (silent, status 0; -v says why); with a signal it is an
    # error, as scancel's.
    p = c.run(["arbor", "cancel", "4242"])
    assert p.returncode == 0 and p.stderr == "", p.stderr
    p = c.run(["arbor", "cancel", "-v", "4242"])
    assert p.returncode == 0, p.stderr
    assert ("Kill job error on job id 4242: Invalid job id specified"
            in p.stderr), p.stderr
    p = c.run(["arbor", "cancel", "-s", "USR1", "4242"])
    assert p.returncode == 1
    assert ("Kill job error on job id 4242: Invalid job id specified"
            in p.stderr), p.stderr


def test_cancel_filters_and_finished_jobs(cluster, test_user):
    c = cluster(2)
    pa = start(c, ["arbor", "run", "-N", "1", "-J", "alpha", "sh", "-c",
                   looping_task("a")])
    pb = start(c, ["arbor", "run", "-N", "1", "-J", "beta", "sh", "-c",
                   looping_task("b")])
    ja = job_id_by_name(c, "alpha")
    jb = job_id_by_name(c, "beta")
    # Ids AND filters: job a is named, but not "beta": nothing happens.
    s = c.run(["arbor", "cancel", "-n", "beta", str(ja)])
    assert s.returncode == 0, s.stderr
    time.sleep(1)
    assert job_state(c, ja) == "RUNNING"
    s = c.run(["arbor", "cancel", "-v", "--name=alpha"])
    assert s.returncode == 0, s.stderr
    assert "Terminating job %d" % ja in s.stderr
    finish(pa, 60)
    wait_state(c, ja, "CANCELLED", 30)
    assert job_state(c, jb) == "RUNNING"
    s = c.run(["arbor", "cancel", "-u", TEST_USER, "-t", "R"])
    assert s.returncode == 0, s.stderr
    finish(pb, 60)
    wait_state(c, jb, "CANCELLED", 30)
    # Already ended: a plain cancel is no error (scancel's, silent unless
    # -v); a signal is, "Invalid job id specified", -Q hiding the text
    # but not the status.
    s = c.run(["arbor", "cancel", str(ja)])
    assert s.returncode == 0 and s.stderr == "", s.stderr
    s = c.run(["arbor", "cancel", "-v", str(ja)])
    assert s.returncode == 0, s.stderr
    assert ("Kill job error on job id %d: Job/step already completing or "
            "completed" % ja) in s.stderr, s.stderr
    s = c.run(["arbor", "cancel", "-s", "USR1", str(ja)])
    assert s.returncode == 1 and ("Kill job error on job id %d: Invalid "
                                  "job id specified" % ja) in s.stderr, \
        s.stderr
    s = c.run(["arbor", "cancel", "-Q", "-s", "USR1", str(ja)])
    assert s.returncode == 1 and s.stderr == "", s.stderr


def test_kill_on_bad_exit(cluster, test_user):
    c = cluster(2, KillWait=2)
    task = ('if [ "$SLURM_PROCID" = 1 ]; then sleep 1; exit 3; fi; '
            'while :; do sleep 0.2; done')
    t0 = time.monotonic()
    p = c.run(["arbor", "run", "-K", "-N", "2", "-n", "2", "sh", "-c", task],
              timeout=90)
    assert time.monotonic() - t0 < 60
    assert p.returncode != 0
    assert "task 1: Exited with exit code 3" in p.stderr, p.stderr
    assert "--kill-on-bad-exit" in p.stderr, p.stderr
    # Without -K (KillOnBadExit=0) the other task would run forever; with
    # -K0 the command line turns it off explicitly: give it a bounded task.
    p = c.run(["arbor", "run", "-K0", "-N", "2", "-n", "2", "sh", "-c",
               'if [ "$SLURM_PROCID" = 1 ]; then exit 3; fi; sleep 2; '
               'echo survived'])
    assert p.returncode == 3, p.stderr
    assert "survived" in p.stdout


def test_kill_on_bad_exit_from_conf(cluster, test_user):
    c = cluster(2, KillWait=2, KillOnBadExit=1)
    p = c.run(["arbor", "run", "-N", "2", "-n", "2", "sh", "-c",
               'if [ "$SLURM_PROCID" = 0 ]; then exit 5; fi; '
               'while :; do sleep 0.2; done'], timeout=90)
    assert p.returncode != 0
    assert "--kill-on-bad-exit" in p.stderr, p.stderr


# ---- job arrays -----------------------------------------------------------

def array_states(c, jid):
    """{task: state} of array jid, from arbor queue -h -r -t all -j ID
    (-r: pending tasks one a line, not folded)."""
    p = c.run(["arbor", "queue", "-h", "-r", "-t", "all", "-j", str(jid),
               "-o", "%i %T"], user="root")
    assert p.returncode == 0, p.stderr
    states = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 2 and f[0].startswith("%d_" % jid):
            states[int(f[0].split("_")[1])] = f[1]
    return states


def test_cancel_array_task_then_whole_array(cluster, test_user):
    """ID_TASK cancels that task alone (also the first task, whose job id
    is the array's); the array's id cancels the rest, running tasks
    through the termination sequence and pending ones at once."""
    from test_batch import submitted_id
    c = cluster(1, cpus=2, KillWait=2)
    p = c.run(["arbor", "batch", "--array=0-3", "-o", "/dev/null",
               "--wrap", "sleep 300"])
    assert p.returncode == 0, p.stderr
    jid = submitted_id(p)
    wait_for(lambda: sorted(array_states(c, jid).values()) ==
             ["PENDING", "PENDING", "RUNNING", "RUNNING"], 30,
             "tasks 0 and 1 to run, 2 and 3 to wait")
    wait_for(lambda: len(procs_matching("sleep 300")) == 2, 30,
             "the two running tasks' sleeps")

    s = c.run(["arbor", "cancel", "%d_1" % jid])
    assert s.returncode == 0, s.stderr
    wait_for(lambda: array_states(c, jid).get(1) == "CANCELLED", 30,
             "task 1 to be cancelled")
    left = array_states(c, jid)
    assert all(left[t] in ("RUNNING", "PENDING") for t in (0, 2, 3)), left
    assert left[0] == "RUNNING", left
    # Task 0's job id is the array's: ID_0 still means task 0 alone.
    s = c.run(["arbor", "cancel", "%d_0" % jid])
    assert s.returncode == 0, s.stderr
    wait_for(lambda: array_states(c, jid).get(0) == "CANCELLED", 30,
             "task 0 to be cancelled")
    left = array_states(c, jid)
    assert "CANCELLED" not in (left[2], left[3]), left
    # An unknown task of a known array: as any unknown id, no error for a
    # plain cancel (-v says why), an error with a signal.
    s = c.run(["arbor", "cancel", "%d_7" % jid])
    assert s.returncode == 0 and s.stderr == "", s.stderr
    s = c.run(["arbor", "cancel", "-v", "%d_7" % jid])
    assert s.returncode == 0
    assert ("Kill job error on job id %d_7: Invalid job id specified" % jid
            in s.stderr), s.stderr
    s = c.run(["arbor", "cancel", "-s", "USR1", "%d_7" % jid])
    assert s.returncode == 1
    assert ("Kill job error on job id %d_7: Invalid job id specified" % jid
            in s.stderr), s.stderr

    s = c.run(["arbor", "cancel", "-v", str(jid)])
    assert s.returncode == 0, s.stderr
    wait_for(lambda: array_states(c, jid) ==
             {t: "CANCELLED" for t in range(4)}, 60,
             "every task to be CANCELLED (now %s)" % array_states(c, jid))
    wait_for(lambda: not procs_matching("sleep 300"), 30,
             "no sleep 300 left")
    # Nothing is left to cancel: no error for a plain cancel, as scancel
    # (-v says why); with a signal an error, -Q hiding its text.
    s = c.run(["arbor", "cancel", str(jid)])
    assert s.returncode == 0 and s.stderr == "", s.stderr
    s = c.run(["arbor", "cancel", "-v", str(jid)])
    assert s.returncode == 0 and "already" in s.stderr, s.stderr
    s = c.run(["arbor", "cancel", "-Q", "-s", "USR1", str(jid)])
    assert s.returncode == 1 and s.stderr == "", s.stderr


def test_bad_begin_is_an_error(cluster):
    """A bad when-to-start value is reported with Slurm's "error:" word,
    exit 1, and submits nothing."""
    c = cluster(1)
    for cmd, prog in ((["arbor", "batch"], "arbor batch"),
                      ([os.path.join(c.build, "bin", "sbatch")], "sbatch"),
                      (["arbor", "alloc"], "arbor alloc")):
        args = cmd + ["--begin=2030-02-31", "--wrap", "true"] \
            if "alloc" not in prog else cmd + ["--begin=soon", "true"]
        p = c.run(args)
        assert p.returncode == 1, (prog, p.stderr)
        assert p.stderr.startswith("%s: error: invalid --begin '" % prog), \
            (prog, p.stderr)
    # now+1hour (the help text's example) is accepted
    p = c.run(["arbor", "batch", "--parsable", "--begin=now+1hour", "--wrap",
               "true"])
    assert p.returncode == 0, p.stderr
    c.run(["arbor", "cancel", p.stdout.strip()])
    assert c.run(["arbor", "queue", "-h"]).stdout == ""
