"""scontrol show (arbor control show): job (pending, running, ended; batch
or not), step, node, partition and config in scontrol's layout (a first
line, the rest indented three spaces, a blank line after each record; -o
one line per record), -d, --json validated against the shipped schemas,
show hostnames / hostlist, ping (UP, then DOWN once the controller is
gone), and scontrol's errors for what does not exist.
"""

import json
import os
import re

from jsonschema import Draft202012Validator

from test_batch import batch, submitted_id
from test_cancel import finish, start, wait_for, wait_state

SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "docs", "schema")


def control(c, *args, user=None):
    return c.run(["arbor", "control"] + list(args), user=user)


def records(text):
    """The records of show's text, each checked for scontrol's layout:
    a first line, then lines indented three spaces, then a blank line.
    Each as {KEY: value} (a value runs up to the next ' KEY=')."""
    assert text.endswith("\n\n"), repr(text[-200:])
    out = []
    for block in text[:-2].split("\n\n"):
        lines = block.split("\n")
        assert not lines[0].startswith(" "), block
        for line in lines[1:]:
            assert line.startswith("   ") and line[3] != " ", (line, block)
        out.append(fields(" ".join(l.strip() for l in lines)))
    return out


def fields(line):
    keys = list(re.finditer(r"(?:^| )([A-Za-z][A-Za-z0-9_/:]*)=", line))
    rec = {}
    for k, m in enumerate(keys):
        end = keys[k + 1].start() if k + 1 < len(keys) else len(line)
        rec[m.group(1)] = line[m.end():end]
    return rec


def show(c, *args, user=None):
    p = control(c, "show", *args, user=user)
    assert p.returncode == 0, (args, p.stdout, p.stderr)
    return records(p.stdout)


def show_one(c, *args):
    recs = show(c, *args)
    assert len(recs) == 1, recs
    return recs[0]


def oneliner(c, *args):
    """show -o: one line per record, the same keys and values."""
    p = control(c, "-o", "show", *args)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert p.stdout.endswith("\n") and "" not in lines, p.stdout
    return [fields(l) for l in lines]


def json_doc(c, kind, *args):
    """show --json, validated against docs/schema/arbor.control.KIND."""
    p = control(c, "--json", "show", kind, *args)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    with open(os.path.join(SCHEMAS, "arbor.control.%s.schema.json"
                           % kind)) as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema).validate(doc)
    assert doc["schema"] == "arbor.control." + kind and doc["version"] == 1
    return doc


TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
DURATION = re.compile(r"^(\d+-)?\d\d:\d\d:\d\d$")


def test_show_jobs_and_steps(cluster, test_user):
    c = cluster(2, cpus=2)
    uid, gid = test_user.pw_uid, test_user.pw_gid
    # ended: a batch job (exit 0) and an allocation whose task exits 3
    done = submitted_id(c.run(["arbor", "batch", "-W", "-o", "/dev/null",
                               "--wrap", "true"]))
    p = c.run(["arbor", "run", "-J", "three", "sh", "-c", "exit 3"])
    assert p.returncode == 3, p.stderr
    # running: a batch job on node1, an allocation with step 0 on node2
    run = submitted_id(c.run(["arbor", "batch", "-J", "runner", "-w", "node1",
                              "-t", "10", "-o", "out-%j.txt", "--wrap",
                              "sleep 300"]))
    wait_state(c, run, "RUNNING", 30)
    srun = start(c, ["arbor", "run", "-J", "step", "-w", "node2", "-t", "5",
                     "sleep", "301"])
    jobs = [run]
    try:
        alloc = wait_for(lambda: [r["JobId"] for r in show(c, "job")
                                  if r["JobName"] == "step"
                                  and r["JobState"] == "RUNNING"
                                  and r["RunningSteps"] == "1"],
                         30, "the allocation to run")[0]
        alloc = int(alloc)
        jobs.append(alloc)
        # pending: needs every CPU
        pend = batch(c, "-J", "waiter", "-N", "2", "-n", "4", "-t", "7",
                     "--wrap", "true")
        jobs.append(pend)
        wait_state(c, pend, "PENDING", 30)
        check_jobs(c, uid, gid, done, run, alloc, pend)
        check_steps(c, uid, run, alloc)
        # a suspended job says so
        p = control(c, "suspend", str(run), user="root")
        assert p.returncode == 0, p.stderr
        assert show_one(c, "job", str(run))["JobState"] == "SUSPENDED"
        assert json_doc(c, "job", str(run))["jobs"][0]["state"] == \
            "SUSPENDED"
        assert control(c, "resume", str(run), user="root").returncode == 0
        assert show_one(c, "job", str(run))["JobState"] == "RUNNING"
    finally:
        c.run(["arbor", "cancel"] + [str(j) for j in jobs])
        finish(srun, 60)


