"""The controller's durable state (StateSaveLocation/arbor_state.db).

kill -9 arbor-ctld and start it again: pending jobs are pending again in
the same order with their holds, running batch jobs and their steps go on
and end normally with their output intact, ended jobs are still listed
with their exit codes, and no job id repeats. A batch job that ends while
the controller is down is reported when it is back. A damaged database
stops the controller with a message naming it; -c sets it aside.
"""

import os
import signal
import subprocess
import time

from test_batch import env_with_path, read, submitted_id
from test_cancel import (finish, job_id_by_name, job_state, queue_long, start,
                         wait_for, wait_state)


def batch(c, *args):
    p = c.run(["arbor", "batch"] + list(args))
    assert p.returncode == 0, p.stderr
    return submitted_id(p)


def batch_env(c, *args):
    """arbor batch with the build's arbor on the script's PATH."""
    p = c.run(["arbor", "batch"] + list(args), env=env_with_path(c))
    assert p.returncode == 0, p.stderr
    return submitted_id(p)


def kill_ctld(c):
    os.kill(c.daemon_pid("ctld"), signal.SIGKILL)


def test_jobs_survive_a_killed_controller(cluster, test_user):
    c = cluster(2, cpus=4)
    failed = batch(c, "-o", "failed.out", "--wrap", "exit 3")
    wait_state(c, failed, "FAILED", 30)
    held = batch(c, "-H", "-o", "held.out", "--wrap", "echo held ran")
    running = batch(c, "-N", "2", "-o", "running.out", "--wrap",
                    "echo before; sleep 6; echo after")
    array = batch(c, "--array=0-3", "-o", "array.%a.out", "--wrap",
                  "sleep 5; echo task $SLURM_ARRAY_TASK_ID")
    # pending behind the array and the two-node job, in submission order
    queued = [batch(c, "-N", "2", "--exclusive", "-o", "/dev/null", "--wrap",
                    "true") for _ in range(3)]
    wait_state(c, running, "RUNNING", 30)
    before = queue_long(c)
    c.restart("ctld", sig="KILL")
    after = queue_long(c)
    assert list(after) == list(before), (before, after)  # the same order
    for jid in [failed, held, running] + queued:
        assert after[jid]["state"] == before[jid]["state"], (jid, after)
    assert after[failed]["exit"] == "3", after[failed]
    p = c.run(["arbor", "queue", "-h"])
    assert any(l.split()[0] == str(held) and "(JobHeldUser)" in l
               for l in p.stdout.splitlines()), p.stdout
    # the running ones end normally, their output whole
    wait_state(c, running, "COMPLETED", 60)
    assert read(c, "running.out") == "before\nafter\n"
    for task in range(4):  # listed as ARRAY_TASK: their output tells
        name = os.path.join(c.scratch, "array.%d.out" % task)
        wait_for(lambda: os.path.exists(name) and read(c, name) != "", 60,
                 "array task %d" % task)
        assert read(c, name) == "task %d\n" % task
    for jid in queued:
        wait_state(c, jid, "COMPLETED", 60)
    # no id repeats, and the held job runs once released
    new = batch(c, "-o", "/dev/null", "--wrap", "true")
    assert new > max(queued), (new, queued)
    assert c.run(["arbor", "release", str(held)]).returncode == 0
    wait_state(c, held, "COMPLETED", 30)
    assert read(c, "held.out") == "held ran\n"


def test_job_ending_while_controller_is_down(cluster, test_user):
    c = cluster(1)
    jid = batch(c, "-o", "out", "--wrap", "sleep 2; echo done; exit 5")
    wait_state(c, jid, "RUNNING", 30)
    kill_ctld(c)
    time.sleep(4)  # the script ends meanwhile
    c.restart("ctld")
    wait_state(c, jid, "FAILED", 60)
    assert queue_long(c)[jid]["exit"] == "5"
    assert read(c, "out") == "done\n"


