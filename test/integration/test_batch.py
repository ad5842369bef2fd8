"""arbor batch (sbatch): batch scripts on an emulated cluster.

A script with #SBATCH lines runs as the user on the job's first node, in
the submit directory, with the job's variables; its steps are 0, 1, ...;
its output goes to -o/-e files whose names expand Slurm's patterns; its
exit code is the job's, and --wait returns it. Bad input (an unknown
directive, a script that is not one, an output directory the user cannot
write) is refused with the reason, and nothing is submitted.
"""

import os
import re
import time

from arbor_cluster import TEST_USER, proc_cmdlines, task_uid
from test_cancel import queue_long, wait_for, wait_state


def script(c, name, text, mode=0o644):
    path = os.path.join(c.scratch, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def read(c, name):
    with open(os.path.join(c.scratch, name)) as f:
        return f.read()


def env_with_path(c, extra=None):
    """The build's arbor first on PATH, for 'arbor run' inside scripts."""
    env = {"PATH": "%s:/usr/bin:/bin" % os.path.dirname(c.arbor)}
    env.update(extra or {})
    return env


def submitted_id(p):
    m = re.match(r"Submitted batch job (\d+)$", p.stdout.strip())
    assert m, (p.stdout, p.stderr)
    return int(m.group(1))


def batch(c, *args):
    """Submit a batch job whose output goes to /dev/null; its id."""
    p = c.run(["arbor", "batch", "-o", "/dev/null"] + list(args))
    assert p.returncode == 0, p.stderr
    return submitted_id(p)


def start_time(c, jid):
    """Job jid's start as arbor acct prints it ("Unknown" before)."""
    p = c.run(["arbor", "acct", "-n", "-P", "-X", "-j", str(jid),
               "-o", "Start"])
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_script_with_two_steps(cluster, test_user):
    c = cluster(4)
    script(c, "two.sh", """#!/bin/sh
#SBATCH -N 2 -n 4 -J x -o %x-%j.out
#SBATCH --time=5
echo "job=$SLURM_JOB_ID name=$SLURM_JOB_NAME nodes=$SLURM_JOB_NUM_NODES \
list=$SLURM_JOB_NODELIST ntasks=$SLURM_NTASKS dir=$SLURM_SUBMIT_DIR \
host=$SLURM_SUBMIT_HOST on=$SLURMD_NODENAME step=${SLURM_STEP_ID-none}"
arbor run sh -c 'echo "first $SLURM_STEP_ID $SLURM_PROCID $SLURMD_NODENAME"'
arbor run -N 1 -n 1 sh -c 'echo "second $SLURM_STEP_ID"'
""")
    p = c.run(["arbor", "batch", "--wait", "two.sh"], env=env_with_path(c))
    assert p.returncode == 0, (p.stdout, p.stderr, c.all_logs())
    jid = submitted_id(p)
    out = read(c, "x-%d.out" % jid)
    lines = out.splitlines()
    assert lines[0] == ("job=%d name=x nodes=2 list=node[1-2] ntasks=4 dir=%s "
                        "host=%s on=node1 step=none"
                        % (jid, c.scratch, os.uname().nodename)), out
    first = sorted(l for l in lines if l.startswith("first"))
    assert len(first) == 4, out
    assert {l.split()[1] for l in first} == {"0"}, out
    assert sorted(l.split()[2] for l in first) == ["0", "1", "2", "3"], out
    assert {l.split()[3] for l in first} == {"node1", "node2"}, out
    assert "second 1" in lines, out
    assert queue_long(c)[jid]["state"] == "COMPLETED"


def test_exit_code_and_wait(cluster, test_user):
    c = cluster(2)
    p = c.run(["arbor", "batch", "--wait", "--wrap", "echo out; exit 3"])
    assert p.returncode == 3, (p.stdout, p.stderr, c.all_logs())
    jid = submitted_id(p)
    assert read(c, "slurm-%d.out" % jid) == "out\n"
    j = queue_long(c)[jid]
    assert j["state"] == "FAILED" and j["exit"].startswith("3"), j
    # sbatch's entry point and --parsable: the id alone.
    sbatch = os.path.join(os.path.dirname(c.arbor), "sbatch")
    p = c.run([sbatch, "--parsable", "--wait", "--wrap", "true"])
    assert p.returncode == 0 and p.stdout.strip().isdigit(), p


def test_refused_before_submission(cluster, test_user):
    c = cluster(1)
    cases = [
        ("unknown.sh", "#!/bin/sh\n#SBATCH -N 1\n#SBATCH --frobnicate\ntrue\n",
         "unknown.sh line 3: unrecognized option '--frobnicate'"),
        ("quote.sh", "#!/bin/sh\n#SBATCH -J 'open\ntrue\n",
         "line 2: unterminated single quote"),
        ("shebang.sh", "echo no interpreter\n",
         "first line must start with #!"),
        ("stray.sh", "#!/bin/sh\n#SBATCH -N 1 extra\ntrue\n",
         "stray.sh line 2: unexpected argument 'extra'"),
        ("badn.sh", "#!/bin/sh\n#SBATCH -N zero\ntrue\n",
         "invalid --nodes 'zero'"),
    ]
    for name, text, want in cases:
        script(c, name, text)
        p = c.run(["arbor", "batch", name])
        assert p.returncode == 1 and want in p.stderr, (name, p.stderr)
    p = c.run(["arbor", "batch", "/bin/true"])
    assert p.returncode == 1 and "NUL byte" in p.stderr, p.stderr
    p = c.run(["arbor", "batch", "-o", "/root/out-%j", "--wrap", "true"])
    assert p.returncode == 1 and \
        "cannot write the output file '/root/out-%j'" in p.stderr, p.stderr
    p = c.run(["arbor", "batch", "--open-mode=sideways", "--wrap", "true"])
    assert p.returncode == 1 and "--open-mode" in p.stderr, p.stderr
    assert queue_long(c) == {}, "a refused script left a job behind"


def test_files_environment_and_arguments(cluster, test_user):
    c = cluster(2)
    script(c, "env.sh", """#!/bin/bash
#ARBOR --job-name=envjob
#SBATCH -o out/%u-%x-%N-%j.log -e out/%j.err
#SBATCH --open-mode=append
echo "args: $* (0=$0)"
echo "pwd=$PWD umask=$(umask) env=$ENVIRONMENT mine=$MINE"
echo oops >&2
""")
    os.mkdir(os.path.join(c.scratch, "out"))
    os.chmod(os.path.join(c.scratch, "out"), 0o777)
    with open(os.path.join(c.scratch, "out", "keep.err"), "w"):
        pass
    os.chmod(os.path.join(c.scratch, "out", "keep.err"), 0o666)
    # The command line wins over the directives (-e), and the script's
    # arguments follow it.
    p = c.run(["sh", "-c", "umask 027; exec %s batch -W -e out/keep.err "
               "env.sh one 'two words'" % c.arbor],
              env={"MINE": "exported"})
    assert p.returncode == 0, (p.stderr, c.all_logs())
    jid = submitted_id(p)
    log = read(c, "out/%s-envjob-node1-%d.log" % (TEST_USER, jid))
    assert "args: one two words (0=" in log, log
    assert "pwd=%s umask=0027 env=BATCH mine=exported" % c.scratch in log, log
    assert read(c, "out/keep.err") == "oops\n"
    assert not os.path.exists(os.path.join(c.scratch, "out", "%d.err" % jid))
    # Appending: a second run adds to the same file.
    p = c.run(["arbor", "batch", "-W", "--open-mode=append", "-o", "app.out",
               "--wrap", "echo again"])
    p = c.run(["arbor", "batch", "-W", "--open-mode=append", "-o", "app.out",
               "--wrap", "echo again"])
    assert read(c, "app.out") == "again\nagain\n"


def test_stdin_script_and_cancel(cluster, test_user):
    c = cluster(1)
    p = c.run(["arbor", "batch", "-J", "fromstdin", "-o", "stdin.out"],
              input="#!/bin/sh\necho from stdin\nsleep 300\n")
    assert p.returncode == 0, p.stderr
    jid = submitted_id(p)
    wait_for(lambda: os.path.exists(os.path.join(c.scratch, "stdin.out"))
             and read(c, "stdin.out"), 30, "the script to start")
    assert queue_long(c)[jid]["state"] == "RUNNING"
    p = c.run(["arbor", "cancel", str(jid)])
    assert p.returncode == 0, p.stderr
    wait_state(c, jid, "CANCELLED", 30)
    assert not [a for a in proc_args() if "sleep 300" in a]


def proc_args():
    """Command lines (argv joined by spaces) of the tasks' user's
    processes."""
    return [" ".join(argv) + " "
            for argv in proc_cmdlines(task_uid()).values()]


def test_run_umask_and_step_patterns(cluster, test_user):
    c = cluster(2)
    p = c.run(["sh", "-c", "umask 023; exec %s run sh -c umask" % c.arbor])
    assert p.returncode == 0 and p.stdout == "0023\n", (p.stdout, p.stderr)
    p = c.run(["arbor", "run", "-N", "2", "-o", "o.%J.%t", "-J", "pat",
               "echo", "hi"])
    assert p.returncode == 0, p.stderr
    names = sorted(n for n in os.listdir(c.scratch) if n.startswith("o."))
    assert len(names) == 2 and all(re.match(r"o\.\d+\.0\.[01]$", n)
                                   for n in names), names


# ---- arrays, dependencies, holds, begin times, requeue --------------------

def test_array_throttle_and_variables(cluster, test_user):
    c = cluster(4)
    script(c, "arr.sh", """#!/bin/sh
#SBATCH --array=0-9%2 -J arr
echo "$SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT \
$SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_MAX"
echo "start $(date +%s.%N)" >> spans.$SLURM_ARRAY_TASK_ID
sleep 0.4
echo "end $(date +%s.%N)" >> spans.$SLURM_ARRAY_TASK_ID
""")
    p = c.run(["arbor", "batch", "arr.sh"])
    assert p.returncode == 0, p.stderr
    jid = submitted_id(p)
    # -r: each pending task its own line (folded into 5_[2-9] without)
    p = c.run(["arbor", "queue", "-h", "-r", "-j", str(jid), "--sort", "i"])
    ids = [l.split()[0] for l in p.stdout.splitlines()]
    assert ids == ["%d_%d" % (jid, i) for i in range(10)], p.stdout
    assert "(JobArrayTaskLimit)" in p.stdout, p.stdout

    def all_done():
        q = c.run(["arbor", "queue", "-h", "-r", "-t", "all", "-j",
                   str(jid)])
        return q.stdout.count(" CD ") == 10
    wait_for(all_done, 60, "the array to complete")
    spans = []
    for i in range(10):
        out = read(c, "slurm-%d_%d.out" % (jid, i)).split()
        assert out == [str(jid), str(i), "10", "0", "9"], out
        t = dict(l.split() for l in read(c, "spans.%d" % i).splitlines())
        spans.append((float(t["start"]), float(t["end"])))
    for s, _ in spans:  # at no start were more than 2 tasks running
        assert sum(1 for a, b in spans if a <= s < b) <= 2, spans


def test_dependencies(cluster, test_user):
    c = cluster(2)

    def sub(*args):
        p = c.run(["arbor", "batch", "--parsable"] + list(args))
        assert p.returncode == 0, p.stderr
        return int(p.stdout.strip().split(";")[0])
    ok = sub("--wrap", "sleep 1")
    after_ok = sub("-d", "afterok:%d" % ok, "-o", "dep1.out", "--wrap",
                   "echo ran")
    after_notok = sub("-d", "afternotok:%d" % ok, "--wrap", "echo never")
    kept = sub("-d", "afternotok:%d" % ok, "--kill-on-invalid-dep=no",
               "--wrap", "true")
    q = queue_long(c)
    assert q[after_ok]["state"] == "PENDING", q
    wait_state(c, after_ok, "COMPLETED", 30)
    assert read(c, "dep1.out") == "ran\n"
    wait_state(c, after_notok, "CANCELLED", 30)
    p = c.run(["arbor", "queue", "-h", "-t", "all", "-j", str(after_notok)])
    assert "(DependencyNeverSatisfied)" in p.stdout, p.stdout
    assert job_state_and_reason(c, kept) == \
        ("PD", "(DependencyNeverSatisfied)")
    p = c.run(["arbor", "batch", "-d", "afterok:999999", "--wrap", "true"])
    assert p.returncode == 1 and "job 999999 not found" in p.stderr, p.stderr
    p = c.run(["arbor", "batch", "-d", "afterok:5,singleton?after:6",
               "--wrap", "true"])
    assert p.returncode == 1 and "cannot be mixed" in p.stderr, p.stderr
    p = c.run(["arbor", "batch", "--array", "3-1", "--wrap", "true"])
    assert p.returncode == 1 and "invalid --array '3-1'" in p.stderr, p.stderr
    c.run(["arbor", "cancel", str(kept)])


def job_state_and_reason(c, jid):
    p = c.run(["arbor", "queue", "-h", "-t", "all", "-j", str(jid)])
    f = p.stdout.split()
    return f[4], f[-1]


def test_hold_release_and_begin(cluster, test_user):
    c = cluster(1)
    p = c.run(["arbor", "batch", "--parsable", "-H", "--wrap", "true"])
    held = int(p.stdout)
    p = c.run(["arbor", "batch", "--parsable", "--begin", "now+3", "--wrap",
               "true"])
    later = int(p.stdout)
    assert job_state_and_reason(c, held) == ("PD", "(JobHeldUser)")
    assert job_state_and_reason(c, later) == ("PD", "(BeginTime)")
    time.sleep(1)
    assert job_state_and_reason(c, held) == ("PD", "(JobHeldUser)")
    p = c.run(["arbor", "release", str(held)])
    assert p.returncode == 0, p.stderr
    wait_state(c, held, "COMPLETED", 30)
    wait_state(c, later, "COMPLETED", 30)
    # scontrol hold on a pending job, then release; hold on an ended one fails
    p = c.run(["arbor", "batch", "--parsable", "--begin", "now+60", "--wrap",
               "true"])
    j = int(p.stdout)
    scontrol = os.path.join(os.path.dirname(c.arbor), "scontrol")
    assert c.run([scontrol, "hold", str(j)]).returncode == 0
    assert job_state_and_reason(c, j) == ("PD", "(JobHeldUser)")
    p = c.run([scontrol, "hold", str(held)])
    assert p.returncode == 1 and "no longer pending" in p.stderr, p.stderr
    c.run(["arbor", "cancel", str(j)])


def test_requeue_running_job(cluster, test_user):
    c = cluster(1)
    p = c.run(["arbor", "batch", "--parsable", "-o", "rq.out",
               "--open-mode=append", "--wrap",
               "echo run ${SLURM_RESTART_COUNT:-0}; sleep 2"])
    jid = int(p.stdout)
    wait_for(lambda: os.path.exists(os.path.join(c.scratch, "rq.out")), 30,
             "the first run")
    p = c.run(["arbor", "requeue", str(jid)])
    assert p.returncode == 0, p.stderr
    wait_for(lambda: "run 1" in read(c, "rq.out"), 30, "the second run")
    wait_state(c, jid, "COMPLETED", 30)
    # Between the runs, slurmstepd's line saying why the first one ended
    lines = read(c, "rq.out").splitlines()
    assert lines[0] == "run 0" and lines[2] == "run 1", lines
    assert re.fullmatch(r"arbor-stepd: error: \*\*\* JOB %d ON node1 CANCELLED "
                        r"AT \S+ DUE TO JOB REQUEUE \*\*\*" % jid, lines[1]), lines
    p = c.run(["arbor", "requeue", "999999"])
    assert p.returncode == 1 and "Invalid job id" in p.stderr, p.stderr


def test_cancel_after_requeue_ends_the_second_run(cluster, test_user):
    """A requeued job's second run is ended by a cancel like the first:
    the node daemon once answered its JOB_TERMINATE with the first run's
    EPILOG_COMPLETE and left the second run's tasks running on a node
    shown idle (issue 33)."""
    c = cluster(1, KillWait=2)
    p = c.run(["arbor", "batch", "--parsable", "-o", "rq2.out",
               "--open-mode=append", "--wrap",
               "echo run ${SLURM_RESTART_COUNT:-0}; sleep 4243"])
    jid = int(p.stdout)
    out = os.path.join(c.scratch, "rq2.out")
    wait_for(lambda: os.path.exists(out) and "run 0" in read(c, "rq2.out"),
             30, "the first run")
    p = c.run(["arbor", "requeue", str(jid)])
    assert p.returncode == 0, p.stderr
    wait_for(lambda: "run 1" in read(c, "rq2.out"), 30, "the second run")

    def sleepers():
        return [pid for pid, argv in proc_cmdlines(task_uid()).items()
                if argv[:2] == ["sleep", "4243"]]
    wait_for(sleepers, 30, "the second run's sleep")
    p = c.run(["arbor", "cancel", str(jid)])
    assert p.returncode == 0, p.stderr
    wait_state(c, jid, "CANCELLED", 30)
    wait_for(lambda: not sleepers(), 30,
             "the second run's tasks to be ended (%s)" % sleepers())


def test_steps_share_the_allocation(cluster, test_user):
    c = cluster(2, cpus=2)
    script(c, "share.sh", """#!/bin/sh
#SBATCH -N 2 -n 4
start=$(date +%s.%N)
arbor run -N 1 -n 1 -w node1 sleep 2 &
sleep 0.5
arbor run -N 1 -n 1 -w node1 sh -c 'echo second $(date +%s.%N)'
arbor run -N 1 -n 1 -w node1 --overlap sh -c 'echo overlap' &
arbor run -N 1 -n 1 --exact -w node2 sleep 1 &
arbor run -N 1 -n 1 --exact -w node2 sh -c 'echo exact'
wait
arbor queue -s
echo "start $start"
""")
    p = c.run(["arbor", "batch", "-W", "-o", "share.out", "share.sh"],
              env=env_with_path(c))
    assert p.returncode == 0, (p.stderr, c.all_logs())
    out = read(c, "share.out")
    lines = dict(l.split(None, 1) for l in out.splitlines()
                 if l.split()[0] in ("second", "start"))
    # the second step waited for the first's cores on node1
    assert float(lines["second"]) - float(lines["start"]) >= 1.9, out
    assert "step creation temporarily disabled" in out.lower(), out
    assert "overlap" in out and "exact" in out, out


# ---- prolog, epilog ------------------------------------------------------

def prolog_files(c):
    """A Prolog that logs each run and fails on node1 while 'fail1' exists,
    and an Epilog that logs each run, both in the cluster's directory."""
    log = os.path.join(c.dir, "pe.log")
    pro = os.path.join(c.dir, "prolog.sh")
    epi = os.path.join(c.dir, "epilog.sh")
    with open(pro, "w") as f:
        f.write("#!/bin/sh\necho \"prolog $SLURM_JOB_ID $SLURMD_NODENAME "
                "$SLURM_SCRIPT_CONTEXT $(id -u)\" >> %s\n"
                "[ \"$SLURMD_NODENAME\" = node1 ] && [ -e %s/fail1 ] "
                "&& exit 3\nexit 0\n" % (log, c.dir))
    with open(epi, "w") as f:
        f.write("#!/bin/sh\necho \"epilog $SLURM_JOB_ID $SLURMD_NODENAME\" "
                ">> %s\n" % log)
    os.chmod(pro, 0o755)
    os.chmod(epi, 0o755)
    return log, pro, epi


def test_prolog_per_node_and_failure(cluster, test_user, tmp_path):
    d = str(tmp_path)
    os.chmod(d, 0o755)
    log, pro, epi = prolog_files(type("D", (), {"dir": d}))
    c = cluster(2, Prolog=pro, Epilog=epi)
    p = c.run(["arbor", "batch", "-W", "-N", "2", "--wrap",
               "arbor run hostname >/dev/null; arbor run true"],
              env=env_with_path(c))
    assert p.returncode == 0, (p.stderr, c.all_logs())
    jid = submitted_id(p)
    with open(log) as f:
        runs = sorted(l.split()[:4] for l in f if l.split()[1] == str(jid))
    # once per node each, as root (or the daemons' user), in prolog context
    assert runs == [["epilog", str(jid), "node1"], ["epilog", str(jid), "node2"],
                    ["prolog", str(jid), "node1", "prolog_slurmd"],
                    ["prolog", str(jid), "node2", "prolog_slurmd"]], runs


def test_failing_prolog_drains_and_requeues(cluster, test_user, tmp_path):
    d = str(tmp_path)
    os.chmod(d, 0o755)
    log, pro, epi = prolog_files(type("D", (), {"dir": d}))
    open(os.path.join(d, "fail1"), "w").close()
    c = cluster(2, Prolog=pro, Epilog=epi, PrologFlags="Alloc")
    p = c.run(["arbor", "batch", "-W", "-o", "where.out", "--wrap",
               "echo $SLURMD_NODENAME"])
    assert p.returncode == 0, (p.stderr, c.all_logs())
    assert read(c, "where.out") == "node2\n"
    p = c.run(["arbor", "control", "show", "node", "node1"])
    assert "DRAIN" in p.stdout and "Prolog error" in p.stdout, p.stdout
    with open(log) as f:
        lines = f.read()
    assert "prolog 1 node1" in lines and "prolog 1 node2" in lines, lines
    assert "epilog 1 node1" in lines, lines  # the failed node's epilog ran


def test_contain_extern_step_for_the_job(cluster, test_user, tmp_path):
    d = str(tmp_path)
    os.chmod(d, 0o755)
    log, pro, epi = prolog_files(type("D", (), {"dir": d}))
    c = cluster(2, Prolog=pro, Epilog=epi, PrologFlags="Contain")
    p = c.run(["arbor", "batch", "-W", "-N", "2", "-o", "ext.out", "--wrap",
               "arbor queue -s -h; arbor run -N 2 true; sleep 1"],
              env=env_with_path(c))
    assert p.returncode == 0, (p.stderr, c.all_logs())
    jid = submitted_id(p)
    steps = {l.split()[0]: l.split()[-1] for l in read(c, "ext.out").splitlines()}
    assert steps.get("%d.extern" % jid) == "node[1-2]", steps
    assert steps.get("%d.batch" % jid) == "node1", steps
    with open(log) as f:
        runs = sorted(l.split()[0] + " " + l.split()[2] for l in f
                      if l.split()[1] == str(jid))
    assert runs == ["epilog node1", "epilog node2", "prolog node1",
                    "prolog node2"], runs
    p = c.run(["arbor", "queue", "-s", "-h"])
    assert p.stdout.strip() == "", p.stdout  # the extern steps ended too


def test_wait_for_a_whole_array(cluster, test_user):
    c = cluster(2)
    p = c.run(["arbor", "batch", "-W", "--array=0-2", "-o", "/dev/null",
               "--wrap", "sleep 0.$SLURM_ARRAY_TASK_ID; "
               "exit $SLURM_ARRAY_TASK_ID"])
    assert p.returncode == 2, (p.stdout, p.stderr)  # the highest
    jid = submitted_id(p)
    q = c.run(["arbor", "queue", "-h", "-t", "all", "-j", str(jid)])
    states = sorted(l.split()[4] for l in q.stdout.splitlines())
    assert states == ["CD", "F", "F"], q.stdout  # every task was over


def test_distribution_for_the_steps(cluster, test_user):
    """sbatch -m and salloc -m set SLURM_DISTRIBUTION for the steps."""
    c = cluster(2)
    p = c.run(["arbor", "batch", "-W", "-N", "2", "-n", "4", "-m", "cyclic",
               "-o", "dist.out", "--wrap",
               "arbor run -l printenv SLURMD_NODENAME | sort"],
              env=env_with_path(c))
    assert p.returncode == 0, (p.stderr, c.all_logs())
    assert read(c, "dist.out").split("\n")[:4] == \
        ["0: node1", "1: node2", "2: node1", "3: node2"], read(c, "dist.out")
    p = c.run(["arbor", "alloc", "-N", "2", "-n", "4", "-m", "plane=2", "--",
               "sh", "-c", "arbor run -l printenv SLURMD_NODENAME | sort"],
              env=env_with_path(c))
    assert p.stdout.split("\n")[:4] == \
        ["0: node1", "1: node1", "2: node2", "3: node2"], p.stdout
    p = c.run(["arbor", "batch", "-m", "zigzag", "--wrap", "true"])
    assert p.returncode == 1 and "--distribution" in p.stderr, p.stderr