def check_jobs(c, uid, gid, done, run, alloc, pend):
    jobs = {int(r["JobId"]): r for r in show(c, "job")}
    assert {done, run, alloc, pend} <= set(jobs), jobs.keys()
    # every record carries scontrol's keys, in scontrol's order
    for r in jobs.values():
        keys = list(r)
        for a, b in (("JobId", "UserId"), ("UserId", "JobState"),
                     ("JobState", "RunTime"), ("RunTime", "SubmitTime"),
                     ("SubmitTime", "Partition"), ("NodeList", "NumNodes"),
                     ("NumNodes", "Command"), ("WorkDir", "Power")):
            assert keys.index(a) < keys.index(b), (a, b, keys)
        assert TIME.match(r["SubmitTime"]), r
        assert DURATION.match(r["RunTime"]), r
    r = jobs[run]
    assert r["JobName"] == "runner" and r["JobState"] == "RUNNING"
    assert r["UserId"] == "%s(%d)" % (r["UserId"].split("(")[0], uid)
    assert r["GroupId"].endswith("(%d)" % gid)
    assert r["Reason"] == "None" and r["ExitCode"] == "0:0"
    assert r["BatchFlag"] == "1" and r["Restarts"] == "0"
    assert r["TimeLimit"] == "00:10:00" and r["Partition"] == "debug"
    assert r["NodeList"] == "node1" and r["BatchHost"] == "node1"
    assert r["NumNodes"] == "1" and r["NumCPUs"] == "1"
    assert r["StdOut"] == os.path.join(c.scratch, "out-%d.txt" % run), r
    assert r["StdErr"] == r["StdOut"] and r["StdIn"] == "/dev/null"
    assert TIME.match(r["StartTime"]) and TIME.match(r["EndTime"]), r
    assert r["RunningSteps"] == "1" and "Steps" not in r
    r = jobs[alloc]
    assert r["BatchFlag"] == "0" and r["NodeList"] == "node2"
    assert "StdOut" not in r and "StdErr" not in r and r["Command"]
    r = jobs[pend]
    assert r["JobState"] == "PENDING" and r["Reason"] == "Resources", r
    assert r["NodeList"] == "(null)" and "BatchHost" not in r
    assert r["NumNodes"] == "2" and r["NumTasks"] == "4"
    assert r["RunTime"] == "00:00:00" and r["TimeLimit"] == "00:07:00"
    r = jobs[done]
    assert r["JobState"] == "COMPLETED" and r["ExitCode"] == "0:0", r
    assert TIME.match(r["EndTime"]), r
    three = [j for j in jobs.values() if j["JobName"] == "three"]
    assert len(three) == 1 and three[0]["ExitCode"] == "3:0", three
    assert three[0]["JobState"] == "FAILED", three

    # one job; -o; -d lists its steps
    # (RunTime counts on between the two calls: a second may pass)
    one = show_one(c, "job", str(run))
    assert dict(one, RunTime=None) == dict(jobs[run], RunTime=None), one
    ones = oneliner(c, "job", str(run))
    assert [dict(r, RunTime=None) for r in ones] == \
        [dict(jobs[run], RunTime=None)], ones
    d = records(control(c, "-d", "show", "job", str(run)).stdout)[0]
    assert d["RunningSteps"] == "1" and d["Steps"] == "%d.batch" % run, d

    doc = json_doc(c, "job")
    byid = {j["job_id"]: j for j in doc["jobs"]}
    j = byid[run]
    assert j["state"] == "RUNNING" and j["batch"] and j["uid"] == uid
    assert j["nodelist"] == "node1" and j["time_limit_minutes"] == 10
    assert j["std_out"] == jobs[run]["StdOut"] and j["end_time"] is None
    assert byid[alloc]["std_out"] is None and not byid[alloc]["batch"]
    assert byid[pend]["start_time"] is None and byid[pend]["nnodes"] == 2
    assert byid[done]["exit_code"] == {"status": 0, "signal": 0}
    one = json_doc(c, "job", str(pend))
    assert [j["job_id"] for j in one["jobs"]] == [pend]


