"""Slurm's submission options as a Slurm user types them (issue 33):
aliases and abbreviations, the one message naming every option Arbor
does not support, -N MIN-MAX, --comment/--time-min/--mincpus/--tmp shown
by scontrol (and --comment by squeue, its text and --json), -M, --test-only and --hold for srun/salloc/sbatch, srun's
-i FILE and -o/-e task-id forms, srun -v's lines and "srun:" messages.
Compared with what srun(1), salloc(1) and sbatch(1) document.
"""

import json
import os
import re
import time

from test_batch import script
from test_cancel import wait_for


def slurm(c, name):
    """The build's Slurm-named link ("srun", "sbatch"...)."""
    return os.path.join(os.path.dirname(c.arbor), name)


def show_job(c, jid):
    p = c.run(["arbor", "control", "show", "job", str(jid)])
    assert p.returncode == 0, p.stderr
    return p.stdout


def queue_ids(c):
    p = c.run(["arbor", "queue", "-h", "-o", "%i"])
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_aliases_abbreviations_and_unsupported(cluster):
    c = cluster(2)
    srun = slurm(c, "srun")
    p = c.run([srun, "--tasks-per-node=1", "-N2", "--ntasks-per-n=1",
               "hostname"])
    assert p.returncode == 0 and len(p.stdout.split()) == 2, p.stderr
    p = c.run([srun, "--mem-p=1", "true"])
    assert p.returncode == 1
    assert "'--mem-p' is ambiguous; possibilities: '--mem-per-cpu'" \
        in p.stderr, p.stderr
    # Every unsupported option named at once; nothing submitted.
    p = c.run([srun, "--switches=1", "--reservation=r", "--wckey=w", "-N1",
               "touch", "ran"])
    assert p.returncode == 1
    assert p.stderr.startswith("srun: error: not supported by Arbor: "
                               "--reservation, --wckey, --switches (see "
                               "arbor-slurm(7))"), p.stderr
    assert "unrecognized" not in p.stderr
    assert not os.path.exists(os.path.join(c.scratch, "ran"))
    # The same from #SBATCH lines.
    path = script(c, "net.sh", "#!/bin/sh\n#SBATCH --network=x\n"
                  "#SBATCH --reservation=r1\ntrue\n")
    p = c.run([slurm(c, "sbatch"), path])
    assert p.returncode == 1
    assert "not supported by Arbor: --reservation, --network" in p.stderr, \
        p.stderr
    assert queue_ids(c) == []
    # A truly unknown option stays "unrecognized".
    p = c.run([srun, "--no-such-option", "true"])
    assert p.returncode == 1
    assert "srun: unrecognized option '--no-such-option'" in p.stderr