def test_damaged_database_stops_the_controller(cluster, test_user):
    c = cluster(1)
    jid = batch(c, "-o", "/dev/null", "--wrap", "true")
    wait_state(c, jid, "COMPLETED", 30)
    state = os.path.join(c.dir, "state", "arbor_state.db")
    pid = c.daemon_pid("ctld")
    os.kill(pid, signal.SIGTERM)  # a clean stop: all of it in the file
    wait_for(lambda: not os.path.exists("/proc/%d" % pid)
             or "Z" in open("/proc/%d/stat" % pid).read().split(")")[1][:3],
             30, "the controller to stop")
    assert not os.path.exists(state + "-wal")
    with open(state, "r+b") as f:
        f.seek(0)
        f.write(b"this is not a database" * 8)
    ctld = os.path.join(c.build, "bin", "arbor-ctld")
    p = subprocess.run([ctld, "-f", c.conf], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=30,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert ("state database %s: file is not a database (start with -c"
            % state) in p.stderr, p.stderr
    # -c sets it aside: the controller starts with no state
    p = subprocess.Popen([ctld, "-c", "-f", c.conf], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: c.run(["arbor", "queue", "-h", "-t", "all"])
                 .returncode == 0, 30, "the cleared controller to answer")
        assert c.run(["arbor", "queue", "-h", "-t",
                      "all"]).stdout.strip() == ""
        assert os.path.exists(state + ".cleared")
    finally:
        p.terminate()
        p.wait(timeout=30)


def test_run_and_alloc_go_on_across_a_controller_restart(cluster, test_user):
    """arbor run's tasks keep running and printing while the controller is
    down; arbor run and arbor alloc attach to their allocations again
    (JOB_ATTACH) and end them normally."""
    c = cluster(2)
    run = start(c, ["arbor", "run", "-N", "2", "-l", "-J", "steady", "sh",
                    "-c", "for i in 1 2 3 4 5 6; do echo line $i; "
                    "sleep 1; done"])
    alloc = start(c, ["arbor", "alloc", "-N", "1", "-J", "shell", "--",
                      "sh", "-c", "sleep 5; echo shell done"],
                  env=env_with_path(c))
    wait_state(c, job_id_by_name(c, "steady"), "RUNNING", 30)
    wait_state(c, job_id_by_name(c, "shell"), "RUNNING", 30)
    time.sleep(1)
    c.restart("ctld", sig="KILL")
    rc, out, err = finish(run, 60)
    assert rc == 0, (out, err)
    for task in (0, 1):
        assert [l for l in out.splitlines() if l.startswith("%d: " % task)] \
            == ["%d: line %d" % (task, i) for i in range(1, 7)], out
    rc, out, err = finish(alloc, 60)
    assert rc == 0, (out, err)
    assert "shell done" in out and "revoked" not in err, (out, err)
    jobs = queue_long(c)
    assert sorted(j["state"] for j in jobs.values()) == ["COMPLETED"] * 2, jobs


def pending_id_by_name(c, name, timeout=30):
    """The id of the (single) job named 'name', once it is PENDING."""
    def find():
        for jid, j in queue_long(c).items():
            if j["name"] == name[:20] and j["state"] == "PENDING":
                return jid
        return None
    return wait_for(find, timeout, "job %s to be pending" % name)


def test_queued_run_and_alloc_wait_on_across_a_controller_restart(
        cluster, test_user):
    """arbor run and arbor alloc queued behind a running job go on waiting
    when the controller is killed and restarted: they reconnect, attach to
    their jobs again (JOB_ATTACH), the jobs do not start while nobody
    waits for them, and they run once the node is free."""
    c = cluster(1)
    blocker = batch(c, "-N", "1", "--exclusive", "-J", "blocker", "-o",
                    "/dev/null", "--wrap", "sleep 300")
    wait_state(c, blocker, "RUNNING", 30)
    run = start(c, ["arbor", "run", "-N", "1", "-J", "queued", "echo",
                    "run ran"])
    alloc = start(c, ["arbor", "alloc", "-N", "1", "-J", "qshell", "--",
                      "echo", "shell ran"], env=env_with_path(c))
    queued = pending_id_by_name(c, "queued")
    qshell = pending_id_by_name(c, "qshell")
    c.restart("ctld", sig="KILL")
    assert job_state(c, queued) == "PENDING"
    p = c.run(["arbor", "cancel", str(blocker)])
    assert p.returncode == 0, p.stderr
    rc, out, err = finish(run, 90)
    assert rc == 0 and out.strip() == "run ran", (out, err)
    assert "reconnected" in err, err
    rc, out, err = finish(alloc, 90)
    assert rc == 0 and "shell ran" in out, (out, err)
    jobs = queue_long(c)
    assert jobs[queued]["state"] == jobs[qshell]["state"] == "COMPLETED", jobs


def test_answered_submissions_survive_a_kill_mid_stream(cluster, test_user):
    """200 submissions stream in; the controller is killed in the middle:
    every submission that was answered is there after the restart, and no
    id was given twice."""
    c = cluster(2)
    script = os.path.join(c.scratch, "stream.sh")
    with open(script, "w") as f:
        f.write("for i in $(seq 200); do arbor batch --parsable -H "
                "-o /dev/null --wrap true 2>/dev/null; done\n")
    stream = start(c, ["sh", script], env=env_with_path(c))
    wait_for(lambda: len(queue_long(c)) >= 40, 60, "40 submissions")
    c.restart("ctld", sig="KILL")
    rc, out, err = finish(stream, 120)
    answered = [int(x) for x in out.split()]
    assert 40 <= len(answered) <= 200, out
    assert len(set(answered)) == len(answered), "an id was given twice"
    jobs = queue_long(c)
    missing = [j for j in answered if j not in jobs]
    assert not missing, "answered but lost: %s" % missing
    assert all(jobs[j]["state"] == "PENDING" for j in answered)


def test_node_decisions_survive_a_restart(cluster, test_user):
    """A drained node, and one set DOWN by an administrator, stay so, with
    their reasons, after the controller restarts; RESUME still works."""
    from test_nodestate import control, node_info
    c = cluster(3)
    assert control(c, "update", "NodeName=node2", "State=DRAIN",
                   "Reason=disk check").returncode == 0
    assert control(c, "update", "NodeName=node3", "State=DOWN",
                   "Reason=broken fan").returncode == 0
    before = node_info(c)
    c.restart("ctld", sig="KILL")
    wait_for(lambda: node_info(c)["node1"][0] == "idle", 45,
             "node1 to register (%s)" % node_info(c))
    after = node_info(c)
    assert after["node2"] == before["node2"], (before, after)
    assert after["node2"][1] == "disk check", after
    assert after["node3"][0].startswith("down"), after
    assert after["node3"][1] == "broken fan", after
    assert control(c, "update", "NodeName=node2",
                   "State=RESUME").returncode == 0
    wait_for(lambda: node_info(c)["node2"][0] == "idle", 30, "node2 back")


def test_job_events_tell_its_history(cluster, test_user):
    """arbor job events N: what happened to the job, in order, kept across
    a controller restart."""
    c = cluster(2)
    jid = batch_env(c, "-H", "-N", "2", "-o", "ev.out", "--wrap",
                "arbor run -N 2 true; exit 2")
    assert c.run(["arbor", "release", str(jid)]).returncode == 0
    wait_state(c, jid, "FAILED", 60)
    wait_for(lambda: "done completing" in c.run(
        ["arbor", "job", "events", str(jid)]).stdout, 30, "done completing")
    before = c.run(["arbor", "job", "events", str(jid)]).stdout
    texts = [l.split(None, 1)[1] for l in before.splitlines()]
    who = "%s (uid %d)" % (test_user.pw_name, test_user.pw_uid)
    assert texts == ["submitted by " + who, "released by " + who, "eligible",
                     "allocated node[1-2]", "step batch started on node1",
                     "step 0 started on node[1-2]", "step 0 ended",
                     "step batch ended", "ended FAILED, exit code 2",
                     "done completing"], before
    c.restart("ctld", sig="KILL")
    assert c.run(["arbor", "job", "events", str(jid)]).stdout == before
    p = c.run(["arbor", "job", "events", "999"])
    assert p.returncode == 1 and "Invalid job id 999" in p.stderr, p.stderr