def check_steps(c, uid, run, alloc):
    steps = {r["StepId"]: r for r in show(c, "step")}
    assert {"%d.batch" % run, "%d.0" % alloc} <= set(steps), steps.keys()
    s = steps["%d.0" % alloc]
    assert s["UserId"] == str(uid) and s["State"] == "RUNNING"
    assert s["NodeList"] == "node2" and s["Nodes"] == "1"
    assert s["Tasks"] == "1" and s["Name"] == "step", s
    assert TIME.match(s["StartTime"]) and s["TRES"].startswith("cpu=")
    assert show_one(c, "step", "%d.0" % alloc) == s
    assert [r["StepId"] for r in show(c, "step", str(run))] == \
        ["%d.batch" % run]
    assert oneliner(c, "step", "%d.0" % alloc) == [s]
    doc = json_doc(c, "step", str(alloc))
    assert [(x["id"], x["step"], x["step_id"], x["nodelist"])
            for x in doc["steps"]] == [("%d.0" % alloc, "0", 0, "node2")]


def test_show_nodes_partitions_config(cluster, test_user):
    c = cluster(2, cpus=2, PartitionName="short Nodes=node2 MaxTime=30",
                KillWait="7")
    nodes = show(c, "node", user=test_user.pw_name)
    assert [n["NodeName"] for n in nodes] == ["node1", "node2"]
    n = nodes[0]
    assert n["State"] == "IDLE" and n["CPUTot"] == "2" and n["CPUAlloc"] == "0"
    assert n["NodeAddr"] == "127.0.1.1" and n["Partitions"] == "debug"
    assert nodes[1]["Partitions"] == "debug,short"
    assert "CpuSpeed" not in n and "Reason" not in n
    assert show_one(c, "node", "node1") == n
    assert oneliner(c, "node", "node1") == [n]
    p = control(c, "-o", "show", "node", "node1")
    assert p.stdout.startswith("NodeName=node1 State=IDLE "), p.stdout
    d = records(control(c, "-d", "show", "node", "node2").stdout)[0]
    assert d["CpuSpeed"] == "1"
    # a reason says who set it and when
    p = control(c, "update", "NodeName=node2", "State=DRAIN",
                "Reason=fan noise", user="root")
    assert p.returncode == 0, p.stderr
    r = show_one(c, "node", "node2")
    assert re.match(r"^fan noise \[root@\d{4}-\d\d-\d\dT[\d:]{8}\]$",
                    r["Reason"]), r
    assert r["State"] == "DRAIN"
    doc = json_doc(c, "node")
    assert [x["name"] for x in doc["nodes"]] == ["node1", "node2"]
    x = doc["nodes"][1]
    assert x["reason"] == "fan noise" and x["reason_user"] == "root"
    assert x["reason_uid"] == 0 and x["state"] == "DRAIN" and x["responding"]
    assert x["partitions"] == ["debug", "short"] and x["cpus"] == 2

    parts = {q["PartitionName"]: q for q in show(c, "partition")}
    assert set(parts) == {"debug", "short"}
    q = parts["debug"]
    assert q["Default"] == "YES" and q["State"] == "UP"
    assert q["Nodes"] == "node[1-2]" and q["TotalNodes"] == "2"
    assert q["TotalCPUs"] == "4" and q["MaxTime"] == "UNLIMITED"
    assert parts["short"]["MaxTime"] == "00:30:00"
    assert parts["short"]["Default"] == "NO"
    assert show_one(c, "partition", "short") == parts["short"]
    assert oneliner(c, "partition", "short") == [parts["short"]]
    doc = json_doc(c, "partition", "short")
    assert doc["partitions"] == [{
        "name": "short", "default": False, "state": "UP",
        "max_time_minutes": 30, "default_time_minutes": 30,
        "nodes": "node2", "total_cpus": 2, "total_nodes": 1,
        "priority_tier": 1, "priority_job_factor": 1}]

    p = control(c, "show", "config")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("Configuration data as of ")
    conf = dict(re.match(r"^(\S+) +=( .*|)$", l).groups() for l in lines[1:])
    conf = {k: v.strip() for k, v in conf.items()}
    with open(c.conf) as f:
        port = re.search(r"(?im)^(?:Ctld|Slurmctld)Port=(\d+)", f.read())
    assert conf["SlurmctldPort"] == port.group(1), conf
    assert conf["KillWait"] == "7 sec" and conf["ClusterName"]
    assert conf["ControlAddr"] == "127.0.0.1"
    assert list(conf) == sorted(conf, key=str.lower)


