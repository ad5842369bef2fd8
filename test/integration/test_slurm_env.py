"""Slurm's output environment variables, as docs/environment.md lists them.

A task of "arbor run" (srun's OUTPUT ENVIRONMENT VARIABLES), a batch
script of "arbor batch" (sbatch's) and the command of "arbor alloc"
(salloc's) each print their environment; every variable the table says
Arbor sets is checked, with its value: ids, node names, counts, times.
Steps started inside a batch script and inside arbor alloc get the job's
start and end too.
"""

import os
import re

from test_batch import env_with_path, read, submitted_id

# Each node has 4 CPUs; every job below asks for 4 tasks on 2 nodes.
CPUS = 4
# slurmctld's end for a job without a time limit: a year after its start.
YEAR = 365 * 24 * 3600


def parse_env(text):
    """{name: value} from env's output (values on one line)."""
    out = {}
    for line in text.splitlines():
        k, sep, v = line.partition("=")
        if sep and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k):
            out[k] = v
    return out


def parse_labelled(text):
    """{rank: {name: value}} from "arbor run -l env" output."""
    out = {}
    for line in text.splitlines():
        rank, sep, rest = line.partition(": ")
        if sep and rank.strip().isdigit():
            out.setdefault(int(rank), []).append(rest)
    return {r: parse_env("\n".join(lines)) for r, lines in out.items()}


def job_start(c, jid):
    """Job jid's start in unix seconds, from arbor acct."""
    p = c.run(["arbor", "acct", "-n", "-P", "-X", "-j", str(jid),
               "-o", "Start"], env={"SLURM_TIME_FORMAT": "%s"})
    assert p.returncode == 0, p.stderr
    return int(p.stdout.strip())


def check(env, want, what):
    """Every name in want set to its value (None: must not be set)."""
    bad = []
    for k, v in sorted(want.items()):
        got = env.get(k)
        if got != v:
            bad.append("%s=%r, expected %r" % (k, got, v))
    assert not bad, "%s:\n  %s" % (what, "\n  ".join(bad))


def check_user(env, test_user, what):
    check(env, {"SLURM_JOB_USER": test_user.pw_name,
                "SLURM_JOB_UID": str(test_user.pw_uid),
                "SLURM_JOB_GID": str(test_user.pw_gid)}, what)


def check_times(c, env, jid, limit_s, what):
    start = job_start(c, jid)
    check(env, {"SLURM_JOB_START_TIME": str(start),
                "SLURM_JOB_END_TIME": str(start + limit_s)}, what)


def check_umask_and_prio(env, prio, what):
    assert re.match(r"^0[0-7]{3}$", env.get("SLURM_UMASK", "")), (what, env)
    check(env, {"SLURM_PRIO_PROCESS": str(prio)}, what)


def test_task_environment(cluster, test_user):
    """srun's list: every task of a 2-node, 4-task step."""
    c = cluster(2, cpus=CPUS)
    here = os.uname().nodename
    p = c.run(["nice", "-n", "3", c.arbor, "run", "-N", "2", "-n", "4",
               "-t", "5", "-J", "envjob", "-l", "sh", "-c",
               'echo "PID=$$"; env'])
    assert p.returncode == 0, p.stderr
    tasks = parse_labelled(p.stdout)
    assert sorted(tasks) == [0, 1, 2, 3], p.stdout
    jid = int(tasks[0]["SLURM_JOB_ID"])
    port = tasks[0].get("SLURM_SRUN_COMM_PORT", "")
    host = tasks[0].get("SLURM_SRUN_COMM_HOST", "")
    assert port.isdigit() and int(port) > 0, tasks[0]
    assert re.match(r"^\d+\.\d+\.\d+\.\d+$", host), tasks[0]
    for rank, env in tasks.items():
        node = rank // 2
        what = "task %d" % rank
        check(env, {
            "SLURM_JOB_ID": str(jid), "SLURM_JOBID": str(jid),
            "ARBOR_JOB_ID": str(jid),
            "SLURM_STEP_ID": "0", "SLURM_STEPID": "0",
            "SLURM_PROCID": str(rank), "SLURM_LOCALID": str(rank % 2),
            "SLURM_NODEID": str(node),
            "SLURM_GTIDS": "%d,%d" % (2 * node, 2 * node + 1),
            "SLURM_TASK_PID": env["PID"],
            "SLURM_NTASKS": "4", "SLURM_NPROCS": "4",
            "SLURM_STEP_NUM_TASKS": "4",
            "SLURM_NNODES": "2", "SLURM_STEP_NUM_NODES": "2",
            "SLURM_JOB_NUM_NODES": "2",
            "SLURM_JOB_NODELIST": "node[1-2]", "SLURM_NODELIST": "node[1-2]",
            "SLURM_STEP_NODELIST": "node[1-2]",
            "SLURM_TASKS_PER_NODE": "2(x2)",
            "SLURM_STEP_TASKS_PER_NODE": "2(x2)",
            "SLURM_JOB_CPUS_PER_NODE": "2(x2)",
            "SLURM_CPUS_ON_NODE": "2",
            "SLURM_CPUS_PER_TASK": None,
            "SLURM_DISTRIBUTION": "block",
            "SLURM_JOB_NAME": "envjob",
            "SLURM_JOB_PARTITION": "debug",
            "SLURM_CLUSTER_NAME": "local",
            "SLURMD_NODENAME": "node%d" % (node + 1),
            "SLURM_TOPOLOGY_ADDR": "node%d" % (node + 1),
            "SLURM_TOPOLOGY_ADDR_PATTERN": "node",
            "SLURM_SUBMIT_DIR": c.scratch,
            "SLURM_SUBMIT_HOST": here,
            "SLURM_LAUNCH_NODE_IPADDR": host,
            "SLURM_SRUN_COMM_HOST": host,
            "SLURM_SRUN_COMM_PORT": port,
            "SLURM_STEP_LAUNCHER_PORT": port,
            "SRUN_DEBUG": "3",
        }, what)
        assert env.get("SLURM_MPI_TYPE"), (what, env)
        check_user(env, test_user, what)
        check_umask_and_prio(env, 3, what)
        check_times(c, env, jid, 5 * 60, what)