def test_node_range_takes_what_is_free(cluster):
    c = cluster(4)
    srun = slurm(c, "srun")
    # No -n: one task per node of what the range got, all 3 free.
    p = c.run([srun, "-N", "1-3", "printenv", "SLURM_JOB_NUM_NODES"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["3", "3", "3"]
    # -n 2 caps the nodes at 2.
    p = c.run([srun, "-N", "2-4", "-n", "2", "printenv",
               "SLURM_JOB_NUM_NODES"])
    assert p.stdout.split() == ["2", "2"], p.stderr
    # With two nodes busy, a 2-4 range starts at once on the other two.
    busy = c.popen(["arbor", "run", "-N2", "--exclusive", "sleep", "30"])
    try:
        wait_for(lambda: len(queue_ids(c)) == 1, 20, "a queued job")
        p = c.run([srun, "-N", "2-4", "--exclusive", "printenv",
                   "SLURM_JOB_NUM_NODES"], timeout=20)
        assert p.stdout.split() == ["2", "2"], p.stderr
    finally:
        busy.kill()
        busy.wait()
    # A pending range shows as scontrol shows it.
    p = c.run([slurm(c, "sbatch"), "--parsable", "-H", "-N", "2-3",
               "-o", "/dev/null", "--wrap", "true"])
    jid = int(p.stdout)
    assert "NumNodes=2-3 " in show_job(c, jid)
    p = c.run([srun, "-N", "3-2", "true"])
    assert p.returncode == 1 and "invalid --nodes '3-2'" in p.stderr


def test_kept_and_shown_by_scontrol(cluster):
    c = cluster(2)
    p = c.run([slurm(c, "sbatch"), "--parsable", "-H", "-o", "/dev/null",
               "--comment=nightly run", "-t", "30", "--time-min=10",
               "--mincpus=2", "--tmp=100", "--hint=nomultithread",
               "--ntasks-per-core=1", "--cpu-freq=high", "--get-user-env",
               "--wrap", "true"])
    assert p.returncode == 0, p.stderr
    text = show_job(c, int(p.stdout))
    assert "Comment=nightly run\n" in text
    assert "TimeLimit=00:30:00 TimeMin=00:10:00" in text
    assert "MinCPUsNode=2 " in text and "MinTmpDiskNode=100M" in text
    # --mincpus: the job holds that many cores on its node.
    p = c.run([slurm(c, "srun"), "-n1", "--mincpus=3", "printenv",
               "SLURM_JOB_CPUS_PER_NODE"])
    assert p.stdout.strip() == "3", p.stderr
    # --tmp beyond every node's TmpDisk (arbor local: the size of /tmp).
    p = c.run([slurm(c, "srun"), "--tmp=1000000T", "true"])
    assert p.returncode == 1
    assert "Requested node configuration is not available" in p.stderr
    # -M names this cluster, or nothing runs.
    p = c.run([slurm(c, "srun"), "-M", "local", "true"])
    assert p.returncode == 0, p.stderr
    p = c.run([slurm(c, "srun"), "-M", "other", "true"])
    assert p.returncode == 1
    assert "Invalid cluster name(s) 'other'" in p.stderr


def test_comment_shown_by_squeue(cluster, test_user):
    """squeue shows a job's --comment as Slurm's does: %k and -O Comment
    ("(null)" without one), and "comment" in --json ("" without one), to
    the user who submitted the jobs."""
    c = cluster(1)
    user = test_user.pw_name
    ids = []
    for extra in (["--comment=nightly run"], []):
        p = c.run([slurm(c, "sbatch"), "--parsable", "-H", "-o", "/dev/null"]
                  + extra + ["--wrap", "true"], user=user)
        assert p.returncode == 0, p.stderr
        ids.append(int(p.stdout))
    noted, plain = ids
    p = c.run([slurm(c, "squeue"), "-h", "-o", "%i|%k"], user=user)
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == sorted(
        ["%d|nightly run" % noted, "%d|(null)" % plain]), p.stdout
    p = c.run([slurm(c, "squeue"), "-O", "JobID:8,Comment:16"], user=user)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["JOBID", "COMMENT"], p.stdout
    assert "%-8dnightly run     " % noted in lines[1:], p.stdout
    p = c.run([slurm(c, "squeue"), "--json"], user=user)
    assert p.returncode == 0, p.stderr
    jobs = {j["job_id"]: j for j in json.loads(p.stdout)["jobs"]}
    assert jobs[noted]["comment"] == "nightly run", jobs[noted]
    assert jobs[plain]["comment"] == "", jobs[plain]
    assert c.run(["arbor", "cancel", str(noted), str(plain)]).returncode == 0


def test_comment_in_sacct_json_and_across_restart(cluster, test_user):
    """A job's --comment is one attribute of its record: kept across a
    controller restart, shown by scontrol show job (text and --json), and
    by sacct -o Comment (and its --json) once the job is over."""
    c = cluster(1)
    user = test_user.pw_name
    p = c.run([slurm(c, "sbatch"), "--parsable", "-H", "-o", "/dev/null",
               "--comment=sweep 7", "--wrap", "true"], user=user)
    assert p.returncode == 0, p.stderr
    jid = int(p.stdout)
    c.restart("ctld")
    assert "Comment=sweep 7" in show_job(c, jid)
    p = c.run(["arbor", "control", "--json", "show", "job", str(jid)],
              user=user)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["jobs"][0]["comment"] == "sweep 7", p.stdout
    assert c.run([slurm(c, "scontrol"), "release", str(jid)],
                 user=user).returncode == 0

    def accounted():
        p = c.run([slurm(c, "sacct"), "-j", str(jid), "-X", "-P", "-n", "-o",
                   "JobID,State,Comment"], user=user)
        return p.returncode == 0 and p.stdout.strip().startswith(
            "%d|COMPLETED" % jid) and p.stdout.strip()
    assert wait_for(accounted, 60, "job %d accounted" % jid) \
        == "%d|COMPLETED|sweep 7" % jid
    p = c.run(["arbor", "acct", "--json", "-j", str(jid), "-X"], user=user)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["jobs"][0]["comment"] == "sweep 7", p.stdout


def test_test_only_submits_nothing(cluster):
    c = cluster(2)
    pat = (r"^%s: Job (\d+) to start at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d "
           r"using (\d+) processors on nodes (\S+) in partition debug$")
    for cmd, extra in (("sbatch", ["--wrap", "true"]), ("srun", ["true"]),
                       ("salloc", ["true"])):
        p = c.run([slurm(c, cmd), "--test-only", "-N2", "-n4"] + extra)
        assert p.returncode == 0, p.stderr
        m = re.match(pat % cmd, p.stderr.strip())
        assert m, p.stderr
        assert m.group(2) == "4" and m.group(3) == "node[1-2]"
    assert queue_ids(c) == []
    # Behind a running job: a later start, the nodes not known yet.
    busy = c.popen(["arbor", "run", "-N2", "--exclusive", "-t", "5",
                    "sleep", "60"])
    try:
        wait_for(lambda: len(queue_ids(c)) == 1, 20, "a queued job")
        p = c.run([slurm(c, "sbatch"), "--test-only", "-N2", "--wrap",
                   "true"])
        m = re.match(r"^sbatch: Job \d+ to start at (\S+) using 2 "
                     r"processors in partition debug$", p.stderr.strip())
        assert m, p.stderr
        when = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
        assert when > time.time() + 200
    finally:
        busy.kill()
        busy.wait()
    # What a submission would be refused for, refused the same.
    p = c.run([slurm(c, "srun"), "--test-only", "-N3", "true"])
    assert p.returncode == 1 and "Job submission failed" in p.stderr


def test_srun_hold(cluster):
    c = cluster(1)
    p = c.popen([slurm(c, "srun"), "-H", "touch", "held_ran"])
    try:
        wait_for(lambda: len(queue_ids(c)) == 1, 20, "a queued job")
        jid = queue_ids(c)[0]
        time.sleep(1)
        assert "Reason=JobHeldUser" in show_job(c, jid)
        assert not os.path.exists(os.path.join(c.scratch, "held_ran"))
        assert c.run(["arbor", "release", jid]).returncode == 0
        assert p.wait(timeout=30) == 0
    finally:
        if p.poll() is None:
            p.kill()
    assert os.path.exists(os.path.join(c.scratch, "held_ran"))


def test_srun_io_modes(cluster):
    c = cluster(2)
    srun = slurm(c, "srun")
    for t in range(2):
        script(c, "in.%d" % t, "line of task %d\n" % t)
    p = c.run([srun, "-n2", "-l", "-i", "in.%t", "cat"])
    assert sorted(p.stdout.splitlines()) == ["0: line of task 0",
                                             "1: line of task 1"], p.stderr
    p = c.run([srun, "-n3", "-o", "1", "sh", "-c", "echo $SLURM_PROCID"])
    assert p.stdout.split() == ["1"], p.stderr
    p = c.run([srun, "-n2", "-o", "none", "hostname"])
    assert p.returncode == 0 and p.stdout == "", p.stderr
    p = c.run([srun, "-n2", "-e", "0", "sh", "-c",
               "echo err$SLURM_PROCID >&2"])
    assert p.stderr.split() == ["err0"], p.stderr
    # A missing input file fails the task, as on Slurm's node.
    p = c.run([srun, "-n1", "-i", "nosuchfile", "cat"])
    assert p.returncode != 0


def test_srun_verbose_and_message_prefix(cluster):
    c = cluster(2)
    p = c.run([slurm(c, "srun"), "-v", "-N2", "-n5", "true"])
    assert p.returncode == 0, p.stderr
    m = re.search(r"^srun: jobid (\d+): nodes\(2\):`node\[1-2\]', "
                  r"cpu counts: 3,2$", p.stderr, re.M)
    assert m, p.stderr
    jid = m.group(1)
    assert ("srun: launching StepId=%s.0 on host node1, 3 tasks: [0-2]"
            % jid) in p.stderr
    assert ("srun: launching StepId=%s.0 on host node2, 2 tasks: [3-4]"
            % jid) in p.stderr
    p = c.run([slurm(c, "srun"), "-n1", "false"])
    assert p.returncode == 1
    assert "srun: error: node1: task 0: Exited with exit code 1" \
        in p.stderr, p.stderr
    p = c.run(["arbor", "run", "-n1", "false"])
    assert "arbor: error: node1: task 0: Exited with exit code 1" \
        in p.stderr, p.stderr


def test_slurmstepd_banner_under_slurm_names(cluster):
    """What a job's output says when it is cancelled: slurmstepd's line
    when submitted as sbatch/srun, arbor-stepd's as arbor batch/run."""
    c = cluster(1)
    out = {}
    for cmd, name in ((slurm(c, "sbatch"), "s.out"),
                      ("arbor", "a.out")):
        args = [cmd, "batch"] if cmd == "arbor" else [cmd]
        p = c.run(args + ["--parsable", "-o", name, "--wrap",
                          "echo up; sleep 60"])
        assert p.returncode == 0, p.stderr
        jid = int(p.stdout)
        path = os.path.join(c.scratch, name)
        wait_for(lambda: os.path.exists(path) and "up" in open(path).read(),
                 30, "the script to start")
        assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
        wait_for(lambda: "CANCELLED AT" in open(path).read(), 30,
                 "the banner")
        out[name] = (jid, open(path).read())
    jid, text = out["s.out"]
    assert re.search(r"^slurmstepd: error: \*\*\* JOB %d ON node1 CANCELLED "
                     r"AT \S+ \*\*\*$" % jid, text, re.M), text
    jid, text = out["a.out"]
    assert re.search(r"^arbor-stepd: error: \*\*\* JOB %d ON node1 "
                     r"CANCELLED AT " % jid, text, re.M), text
