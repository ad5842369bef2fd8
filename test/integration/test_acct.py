"""Accounting: arbor acct (sacct) and arbor eff (seff).

Jobs and steps are recorded in the accounting database as they end and
stay listed after the controller forgot them (MinJobAge) and across a
controller restart. What users check first: exit codes as Slurm prints
them (a script that exits 1 is FAILED 1:0, a task killed by signal 9 is
0:9), step names (N.batch, N.0), the memory a task used (MaxRSS of a
task that allocated 200 MB, within 10 %), CPU time, the formats tools
parse (-P, -n, --format, --json) and clear errors for bad options.
"""

import json

from test_batch import batch
from test_cancel import wait_for, wait_state


def acct(c, *args):
    """arbor acct -P -n with the given arguments: rows as lists."""
    p = c.run(["arbor", "acct", "-P", "-n"] + list(args))
    assert p.returncode == 0, p.stderr
    return [l.split("|") for l in p.stdout.splitlines() if l]


def acct_rows(c, jid, fields):
    """{JobID: [fields...]} of job jid and its steps."""
    rows = acct(c, "-j", str(jid), "-o", "JobID," + fields)
    return {r[0]: r[1:] for r in rows}


def wait_acct(c, jid, fields, pred, what, timeout=30):
    """Poll until pred(rows) holds (nodes' reports come on their own)."""
    got = {}

    def check():
        got.clear()
        got.update(acct_rows(c, jid, fields))
        return pred(got)
    try:
        wait_for(check, timeout, what)
    finally:
        print("last acct rows:", got)
    return got