def test_batch_script_environment(cluster, test_user):
    """sbatch's list: the script, and a step inside it."""
    c = cluster(2, cpus=CPUS)
    here = os.uname().nodename
    p = c.run(["nice", "-n", "2", c.arbor, "batch", "-W", "-N", "2", "-n", "4",
               "-O", "-m", "plane=2", "--mem=64", "--open-mode=append",
               "--export=ALL", "-o", "benv.out", "-J", "benv", "--wrap",
               "env; echo ====; arbor run -N 1 -n 1 printenv "
               "SLURM_JOB_START_TIME SLURM_JOB_END_TIME"],
              env=env_with_path(c))
    assert p.returncode == 0, p.stderr
    jid = submitted_id(p)
    text = read(c, "benv.out")
    script, _, step = text.partition("====\n")
    env = parse_env(script)
    what = "batch script"
    check(env, {
        "SLURM_JOB_ID": str(jid), "SLURM_JOBID": str(jid),
        "ARBOR_JOB_ID": str(jid),
        "SLURM_JOB_NAME": "benv",
        "SLURM_JOB_NODELIST": "node[1-2]", "SLURM_NODELIST": "node[1-2]",
        "SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2",
        "SLURM_NTASKS": "4", "SLURM_NPROCS": "4",
        "SLURM_TASKS_PER_NODE": "2(x2)",
        # -O: CPUs as for one task per node, as Slurm allocates them
        "SLURM_JOB_CPUS_PER_NODE": "1(x2)",
        "SLURM_CPUS_ON_NODE": "1",
        "SLURM_JOB_PARTITION": "debug",
        "SLURM_CLUSTER_NAME": "local",
        "SLURM_MEM_PER_NODE": "64",
        "SLURM_GTIDS": "0", "SLURM_PROCID": "0", "SLURM_LOCALID": "0",
        "SLURM_NODEID": "0",
        "SLURMD_NODENAME": "node1",
        "SLURM_TOPOLOGY_ADDR": "node1",
        "SLURM_TOPOLOGY_ADDR_PATTERN": "node",
        "SLURM_SUBMIT_DIR": c.scratch,
        "SLURM_SUBMIT_HOST": here,
        "SLURM_DISTRIBUTION": "plane",
        "SLURM_DIST_PLANESIZE": "2",
        "SLURM_OVERCOMMIT": "1",
        "SLURM_OPEN_MODE": "a",
        "SLURM_EXPORT_ENV": "ALL",
        "ENVIRONMENT": "BATCH",
        "SLURM_STEP_ID": None,
        "SLURM_STEP_NODELIST": None,
        "SLURM_SRUN_COMM_HOST": None,
    }, what)
    assert env.get("SLURM_TASK_PID", "").isdigit(), env
    check_user(env, test_user, what)
    check_umask_and_prio(env, 2, what)
    # The script and a step inside: the job's start and (unlimited) end.
    check_times(c, env, jid, YEAR, what)
    start = job_start(c, jid)
    assert step.split() == [str(start), str(start + YEAR)], text
    # A dependency is the script's too.
    p = c.run(["arbor", "batch", "-W", "-d", "afterok:%d" % jid, "-o",
               "dep.out", "--wrap", "printenv SLURM_JOB_DEPENDENCY"])
    assert p.returncode == 0, p.stderr
    assert read(c, "dep.out").split() == ["afterok:%d" % jid], \
        read(c, "dep.out")


