"""squeue's formats and filters (issue 14), as a script would use them:
-h -o %i, -o with widths, -O field names, --sort, -p/-n/-w, $SQUEUE_FORMAT
and $SQUEUE_SORT; the default and -l layouts of Slurm's squeue man page
over every job state; -i repeating; array folding and -r; --json against
the shipped JSON Schemas (docs/schema/arbor.queue*.schema.json); and the
errors of bad input.
"""

import json
import os
import re
import time

import jsonschema

from test_batch import batch, env_with_path, submitted_id
from test_cancel import wait_for, wait_state

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "docs")


def queue(c, *args, env=None):
    p = c.run(["arbor", "queue"] + list(args), env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_formats_sort_and_filters(cluster, test_user):
    c = cluster(2, cpus=2)
    run = batch(c, "-J", "runner", "-w", "node2", "-n", "2", "-t", "30",
                "--wrap", "sleep 300")
    wait_state(c, run, "RUNNING", 30)
    pend = batch(c, "-J", "waiter", "-N", "2", "--wrap", "true")
    wait_state(c, pend, "PENDING", 30)
    # the default: pending before running (squeue's P,t,-p)
    lines = queue(c).splitlines()
    assert lines[0].split() == ["JOBID", "PARTITION", "NAME", "USER", "ST",
                                "TIME", "NODES", "NODELIST(REASON)"], lines
    assert len(lines[0]) == len(
        "             JOBID PARTITION     NAME     USER ST       TIME  NODES "
        "NODELIST(REASON)"), lines[0]
    assert [l.split()[0] for l in lines[1:]] == [str(pend), str(run)]
    assert lines[1].split()[-1] == "(Resources)", lines
    assert lines[2].split()[-1] == "node2", lines
    # scripts: one field, no header
    assert queue(c, "-h", "-o", "%i", "--sort", "i").split() == [
        str(run), str(pend)]
    assert queue(c, "-h", "-j", str(run), "-o", "%T").strip() == "RUNNING"
    out = queue(c, "-h", "-j", str(run), "-o", "%.6i|%8j|%D|%C|%l|%u|%P")
    assert out == "%6s|runner  |1|2|30:00|%s|debug\n" % (
        run, test_user.pw_name), out
    out = queue(c, "-h", "-j", str(run), "-O", "JobID:8,Name:.8,State")
    assert out == "%-8s  runnerRUNNING             \n" % run, out
    # filters
    assert queue(c, "-h", "-o", "%i", "-n", "waiter").split() == [str(pend)]
    assert queue(c, "-h", "-o", "%i", "-w", "node2").split() == [str(run)]
    assert queue(c, "-h", "-o", "%i", "-p", "nosuch").split() == []
    # the environment
    env = dict(SQUEUE_FORMAT="%j", SQUEUE_SORT="-j")
    assert queue(c, "-h", env=env).split() == ["waiter", "runner"]
    c.run(["arbor", "cancel", str(run), str(pend)])


def test_bad_input(cluster, test_user):
    """Each is refused as squeue refuses it: "squeue: error: ..." naming
    what is wrong, nothing on stdout, exit status 1."""
    c = cluster(1)
    jid = batch(c, "-J", "arr", "--array", "0-1", "--hold", "--wrap", "true")
    squeue = os.path.join(os.path.dirname(c.arbor), "squeue")
    cases = [
        (["-o", "%i %z"], "invalid field in format '%z'"),
        (["-O", "JobID,NoSuchField"],
         "invalid field in format 'NoSuchField'"),
        (["-t", "R,bogus"], "invalid job state 'bogus'"),
        (["--sort", "P,-z"], "invalid sort key 'z'"),
        (["-j", "7.1"], "invalid job id '7.1'"),
        (["-i", "0"], "invalid --iterate '0'"),
        (["--json", "-i", "1"], "--json cannot be used with --iterate"),
    ]
    for args, want in cases:
        p = c.run([squeue] + args)
        assert (p.returncode, p.stdout) == (1, ""), (args, p)
        assert p.stderr.startswith("squeue: error: ") and want in p.stderr, \
            (args, p.stderr)
    # an unknown state is told with the valid ones
    p = c.run([squeue, "-t", "bogus"])
    assert "PENDING (PD)" in p.stderr and "TIMEOUT (TO)" in p.stderr, p.stderr
    # one job (or array task) the controller does not know: slurm_load_jobs'
    # message; among several ids the unknown ones are skipped
    for ids in ("999999", "%d_7" % jid):
        p = c.run(["arbor", "queue", "-j", ids])
        assert (p.returncode, p.stdout) == (1, ""), p
        assert p.stderr == "slurm_load_jobs error: Invalid job id specified\n"
    p = c.run(["arbor", "queue", "-h", "-o", "%i", "-r", "-j",
               "999999,%d_1" % jid])
    assert (p.returncode, p.stdout) == (0, "%d_1\n" % jid), p
    c.run(["arbor", "cancel", str(jid)])


# ---- the layouts of squeue's man page, over every job state ---------------

# squeue's default format, "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R", and
# -l's, "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R", as widths (None:
# the rest of the line) and headers; every column right-justified and cut
# to its width, one space between columns.
DEFAULT = [(18, "JOBID"), (9, "PARTITION"), (8, "NAME"), (8, "USER"),
           (2, "ST"), (10, "TIME"), (6, "NODES"), (None, "NODELIST(REASON)")]
LONG = [(18, "JOBID"), (9, "PARTITION"), (8, "NAME"), (8, "USER"),
        (8, "STATE"), (10, "TIME"), (9, "TIME_LIMIT"), (6, "NODES"),
        (None, "NODELIST(REASON)")]
ELAPSED = re.compile(r"\d+:\d\d")  # a TIME under an hour: M:SS
STAMP = "%a %b %d %H:%M:%S %Y"      # the date line of -l and -i


def check_line(line, layout, values):
    """line must be 'values' laid out as 'layout' says; a value that is a
    compiled pattern matches the cell's text, right-justified."""
    pos = 0
    for k, ((width, _), want) in enumerate(zip(layout, values)):
        if k:
            assert line[pos:pos + 1] == " ", (k, line)
            pos += 1
        cell = line[pos:] if width is None else line[pos:pos + width]
        pos += len(cell)
        if isinstance(want, re.Pattern):
            assert want.fullmatch(cell.lstrip()), (k, want, line)
            assert width is None or cell == cell.strip().rjust(width), line
        elif width is None:
            assert cell == want, (k, line)
        else:
            assert cell == "%*.*s" % (width, width, want), (k, line)
    assert pos == len(line), line


def check_listing(out, layout, rows, dated=False, header=True):
    """A listing: (a date line,) the header (unless not 'header'), then
    exactly 'rows' {job id: values}, in any order; the ids in order."""
    lines = out.splitlines()
    if dated:
        time.strptime(lines.pop(0), STAMP)
    if header:
        check_line(lines.pop(0), layout, [h for _, h in layout])
    got = {l.split()[0]: l for l in lines}
    assert sorted(got) == sorted(rows), out
    for jid, values in rows.items():
        check_line(got[jid], layout, [jid] + values)
    return [l.split()[0] for l in lines]


def epilog_sleeping(path, name, secs):
    """An Epilog that sleeps 'secs' after the job named 'name' only."""
    with open(path, "w") as f:
        f.write('#!/bin/sh\n[ "$SLURM_JOB_NAME" = %s ] && sleep %d\nexit 0\n'
                % (name, secs))
    os.chmod(path, 0o755)
    return path


def test_layouts_over_job_states(cluster, test_user, tmp_path):
    """Jobs driven into every state squeue shows (TIMEOUT takes the limit's
    minute: the other states are checked meanwhile), listed in the default
    and -l layouts; -h drops the header (and -l's date)."""
    os.chmod(str(tmp_path), 0o755)
    epi = epilog_sleeping(os.path.join(str(tmp_path), "epi.sh"), "slowepi", 6)
    c = cluster(3, cpus=1, KillWait=1, OverTimeLimit=0, Epilog=epi)
    user = test_user.pw_name  # "arbortest": cut to "arbortes"

    def listing(*args):
        return queue(c, "-t", "all", *args)

    timer = batch(c, "-J", "timer", "-w", "node1", "-t", "1", "--wrap",
                  "sleep 300")
    runner = batch(c, "-J", "runner", "-w", "node2", "--wrap", "sleep 300")
    ok = batch(c, "-J", "ok", "-w", "node3", "--wrap", "true")
    bad = batch(c, "-J", "bad", "-w", "node3", "--wrap", "exit 3")
    wait_state(c, bad, "FAILED", 30)
    wait_state(c, ok, "COMPLETED", 30)
    # COMPLETING while its Epilog sleeps: listed by default (PD,R,S,CG)
    slow = batch(c, "-J", "slowepi", "-w", "node3", "--wrap", "true")
    wait_state(c, slow, "COMPLETING", 30)
    out = queue(c, "-n", "slowepi")
    check_listing(out, DEFAULT, {str(slow): [
        "debug", "slowepi", user, "CG", ELAPSED, "1", "node3"]})
    out = queue(c, "-l", "-n", "slowepi")
    check_listing(out, LONG, {str(slow): [
        "debug", "slowepi", user, "COMPLETING", ELAPSED, "UNLIMITED", "1",
        "node3"]}, dated=True)
    wait_state(c, slow, "COMPLETED", 30)

    # pending, for each reason
    big = batch(c, "-J", "resources_job", "-N", "3", "--wrap", "true")
    prio = batch(c, "-J", "prio", "-N", "3", "--wrap", "true")
    dep = batch(c, "-J", "dep", "-d", "afterok:%d" % runner, "--wrap", "true")
    held = batch(c, "-J", "held", "-H", "--wrap", "true")
    admin = batch(c, "-J", "admheld", "--begin", "now+600", "--wrap", "true")
    p = c.run(["arbor", "hold", str(admin)], user="root")
    assert p.returncode == 0, p.stderr
    later = batch(c, "-J", "later", "--begin", "now+600", "--wrap", "true")
    gone = batch(c, "-J", "gone", "-H", "--wrap", "true")
    assert c.run(["arbor", "cancel", str(gone)]).returncode == 0
    wait_state(c, gone, "CANCELLED", 30)
    reasons = {big: "Resources", prio: "Priority", dep: "Dependency",
               held: "JobHeldUser", admin: "JobHeldAdmin", later: "BeginTime"}
    names = {big: "resources_job", prio: "prio", dep: "dep", held: "held",
             admin: "admheld", later: "later"}
    wait_for(lambda: queue(c, "-h", "-t", "PD", "-S", "i", "-o",
                           "%i %r").split() == [
        w for j in sorted(reasons) for w in (str(j), reasons[j])] or None,
        30, "the pending reasons")

    def rows(long, timed_out=False):
        st = (lambda code, name: name) if long else (lambda code, name: code)
        lim = (lambda l: [l]) if long else (lambda l: [])
        r = {str(j): ["debug", names[j], user, st("PD", "PENDING"), "0:00"]
             + lim("UNLIMITED") + ["3" if j in (big, prio) else "1",
                                   "(%s)" % reasons[j]] for j in reasons}
        r[str(timer)] = ["debug", "timer", user,
                         st("TO", "TIMEOUT") if timed_out
                         else st("R", "RUNNING"), ELAPSED] + lim("1:00") + [
            "1", "node1"]
        r[str(runner)] = ["debug", "runner", user, st("R", "RUNNING"),
                          ELAPSED] + lim("UNLIMITED") + ["1", "node2"]
        for j, name, code, state in ((ok, "ok", "CD", "COMPLETED"),
                                     (bad, "bad", "F", "FAILED"),
                                     (slow, "slowepi", "CD", "COMPLETED")):
            r[str(j)] = ["debug", name, user, st(code, state), ELAPSED] + \
                lim("UNLIMITED") + ["1", "node3"]
        # cancelled before it ran: no nodes, so its (reason)
        r[str(gone)] = ["debug", "gone", user, st("CA", "CANCELLED"),
                        "0:00"] + lim("UNLIMITED") + [
            "1", re.compile(r"\(\w+\)")]
        return r

    check_listing(listing(), DEFAULT, rows(False))
    # squeue's sort, P,t,-p: pending first, then running, then the rest
    states = listing("-h", "-o", "%t").split()
    assert states[:8] == ["PD"] * 6 + ["R"] * 2, states
    check_listing(listing("-l"), LONG, rows(True), dated=True)
    # -h: the rows alone (-l's date goes too)
    check_listing(listing("-h"), DEFAULT, rows(False), header=False)
    check_listing(listing("-h", "-l"), LONG, rows(True), header=False)
    # without -t: the ended jobs are not listed
    assert sorted(queue(c, "-h", "-o", "%i").split()) == sorted(
        str(j) for j in list(reasons) + [timer, runner])
    # --json: every state, valid against the shipped schema
    doc = json.loads(queue(c, "-t", "all", "--json"))
    validate(doc, "arbor.queue")
    got = {j["job_id"]: j for j in doc["jobs"]}
    assert sorted(got) == sorted(int(j) for j in rows(False)), got
    assert got[bad]["state"] == "FAILED" and \
        got[bad]["exit_code"] == {"status": 3, "signal": 0}, got[bad]
    assert got[held]["reason"] == "JobHeldUser" and \
        got[held]["state_code"] == "PD" and got[held]["priority"] is not None
    assert got[runner]["start_time"] and got[runner]["end_time"] is None
    assert got[dep]["dependency"] == "afterok:%d" % runner
    assert got[timer]["time_limit_minutes"] == 1

    # TIMEOUT, once the limit's minute is over
    wait_state(c, timer, "TIMEOUT", 90)
    check_listing(listing(), DEFAULT, rows(False, timed_out=True))
    out = queue(c, "-l", "-j", str(timer))
    check_listing(out, LONG, {str(timer): rows(True, True)[str(timer)]},
                  dated=True)
    c.run(["arbor", "cancel"] + [str(j) for j in list(reasons) + [runner]])


# ---- -i, arrays, --json ---------------------------------------------------

def test_iterate_shows_changes(cluster, test_user):
    """-i 1 (under timeout): a dated listing every second, each ended by an
    empty line; a held job that is released is PD in one listing and R in
    a later one."""
    c = cluster(1)
    jid = batch(c, "-J", "iter", "--hold", "--wrap", "sleep 30")
    path = os.path.join(c.dir, "iterate.out")

    def text():
        with open(path) as f:
            return f.read()
    with open(path, "w") as out:
        proc = c.popen(["timeout", "30", c.arbor, "queue", "-i", "1", "-o",
                        "%i %j %t"], stdout=out)
    try:
        wait_for(lambda: "\n\n" in text(), 15, "a first listing")
        assert c.run(["arbor", "release", str(jid)]).returncode == 0
        wait_for(lambda: "%d iter R\n" % jid in text(), 20,
                 "a listing with the job running")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    # the listings ended by their empty line
    listings = [b.splitlines() for b in text().split("\n\n")[:-1]]
    assert len(listings) >= 2, listings
    for b in listings:
        assert len(b) == 3 and b[1] == "JOBID NAME ST", listings
    stamps = [time.mktime(time.strptime(b[0], STAMP)) for b in listings]
    assert stamps == sorted(stamps) and stamps[-1] > stamps[0], stamps
    assert listings[0][2] == "%d iter PD" % jid, listings
    assert listings[-1][2] == "%d iter R" % jid, listings
    c.run(["arbor", "cancel", str(jid)])


def validate(doc, schema):
    """Check 'doc' against docs/schema/SCHEMA.schema.json (draft 2020-12)
    and that each object has its members in the documented order."""
    with open(os.path.join(DOCS, "schema", schema + ".schema.json")) as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    jsonschema.Draft202012Validator(s).validate(doc)
    assert doc["schema"] == schema and doc["version"] == 1
    item = s["$defs"]["job" if schema == "arbor.queue" else "step"]
    for o in doc["jobs" if schema == "arbor.queue" else "steps"]:
        assert list(o) == item["required"], list(o)


def test_array_folding_steps_and_json(cluster, test_user):
    """An array's pending tasks share a line unless -r (a held task apart);
    --json lists every task; -s and -s --json show the steps."""
    c = cluster(2, cpus=1)
    p = c.run(["arbor", "batch", "-o", "/dev/null", "-J", "stepper", "-w",
               "node2", "--wrap", "arbor run -J inner sleep 60"],
              env=env_with_path(c))
    assert p.returncode == 0, p.stderr
    stepper = submitted_id(p)
    arr = batch(c, "-J", "arr", "-w", "node1", "--array", "0-5", "--wrap",
                "sleep 60")
    wait_for(lambda: queue(c, "-h", "-j", "%d_0" % arr, "-o", "%T")
             == "RUNNING\n", 30, "task 0 to run")
    assert c.run(["arbor", "hold", "%d_3" % arr]).returncode == 0
    fmt = ["-h", "--sort", "i", "-o", "%i %t %K %A %r"]
    wait_for(lambda: "JobHeldUser" in queue(c, "-j", "%d_3" % arr, *fmt),
             15, "task 3 held")
    folded = queue(c, "-j", str(arr), *fmt).splitlines()
    # the first of the folded tasks (1) stands for them: its own id for %A
    assert len(folded) == 3, folded
    assert folded[0] == "%d_0 R 0 %d None" % (arr, arr), folded
    assert re.fullmatch(r"%d_\[1-2,4-5\] PD 1-2,4-5 %d (Resources|Priority)"
                        % (arr, arr + 1), folded[1]), folded
    assert folded[2] == "%d_3 PD 3 %d JobHeldUser" % (arr, arr + 3), folded
    split = queue(c, "-j", str(arr), "-r", *fmt).splitlines()
    assert [l.split()[0] for l in split] == [
        "%d_%d" % (arr, t) for t in range(6)], split
    assert split[0] == folded[0]
    # a task list cut to SLURM_BITSTR_LEN bytes
    out = queue(c, "-j", str(arr), "-h", "-t", "PD", "-o", "%i",
                env={"SLURM_BITSTR_LEN": "5"})
    assert "%d_[1-...]" % arr in out.split(), out
    # --json: one object per task, never folded
    doc = json.loads(queue(c, "-j", str(arr), "--json"))
    validate(doc, "arbor.queue")
    assert sorted((j["array_job_id"], j["array_task_id"], j["job_id"])
                  for j in doc["jobs"]) == [(arr, t, arr + t)
                                            for t in range(6)], doc
    # the steps: stepper's batch and step 0, task 0's batch
    wait_for(lambda: "%d.0" % stepper in queue(c, "-s", "-h"), 30,
             "step %d.0" % stepper)
    lines = queue(c, "-s").splitlines()
    assert lines[0].split() == ["STEPID", "NAME", "PARTITION", "USER", "TIME",
                                "NODELIST"], lines
    assert sorted(l.split()[0] for l in lines[1:]) == sorted(
        ["%d.batch" % stepper, "%d.0" % stepper, "%d_0.batch" % arr]), lines
    doc = json.loads(queue(c, "-s", "--json"))
    validate(doc, "arbor.queue.steps")
    got = {s["id"]: s for s in doc["steps"]}
    assert sorted(got) == sorted(l.split()[0] for l in lines[1:]), got
    s = got["%d.0" % stepper]
    assert (s["job_id"], s["step"], s["step_id"], s["name"], s["nodelist"],
            s["array_job_id"]) == (stepper, "0", 0, "inner", "node2", None), s
    s = got["%d_0.batch" % arr]
    assert (s["job_id"], s["step"], s["array_job_id"], s["array_task_id"]) \
        == (arr, "batch", arr, 0), s
    assert s["step_id"] > 2 ** 31 and s["start_time"] > 0, s
    # -j and -n apply to the steps, -t does not
    doc = json.loads(queue(c, "-s", "--json", "-n", "inner", "-t", "PD"))
    assert [s["id"] for s in doc["steps"]] == ["%d.0" % stepper], doc
    # a suspended job stays in the default listing, as squeue's does
    scontrol = os.path.join(os.path.dirname(c.arbor), "scontrol")
    p = c.run([scontrol, "suspend", str(stepper)], user="root")
    assert p.returncode == 0, p.stderr
    assert queue(c, "-h", "-n", "stepper", "-o", "%i %t %T") == \
        "%d S SUSPENDED\n" % stepper
    assert c.run([scontrol, "resume", str(stepper)], user="root") \
        .returncode == 0
    c.run(["arbor", "cancel", str(arr), str(stepper)])


def doc_members(md, heading):
    """The members of the table under '## heading' of a docs/json page."""
    part = md.split("\n## " + heading + "\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", part, re.M)


def test_json_docs_match_the_schemas():
    """docs/json/queue.md: its tables list each schema's members in order,
    and its examples validate (no cluster needed)."""
    with open(os.path.join(DOCS, "json", "queue.md")) as f:
        md = f.read()
    for schema, item, heading in (
            ("arbor.queue", "job", "`jobs[]`: one job"),
            ("arbor.queue.steps", "step", "`steps[]`: one running step")):
        with open(os.path.join(DOCS, "schema", schema + ".schema.json")) as f:
            s = json.load(f)
        d = s["$defs"][item]
        assert doc_members(md, heading) == d["required"] == list(
            d["properties"]), schema
    examples = re.findall(r"```json\n(.*?)```",
                          md.split("\n## Example\n", 1)[1], re.S)
    assert len(examples) == 2
    for text in examples:
        doc = json.loads(text)
        validate(doc, doc["schema"])


SLURM_NAMES = ["srun", "salloc", "sbatch", "sinfo", "squeue", "scancel",
               "scontrol", "sacct", "sstat", "sattach", "seff", "sprio"]


def test_version_and_usage_everywhere(build):
    """--version and -V print exactly "slurm X.Y.Z" through every Slurm
    name, as tools that detect Slurm parse it (law: ^slurm (\\d+)\\.(\\d+)
    \\.(\\d+) on sbatch --version; FirecREST: sinfo -V less "slurm ");
    Arbor's own names show Arbor's version too; --usage prints a short
    "Usage: NAME [...]" synopsis."""
    import subprocess
    bindir = os.path.join(build, "bin")
    versions = set()
    for name in SLURM_NAMES:
        for opt in ("--version", "-V"):
            p = subprocess.run([os.path.join(bindir, name), opt],
                               capture_output=True, text=True, timeout=30)
            assert p.returncode == 0 and p.stderr == "", (name, opt, p)
            assert re.fullmatch(r"slurm \d+\.\d+\.\d+\n", p.stdout), (name, p)
            versions.add(p.stdout)
        p = subprocess.run([os.path.join(bindir, name), "--usage"],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, (name, p.stderr)
        assert p.stdout.startswith("Usage: %s [" % name), (name, p.stdout)
    assert len(versions) == 1, versions
    slurm = versions.pop().split()[1]
    for args in (["--version"], ["queue", "--version"], ["run", "-V"],
                 ["hold", "--version"]):
        p = subprocess.run([os.path.join(bindir, "arbor")] + args,
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, (args, p.stderr)
        assert re.fullmatch(r"arbor \S+ \(slurm %s\)\n" % re.escape(slurm),
                            p.stdout), (args, p.stdout)
    p = subprocess.run([os.path.join(bindir, "arbor"), "--usage"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and p.stdout.startswith("Usage: arbor ["), p


def test_me_held_priority_and_account_case(cluster, test_user):
    """--me is -u of the caller; a held job's priority is 0 (%Q, sprio);
    -A's account is kept in lower case, as Slurm keeps it."""
    from test_cancel import ensure_user
    c = cluster(1, cpus=1, PriorityType="priority/multifactor",
                PriorityWeightJobSize="1000")
    run = batch(c, "-A", "Physics", "--wrap", "sleep 300")
    wait_state(c, run, "RUNNING", 30)
    pend = batch(c, "-A", "PhysICS", "--wrap", "true")
    held = batch(c, "-H", "--wrap", "true")
    mine = queue(c, "-h", "--me", "--sort", "i", "-o", "%i").split()
    assert mine == [str(run), str(pend), str(held)], mine
    assert mine == queue(c, "-h", "-u", test_user.pw_name, "--sort", "i",
                         "-o", "%i").split()
    other = ensure_user("arbortest2")
    p = c.run(["arbor", "queue", "-h", "--me", "-o", "%i"],
              user=other.pw_name)
    assert p.returncode == 0 and p.stdout == "", (p.stdout, p.stderr)
    # priorities: the pending job's its own, the held one's 0
    prio = dict(l.split() for l in queue(c, "-h", "-o", "%i %Q").splitlines())
    assert int(prio[str(pend)]) > 0 and prio[str(held)] == "0", prio
    p = c.run(["arbor", "prio", "-h", "-j", str(held)])
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[2] == "0", p.stdout  # JOBID PARTITION PRIORITY
    # accounts, as Slurm keeps them
    accts = queue(c, "-h", "--sort", "i", "-o", "%a", "-j",
                  "%d,%d" % (run, pend)).split()
    assert accts == ["physics", "physics"], accts
    assert c.run(["arbor", "cancel", str(run), str(pend),
                  str(held)]).returncode == 0