def kib(text):
    """sacct's memory text (204800K, 200M, 1.5G) in KiB."""
    units = {"K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3}
    if text and text[-1] in units:
        return float(text[:-1]) * units[text[-1]]
    return float(text) / 1024 if text else 0.0


def test_exit_codes_and_states(cluster, test_user):
    c = cluster(2, cpus=2)
    ok = batch(c, "--wrap", "true")
    failed = batch(c, "--wrap", "exit 1")
    killed = batch(c, "--wrap", "kill -9 $$")
    for jid in (ok, failed, killed):
        wait_state(c, jid, ("COMPLETED", "FAILED"), 30)
    p = c.run(["arbor", "run", "-N", "2", "sh", "-c", "kill -9 $$"])
    assert p.returncode != 0
    run_job = int(acct(c, "-X", "-o", "JobID")[-1][0])

    rows = acct_rows(c, ok, "State,ExitCode")
    assert rows[str(ok)] == ["COMPLETED", "0:0"], rows
    assert rows["%d.batch" % ok] == ["COMPLETED", "0:0"], rows
    rows = acct_rows(c, failed, "State,ExitCode")
    assert rows[str(failed)] == ["FAILED", "1:0"], rows
    assert rows["%d.batch" % failed] == ["FAILED", "1:0"], rows
    rows = acct_rows(c, killed, "State,ExitCode")
    assert rows[str(killed)] == ["FAILED", "0:9"], rows
    rows = acct_rows(c, run_job, "State,ExitCode,NNodes,AllocTRES")
    assert rows[str(run_job)][:2] == ["FAILED", "0:9"], rows
    assert rows[str(run_job)][3] == "billing=2,cpu=2,mem=0,node=2", rows
    assert rows["%d.0" % run_job] == ["FAILED", "0:9", "2",
                                       "cpu=2,mem=0,node=2"], rows
    # -X: the jobs alone; -s: by state
    ids = [r[0] for r in acct(c, "-X", "-o", "JobID")]
    assert ids == [str(j) for j in (ok, failed, killed, run_job)], ids
    ids = [r[0] for r in acct(c, "-X", "-s", "CD", "-o", "JobID")]
    assert ids == [str(ok)], ids


def test_memory_and_cpu_of_a_step(cluster, test_user):
    c = cluster(1, cpus=2)
    burn = ("b = b'x' * (200 << 20); import time; t = time.time()\n"
            "while time.time() - t < 1.0: pass\n")
    p = c.run(["arbor", "run", "-n", "2", "python3", "-c",
               "import os\nif os.environ['SLURM_PROCID'] == '1':\n"
               + "".join("    " + l + "\n" for l in burn.splitlines())])
    assert p.returncode == 0, p.stderr
    jid = int(acct(c, "-X", "-o", "JobID")[-1][0])
    fields = "MaxRSS,MaxRSSTask,MaxRSSNode,TotalCPU,UserCPU,NTasks,State"
    rows = wait_acct(c, jid, fields,
                     lambda r: r.get("%d.0" % jid, [""])[0] != "",
                     "the step's usage")
    step = rows["%d.0" % jid]
    rss = kib(step[0]) / 1024
    assert 200 <= rss <= 220, step  # 200 MB and the interpreter, within 10 %
    assert step[1] == "1" and step[2] == "node1", step
    assert step[5] == "2" and step[6] == "COMPLETED", step
    user = step[4]  # MM:SS.mmm: about a second of busy loop
    minutes, seconds = user.split(":")[-2:]
    assert 0.5 <= int(minutes) * 60 + float(seconds) <= 5, step
    # arbor eff: what it used of what it had
    p = c.run(["arbor", "eff", str(jid)])
    assert p.returncode == 0, p.stderr
    assert "Job ID: %d" % jid in p.stdout, p.stdout
    assert "CPU Efficiency:" in p.stdout, p.stdout
    assert "Memory Utilized:" in p.stdout, p.stdout


def test_history_outlives_the_controller_memory(cluster, test_user):
    c = cluster(1, MinJobAge=1)
    jid = batch(c, "-J", "kept", "--wrap", "exit 3")
    wait_for(lambda: str(jid) not in c.run(["arbor", "queue", "-h", "-t",
                                             "all"]).stdout,
             30, "the job to be purged from the queue")
    rows = acct_rows(c, jid, "JobName,State,ExitCode")
    assert rows[str(jid)] == ["kept", "FAILED", "3:0"], rows
    c.restart("ctld", sig="KILL")
    rows = acct_rows(c, jid, "JobName,State,ExitCode")
    assert rows[str(jid)] == ["kept", "FAILED", "3:0"], rows


def test_running_requeued_and_cancelled(cluster, test_user):
    c = cluster(1)
    jid = batch(c, "--wrap", "sleep 30")
    wait_state(c, jid, "RUNNING", 30)
    rows = wait_acct(c, jid, "State",
                     lambda r: r.get("%d.batch" % jid) == ["RUNNING"],
                     "the batch step to run")
    assert rows[str(jid)] == ["RUNNING"], rows
    assert c.run(["arbor", "requeue", str(jid)]).returncode == 0
    wait_state(c, jid, "RUNNING", 30)
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    wait_state(c, jid, "CANCELLED", 30)
    rows = acct(c, "-D", "-X", "-j", str(jid), "-o", "JobID,State")
    assert [r[1] for r in rows] == ["REQUEUED", "CANCELLED"], rows
    rows = acct(c, "-X", "-j", str(jid), "-o", "JobID,State")
    assert [r[1] for r in rows] == ["CANCELLED"], rows


def test_formats_json_and_errors(cluster, test_user):
    c = cluster(1)
    jid = batch(c, "-J", "fmt", "-A", "phys", "--wrap", "true")
    wait_state(c, jid, "COMPLETED", 30)
    rows = acct_rows(c, jid, "JobName,Account")
    assert rows[str(jid)] == ["fmt", "phys"], rows
    p = c.run(["arbor", "acct", "-j", str(jid)])  # sacct's default table
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["JobID", "JobName", "Partition", "Account",
                                "AllocCPUS", "State", "ExitCode"], lines
    assert set(lines[1]) == {"-", " "}, lines
    assert lines[2].split()[0] == str(jid), lines
    p = c.run(["arbor", "acct", "-p", "-n", "-j", str(jid), "-X",
               "-o", "JobID,JobName"])
    assert p.stdout == "%d|fmt|\n" % jid, p.stdout
    p = c.run(["arbor", "acct", "-n", "-j", str(jid), "-X",
               "-o", "JobID%20,JobName%5"])
    # sacct ends each field with a space
    assert p.stdout == "%20s %5s \n" % (jid, "fmt"), repr(p.stdout)
    p = c.run(["arbor", "acct", "--json", "-j", str(jid)])
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    job = doc["jobs"][0]
    assert job["job_id"] == jid and job["name"] == "fmt", job
    assert any("submitted" in e["text"] for e in job["events"]), job
    assert [s["step_id"] for s in job["steps"]] == ["batch"] or \
        job["steps"][0]["name"] == "batch", job["steps"]
    # bad input says what was wrong
    p = c.run(["arbor", "acct", "-o", "JobID,Bogus"])
    assert p.returncode == 1 and "Bogus" in p.stderr, p.stderr
    p = c.run(["arbor", "acct", "--frobnicate"])
    assert p.returncode == 1 and "frobnicate" in p.stderr, p.stderr
    p = c.run(["arbor", "acct", "-s", "NOSUCH"])
    assert p.returncode == 1 and "NOSUCH" in p.stderr, p.stderr
    p = c.run(["arbor", "eff", "999999"])
    assert p.returncode == 1 and "999999" in p.stderr, p.stderr


def test_units(cluster, test_user):
    """--units=[KMGTP] shows sizes in that unit, as sacct's does."""
    c = cluster(1, cpus=1)
    p = c.run(["arbor", "run", "--mem=2048", "true"])
    assert p.returncode == 0, p.stderr
    jid = int(acct(c, "-X", "-o", "JobID")[-1][0])

    def req_mem(*opts):
        p = c.run(["arbor", "acct", "-X", "-n", "-P", "-j", str(jid),
                   "-o", "ReqMem"] + list(opts))
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()
    assert req_mem() == "2G"
    assert req_mem("--units=M") == "2048M"
    assert req_mem("--units", "k") == "2097152K"
    assert req_mem("--units=T") == "0.00T"
    p = c.run(["arbor", "acct", "--units=X"])
    assert p.returncode == 1 and "Invalid unit" in p.stderr, p.stderr