def test_alloc_environment(cluster, test_user):
    """salloc's list: the command, and a step inside the allocation."""
    c = cluster(2, cpus=CPUS)
    here = os.uname().nodename
    p = c.run(["arbor", "alloc", "-N", "2", "-n", "4",
               "--ntasks-per-node=2", "-t", "7", "--mem-per-cpu=16",
               "-m", "plane=2", "-A", "physics", "-J", "aenv", "--",
               "sh", "-c", "env; echo ====; arbor run -N 1 -n 1 printenv "
               "SLURM_JOB_START_TIME SLURM_JOB_END_TIME SLURM_SUBMIT_HOST "
               "SLURM_JOB_ACCOUNT"], env=env_with_path(c))
    assert p.returncode == 0, p.stderr
    script, _, step = p.stdout.partition("====\n")
    env = parse_env(script)
    jid = int(env["SLURM_JOB_ID"])
    what = "arbor alloc's command"
    check(env, {
        "SLURM_JOB_ID": str(jid), "SLURM_JOBID": str(jid),
        "ARBOR_JOB_ID": str(jid),
        "SLURM_JOB_NAME": "aenv",
        "SLURM_JOB_NODELIST": "node[1-2]", "SLURM_NODELIST": "node[1-2]",
        "SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2",
        "SLURM_NTASKS": "4", "SLURM_NPROCS": "4",
        "SLURM_NTASKS_PER_NODE": "2",
        "SLURM_TASKS_PER_NODE": "2(x2)",
        "SLURM_JOB_CPUS_PER_NODE": "2(x2)",
        "SLURM_JOB_PARTITION": "debug",
        "SLURM_JOB_ACCOUNT": "physics",
        "SLURM_CLUSTER_NAME": "local",
        "SLURM_MEM_PER_CPU": "16",
        "SLURM_OVERCOMMIT": None,
        "SLURM_DISTRIBUTION": "plane",
        "SLURM_DIST_PLANESIZE": "2",
        "SLURM_SUBMIT_DIR": c.scratch,
        "SLURM_SUBMIT_HOST": here,
        "SLURM_CPUS_PER_TASK": None,
        "SLURM_STEP_ID": None,
    }, what)
    check_times(c, env, jid, 7 * 60, what)
    # The step inherits the allocation's values.
    assert step.split() == [env["SLURM_JOB_START_TIME"],
                            env["SLURM_JOB_END_TIME"], here, "physics"], \
        p.stdout


def test_alloc_counts_without_tasks(cluster, test_user):
    """Without -n: as many tasks per node as the CPUs hold (-c each)."""
    c = cluster(2, cpus=CPUS)
    p = c.run(["arbor", "alloc", "-N", "2", "-c", "2", "--exclusive",
               "--", "env"])
    assert p.returncode == 0, p.stderr
    env = parse_env(p.stdout)
    check(env, {
        "SLURM_JOB_CPUS_PER_NODE": "%d(x2)" % CPUS,
        "SLURM_TASKS_PER_NODE": "%d(x2)" % (CPUS // 2),
        "SLURM_CPUS_PER_TASK": "2",
        "SLURM_NTASKS": None,
        "SLURM_JOB_END_TIME": str(int(env["SLURM_JOB_START_TIME"]) + YEAR),
    }, "arbor alloc -N 2 -c 2 --exclusive")


def test_cpus_per_task_whenever_given(cluster, test_user):
    """SLURM_CPUS_PER_TASK whenever -c is given, also -c 1, and only
    then: srun's tasks, salloc's command, sbatch's script."""
    c = cluster(1, cpus=CPUS)
    show = "printenv SLURM_CPUS_PER_TASK || echo unset"
    for args, want in ((["-c", "1"], "1"), (["-c", "2"], "2"), ([], "unset")):
        p = c.run(["arbor", "run"] + args + ["sh", "-c", show])
        assert p.stdout == want + "\n", (args, p.stdout, p.stderr)
        p = c.run(["arbor", "alloc"] + args + ["--", "sh", "-c", show])
        assert p.stdout == want + "\n", (args, p.stdout, p.stderr)
        p = c.run(["arbor", "batch", "-W", "-o", "cpt.out"] + args
                  + ["--wrap", show])
        assert p.returncode == 0, p.stderr
        assert read(c, "cpt.out") == want + "\n", args
    # A step inside a job without -c: none, even from a job that had it.
    p = c.run(["arbor", "alloc", "-c", "1", "--", "sh", "-c",
               "unset SLURM_CPUS_PER_TASK; arbor run sh -c '%s'" % show],
              env=env_with_path(c))
    assert p.stdout == "unset\n", p.stdout


def test_batch_ntasks_from_nodes(cluster, test_user):
    """sbatch -N 2 --ntasks-per-node=2 without -n: SLURM_NTASKS and
    SLURM_NPROCS are 4, as sbatch derives them."""
    c = cluster(2, cpus=CPUS)
    p = c.run(["arbor", "batch", "-W", "-N", "2", "--ntasks-per-node=2",
               "-o", "nt.out", "--wrap",
               "printenv SLURM_NTASKS SLURM_NPROCS SLURM_NTASKS_PER_NODE"])
    assert p.returncode == 0, p.stderr
    assert read(c, "nt.out").split() == ["4", "4", "2"]
