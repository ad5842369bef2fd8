"""Node-side faults and hostile launches (issue 6, items 2, 8-12).

* A stepd killed with SIGKILL leaves its tasks in the step's container: the
  noded notices (it reaps its own stepds and watches those of a previous
  noded), ends the container with the termination sequence (SIGCONT +
  SIGTERM, KillWait, SIGKILL, until empty), removes it, and reports the
  node's share of the step failed; the job ends, the node is idle only once
  the tasks are gone, and no cgroup directory stays.
* A credential cannot start its step again once the step ended normally
  (arbor-test-launch --replay resends the same LAUNCH).
* Task and cpu counts are bound to the credential (--tasks / --cpus change
  them in the LAUNCH but not in the signed credential).
* A huge slice is refused at once with a short answer (--slice), and every
  refusal is a "security:" warning in the noded's log.
"""

import os
import signal
import subprocess
import time

import pytest

import arbor_cluster
from arbor_cluster import is_root, proc_cmdlines
from conftest import skip_or_fail
from test_cancel import (files_in, finish, job_id_by_name, job_state, read,
                         start, wait_for, wait_state)
from test_containment import job_cgroups
from test_restart import NodedRestart, node_states, proc_alive


@pytest.fixture
def test_launch(build):
    path = arbor_cluster.bin_path("arbor-test-launch", build)
    if not os.access(path, os.X_OK):
        skip_or_fail("%s is not built" % path)
    return path


def stepd_pids(c):
    """pids of the cluster's arbor-stepd processes (not the spawners)."""
    return [pid for pid, argv in proc_cmdlines().items()
            if os.path.basename(argv[0]) == "arbor-stepd" and c.conf in argv
            and "--spawner" not in argv]


# The task traps SIGTERM (writes term.RANK and goes on, so only the
# SIGKILL after KillWait ends it) and ignores SIGPIPE (its output pipes die
# with the stepd, and the shell reports its killed sleep on stderr), and
# leaves a daemonized grandchild (setsid: out of its session and process
# group, still in the container).
TRAPPING = ('trap "" PIPE; trap "echo term > term.$SLURM_PROCID" TERM; '
            '(setsid sh -c \'echo $$ > "grandchild.$SLURM_PROCID"; '
            'exec sleep 7117\' &); '
            'echo $$ > "started.$SLURM_PROCID"; '
            'while :; do sleep 0.2; done')


def task_pids(c):
    return [int(read(os.path.join(c.scratch, f)).strip())
            for f in files_in(c, "started.") + files_in(c, "grandchild.")]


def start_trapping_job(c, name, extra=()):
    p = start(c, ["arbor", "run", "-J", name] + list(extra) +
              ["sh", "-c", TRAPPING])
    jid = job_id_by_name(c, name)
    wait_for(lambda: len(files_in(c, "started.")) == 1
             and len(files_in(c, "grandchild.")) == 1, 30, "the task to start")
    wait_for(lambda: stepd_pids(c), 10, "the stepd")
    return p, jid


def assert_tasks_end(c, pids, jid, since, kill_wait=2):
    """The container's processes get SIGTERM, then SIGKILL after KillWait,
    and go; the cgroups are removed."""
    wait_for(lambda: not any(proc_alive(pid) for pid in pids), 40,
             "the dead stepd's tasks to be killed")
    assert os.path.exists(os.path.join(c.scratch, "term.0")), \
        "the task did not get SIGTERM before SIGKILL"
    assert time.monotonic() - since >= kill_wait - 0.5, \
        "SIGKILL came before KillWait"
    if is_root():
        wait_for(lambda: not job_cgroups(c, jid), 30,
                 "the cgroups of job %d to be removed: %s"
                 % (jid, job_cgroups(c, jid)))


def test_killed_stepd_tasks_are_ended(cluster, test_user):
    c = cluster(1, debug=True, KillWait=2)
    p, jid = start_trapping_job(c, "k9stepd")
    pids = task_pids(c)
    [stepd] = stepd_pids(c)
    t0 = time.monotonic()
    os.kill(stepd, signal.SIGKILL)
    rc, out, err = finish(p, 60)   # arbor run does not hang
    assert rc != 0, (rc, err)
    assert_tasks_end(c, pids, jid, t0)
    wait_state(c, jid, ("FAILED", "CANCELLED", "COMPLETED"), 30)
    wait_for(lambda: set(node_states(c).values()) == {"idle"}, 60,
             "the node idle again (%s)" % node_states(c))
    assert not any(proc_alive(pid) for pid in pids)
    log = c.logs("node1")
    assert "without ending its tasks: ending its container" in log, log
    assert "container of the dead stepd emptied and removed" in log, log