def test_hosts_ping_and_errors(cluster, test_user):
    c = cluster(1)
    p = control(c, "show", "hostnames", "node[1-3]")
    assert p.returncode == 0 and p.stdout == "node1\nnode2\nnode3\n", p
    p = control(c, "show", "hostlist", "node1,node2,node3")
    assert p.returncode == 0 and p.stdout == "node[1-3]\n", p
    p = c.run(["arbor", "control", "show", "hostnames"],
              env={"SLURM_JOB_NODELIST": "n[08-09]"})
    assert p.stdout == "n08\nn09\n", p
    p = control(c, "ping")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "Slurmctld(primary) at 127.0.0.1 is UP\n", p.stdout

    cases = [
        (("show", "job", "4242"), "",
         "slurm_load_jobs error: Invalid job id specified\n"),
        (("show", "job", "x1"), "",
         "slurm_load_jobs error: Invalid job id specified\n"),
        (("show", "job", "0"), "",
         "slurm_load_jobs error: Invalid job id specified\n"),
        (("show", "step", "4242.0"), "Job step 4242.0 not found\n", ""),
        (("show", "node", "node9"), "Node node9 not found\n", ""),
        (("show", "partition", "nosuch"), "Partition nosuch not found\n", ""),
        (("--json", "show", "node", "node9"), "Node node9 not found\n", ""),
        (("show", "widgets"), "", "invalid entity: widgets"),
        (("show",), "", "too few arguments"),
        (("show", "job", "1", "2"), "", "too many arguments"),
        (("--json", "show", "config"), "", "no JSON document"),
        (("show", "hostlist", "node[3-1"), "", "Invalid hostlist"),
    ]
    for args, out, err in cases:
        p = control(c, *args)
        assert p.returncode == 1, (args, p.stdout, p.stderr)
        assert p.stdout == out, (args, p.stdout)
        assert err in p.stderr and (err or p.stderr == ""), (args, p.stderr)
    # nothing to list is no error
    p = control(c, "show", "job")
    assert p.returncode == 0 and p.stdout == "No jobs in the system\n"
    p = control(c, "show", "step")
    assert p.returncode == 0 and p.stdout == "No job steps in the system\n"
    assert json_doc(c, "job")["jobs"] == []

    c.stop()
    p = control(c, "ping")
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert p.stdout == "Slurmctld(primary) at 127.0.0.1 is DOWN\n", p.stdout


def test_options_anywhere_and_pending_array(cluster, test_user):
    """Options may follow the command's words, as scontrol takes them
    ("show job 5 -d", "show nodes -oF"); -F and -a change nothing (no
    node is FUTURE in Arbor); a pending array is one record with its tasks
    as a range (ArrayTaskId=1-7) until they start, a started task its
    own, as scontrol shows them; a task named alone is its own record."""
    c = cluster(2, cpus=1)
    arr = batch(c, "-J", "arr", "-w", "node1", "--array", "0-7", "--wrap",
                "sleep 60")
    task0 = "%d_0" % arr
    wait_for(lambda: show_one(c, "job", task0)["JobState"] == "RUNNING", 30,
             "task 0 to run")
    recs = [r for r in show(c, "job") if r.get("ArrayJobId") == str(arr)]
    assert sorted((r["ArrayTaskId"], r["JobState"]) for r in recs) == [
        ("0", "RUNNING"), ("1-7", "PENDING")], recs
    assert len(json_doc(c, "job")["jobs"]) == 2
    assert show_one(c, "job", "%d_3" % arr)["ArrayTaskId"] == "3"
    # options after the words
    assert "Steps" not in show_one(c, "job", task0)
    p = control(c, "show", "job", task0, "-d")
    assert p.returncode == 0, p.stderr
    assert "Steps" in records(p.stdout)[0], p.stdout
    p = control(c, "show", "nodes", "-oF")
    assert p.returncode == 0, p.stderr
    assert [fields(l)["NodeName"] for l in p.stdout.splitlines()] == [
        "node1", "node2"], p.stdout
    p = control(c, "-a", "show", "partition", "-F", "-Q")
    assert p.returncode == 0 and records(p.stdout), p.stderr
    p = control(c, "show", "job", task0, "--bogus")
    assert p.returncode == 1 and "--bogus" in p.stderr, p.stderr
    assert c.run(["arbor", "cancel", str(arr)]).returncode == 0
