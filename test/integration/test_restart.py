"""Restarting arbor-noded while steps run.

The stepds are independent of their noded: killing node2's noded (SIGTERM)
leaves the step running, and the restarted noded (same command line) finds
its stepd again through the spool directory, so the step can still be
cancelled and the node completes the job. A job that ends while a noded is
down is completed once it is back (the controller re-sends JOB_TERMINATE).
"""

import os
import signal
import subprocess
import time

from test_cancel import (files_in, finish, job_id_by_name, looping_task,
                         read, start, wait_for, wait_state)


def proc_alive(pid):
    """True if pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class NodedRestart:
    """Stop a node's noded (SIGTERM) and start it again by hand with the
    command line, directory and environment arbor local gave it. The new
    one is our child, not arbor local's: stop() must end it before the
    fixture's teardown checks for leftovers."""

    def __init__(self, c, node):
        self.c, self.node = c, node
        self.pid = c.daemon_pid(node)
        with open("/proc/%d/cmdline" % self.pid, "rb") as f:
            self.argv = [a.decode() for a in f.read().rstrip(b"\0")
                         .split(b"\0")]
        with open("/proc/%d/environ" % self.pid, "rb") as f:
            self.env = dict(kv.decode(errors="replace").split("=", 1)
                            for kv in f.read().split(b"\0") if b"=" in kv)
        self.cwd = os.readlink("/proc/%d/cwd" % self.pid)
        self.proc = None

    def kill(self):
        os.kill(self.pid, signal.SIGTERM)
        wait_for(lambda: not proc_alive(self.pid), 30,
                 "the noded of %s to exit" % self.node)

    def registrations(self):
        return self.c.logs(self.node).count("registered with ctld")

    def restart(self):
        before = self.registrations()
        out = open(os.path.join(self.c.dir, "log",
                                "noded-%s.restart.out" % self.node), "ab")
        self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=out,
                                     stderr=out, start_new_session=True)
        out.close()
        wait_for(lambda: self.registrations() > before, 30,
                 "the restarted noded of %s to register" % self.node)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def node_states(c):
    p = c.run(["arbor", "info", "-N", "-h", "-o", "%N %t"], user="root")
    return {f[0]: f[1] for f in (l.split() for l in p.stdout.splitlines())
            if len(f) >= 2}


def task_pids(c, prefix="started."):
    return [int(read(os.path.join(c.scratch, f)).strip())
            for f in files_in(c, prefix)]


def test_step_survives_noded_restart_and_is_cancellable(cluster, test_user):
    c = cluster(2, KillWait=2)
    p = start(c, ["arbor", "run", "-N", "2", "-n", "2", "-J", "survive",
                  "sh", "-c", looping_task("started")])
    jid = job_id_by_name(c, "survive")
    wait_for(lambda: len(files_in(c, "started.")) == 2, 30, "tasks to start")
    pids = task_pids(c)
    r = NodedRestart(c, "node2")
    try:
        r.kill()
        time.sleep(2)
        assert all(proc_alive(pid) for pid in pids), \
            "tasks died with their noded"
        assert p.poll() is None, "arbor run ended when a noded stopped"
        r.restart()
        time.sleep(1)
        assert all(proc_alive(pid) for pid in pids)
        assert p.poll() is None
        cancel = c.run(["arbor", "cancel", str(jid)])
        assert cancel.returncode == 0, cancel.stderr
        rc, out, err = finish(p, 60)
        assert "Job %d cancelled" % jid in err, err
        wait_state(c, jid, "CANCELLED", 30)
        wait_for(lambda: not any(proc_alive(pid) for pid in pids), 30,
                 "every task to end")
        wait_for(lambda: set(node_states(c).values()) == {"idle"}, 60,
                 "both nodes idle again (%s)" % node_states(c))
    finally:
        r.stop()


def test_job_ending_while_noded_down_completes_after_restart(cluster,
                                                            test_user):
    c = cluster(2, KillWait=2)
    # Rank 1 (node2) ends on its own while node2's noded is down.
    p = start(c, ["arbor", "run", "-N", "2", "-n", "2", "-J", "whiledown",
                  "sh", "-c", 'echo $$ > "started.$SLURM_PROCID"; '
                  'while [ ! -e go ]; do sleep 0.2; done; echo done'])
    jid = job_id_by_name(c, "whiledown")
    wait_for(lambda: len(files_in(c, "started.")) == 2, 30, "tasks to start")
    r = NodedRestart(c, "node2")
    try:
        r.kill()
        open(os.path.join(c.scratch, "go"), "w").close()
        rc, out, err = finish(p, 60)
        assert rc == 0, err
        assert out.count("done") == 2, out
        wait_state(c, jid, ("COMPLETED", "COMPLETING"), 30)
        r.restart()
        wait_state(c, jid, "COMPLETED", 60)
        wait_for(lambda: set(node_states(c).values()) == {"idle"}, 60,
                 "both nodes idle again (%s)" % node_states(c))
    finally:
        r.stop()