def test_killed_stepd_step_ends_job_goes_on(cluster, test_user):
    """Inside an allocation the noded itself ends the dead stepd's step
    (no JOB_TERMINATE comes: the job goes on) and reports it to the
    controller; the next step runs."""
    c = cluster(1, debug=True, KillWait=2)
    holder = start(c, ["arbor", "alloc", "-J", "holder", "--",
                       "sleep", "300"])
    jid = job_id_by_name(c, "holder")
    try:
        p, _ = start_trapping_job(c, "holder", ["--jobid", str(jid)])
        pids = task_pids(c)
        [stepd] = stepd_pids(c)
        t0 = time.monotonic()
        os.kill(stepd, signal.SIGKILL)
        finish(p, 60)
        assert_tasks_end(c, pids, jid, t0)
        assert job_state(c, jid) == "RUNNING"
        wait_for(lambda: "step %d.0: failure reported to the ctld (rc 137)"
                 % jid in c.logs("node1"), 30, "the node's STEP_COMPLETE")
        q = c.run(["arbor", "run", "--jobid", str(jid), "echo", "next"],
                  timeout=60)
        assert q.returncode == 0 and "next" in q.stdout, q.stderr
    finally:
        c.run(["arbor", "cancel", str(jid)])
        finish(holder, 60)


def test_killed_stepd_of_previous_noded(cluster, test_user):
    """A stepd started by a previous noded is watched by the new one."""
    c = cluster(1, KillWait=2)
    p, jid = start_trapping_job(c, "k9after")
    pids = task_pids(c)
    r = NodedRestart(c, "node1")
    try:
        r.kill()
        r.restart()
        [stepd] = stepd_pids(c)
        t0 = time.monotonic()
        os.kill(stepd, signal.SIGKILL)
        finish(p, 60)
        assert_tasks_end(c, pids, jid, t0)
        wait_for(lambda: set(node_states(c).values()) == {"idle"}, 60,
                 "the node idle again (%s)" % node_states(c))
    finally:
        r.stop()


def test_replay_after_normal_end_is_refused(cluster, test_launch):
    c = cluster(2)
    mark = os.path.join(c.scratch, "ran.")
    p = c.run([test_launch, "--replay", "-w", "4", "-N", "2", "--", "sh",
               "-c", 'echo x >> "%s$SLURMD_NODENAME"' % mark], timeout=90)
    out = p.stdout + p.stderr
    assert "first launch accepted" in out, out
    assert p.returncode == 0 and "launch refused" in out, out
    assert "step" in out and "has been revoked" in out, out
    time.sleep(2)  # a replayed task would have run by now
    for node in ("node1", "node2"):
        assert read(mark + node).count("x") == 1, "task ran twice on " + node
    assert "security: launch" in c.logs("node1")


@pytest.mark.parametrize("mode,what", [("--tasks=8", "8 tasks on node1"),
                                       ("--cpus=4", "4 cpus on node1")])
def test_layout_not_in_credential_is_refused(cluster, test_launch, mode,
                                             what):
    c = cluster(1)
    p = c.run([test_launch, mode, "-N", "1", "--", "sh", "-c",
               'touch "task.$SLURM_PROCID"'], timeout=60)
    out = p.stdout + p.stderr
    assert p.returncode == 0 and "launch refused" in out, out
    assert "launch asks for %s, the credential grants" % what in out, out
    time.sleep(2)
    assert files_in(c, "task.") == [], "tasks ran: %s" % files_in(c, "task.")
    assert "security: launch" in c.logs("node1")


def test_huge_slice_refused_briefly(cluster, test_launch):
    c = cluster(2)
    t0 = time.monotonic()
    p = c.run([test_launch, "--slice=200000", "-N", "1", "--", "true"],
              timeout=60)
    out = p.stdout + p.stderr
    assert p.returncode == 0 and "launch refused" in out, out
    assert "slice of 200000 nodes is larger than the cluster (2 nodes)" \
        in out, out
    assert "199999 more nodes" in out, out
    assert "bogus" not in out, out
    assert len(out) < 1000, len(out)
    assert time.monotonic() - t0 < 30
