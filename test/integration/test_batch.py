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

from arbor_cluster import TEST_USER
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
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    out.append(f.read().replace(b"\0", b" ").decode())
            except OSError:
                pass
    return out


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
