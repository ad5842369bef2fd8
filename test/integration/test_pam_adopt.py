"""pam_arbor_adopt on an emulated cluster.

With pamtester against a PAM service that uses the module (its session
stage runs pam_exec, a child of the adopted process, which records its
cgroups and can leave a sleeper behind): a user with a job on the node is
adopted into the job's extern step container, and that sleeper dies with
the job; a user without one is refused with the message; root is exempt;
several jobs follow action_unknown (or the job SLURM_JOB_ID names); each
failure follows its action. End to end with a real OpenSSH server per test
(Debian's sshd on a loopback port of the emulated node, its own host key,
key authentication for the test user, and a PAM service of its own: sshd
names its PAM service after the name it was run as).
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import uuid

import pytest

from arbor_cluster import TEST_USER, bin_path
from conftest import skip_or_fail
from test_batch import submitted_id
from test_cancel import procs_matching, read, wait_for, wait_state

STEP_ID_EXTERN = 4294967292
DENIED = "Access denied by pam_arbor_adopt: "
NO_JOBS = DENIED + "you have no active jobs on this node"


@pytest.fixture
def pam_module(build):
    path = os.path.join(build, "lib", "security", "pam_arbor_adopt.so")
    if not os.path.exists(path):
        skip_or_fail("pam_arbor_adopt.so not built (libpam0g-dev)")
    if not shutil.which("pamtester"):
        skip_or_fail("pamtester is not installed (scripts/setup.sh)")
    PRELOAD.clear()
    PRELOAD.update(sanitizer_preload(path))
    return path


# What pamtester and sshd preload (set by the pam_module fixture).
PRELOAD = {}


def sanitizer_preload(module):
    """An ASan build's module needs the sanitizer runtimes loaded first in
    the programs that dlopen it (pamtester, sshd): {"LD_PRELOAD": ...}."""
    p = subprocess.run(["ldd", module], stdout=subprocess.PIPE, text=True)
    libs = re.findall(r"=> (\S*lib(?:a|ub)san\.so\S*)", p.stdout)
    return {"LD_PRELOAD": " ".join(libs)} if libs else {}


@pytest.fixture
def pam_services(test_user):
    """Make PAM service files in /etc/pam.d; removed afterwards."""
    made = []

    def make(text, name=None):
        name = name or "arbor-it-%s" % uuid.uuid4().hex[:10]
        path = os.path.join("/etc/pam.d", name)
        with open(path, "w") as f:
            f.write(text)
        made.append(path)
        return name

    yield make
    for path in made:
        os.unlink(path)


class Syslog:
    """The syslog lines sent to /dev/log while the test runs (when no
    syslog daemon owns /dev/log, we bind it; else lines are not seen)."""

    def __init__(self):
        self.sock, self.lines = None, []
        if os.path.exists("/dev/log"):
            return
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("/dev/log")
        self.sock.setblocking(False)

    def text(self):
        while self.sock:
            try:
                self.lines.append(self.sock.recv(65536).decode(
                    errors="replace"))
            except BlockingIOError:
                break
        return "\n".join(self.lines)

    def assert_logged(self, what):
        if self.sock:
            assert what in self.text(), self.text()

    def close(self):
        if self.sock:
            self.sock.close()
            os.unlink("/dev/log")


@pytest.fixture
def syslog(test_user):
    log = Syslog()
    yield log
    log.close()


def adopt_line(c, module, node, options=""):
    return ("account required %s conf=%s nodename=%s log_level=debug %s\n"
            % (module, c.conf, node, options))


def probe_script(c, sleeper):
    """pam_exec's program for the session stage: it records its cgroups
    (those of the adopted process, its parent) and, with 'sleeper', leaves
    a sleeper in its own session, which only the container can reach."""
    path = os.path.join(c.scratch, "probe%s.sh" % ("-sleeper" if sleeper
                                                    else ""))
    with open(path, "w") as f:
        f.write("#!/bin/sh\ncat /proc/self/cgroup > %s/cgroup.$PAM_USER\n"
                % c.scratch)
        if sleeper:
            f.write("setsid sleep 7337 </dev/null >/dev/null 2>&1 &\n")
    os.chmod(path, 0o755)
    return path


def service(c, make, module, node, options="", probe=False, sleeper=True):
    """account: pam_permit then the module; session: the probe (a sleeper
    is left only where the login is adopted) or pam_permit."""
    session = ("pam_exec.so %s" % probe_script(c, sleeper) if probe
               else "pam_permit.so")
    return make("account required pam_permit.so\n"
                + adopt_line(c, module, node, options)
                + "session required %s\n" % session)


def pamtester(name, user, *ops, env=None):
    e = dict(os.environ)
    for k in ("SLURM_JOB_ID", "ARBOR_JOB_ID"):
        e.pop(k, None)
    e.update(PRELOAD)
    e.update(env or {})
    return subprocess.run(["pamtester", "-v", name, user] + list(ops or
                                                                 ["acct_mgmt"]),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, text=True, env=e,
                          timeout=60)


def spool(c, node):
    m = re.search(r"^SpoolDir=(\S+)$", read(c.conf), re.M)
    return m.group(1).replace("%n", node)


def extern_socket(c, node, jid):
    return os.path.join(spool(c, node), "stepd.%d.%d.sock"
                        % (jid, STEP_ID_EXTERN))


def batch_job(c, *args):
    """Submit a sleeping batch job; returns its id once its extern steps
    listen on its nodes."""
    p = c.run(["arbor", "batch", "-o", "/dev/null"] + list(args)
              + ["--wrap", "sleep 600"])
    jid = submitted_id(p)
    wait_state(c, jid, "RUNNING", 30)
    return jid


def wait_extern(c, node, jid):
    wait_for(lambda: os.path.exists(extern_socket(c, node, jid)), 30,
             "the extern step of job %d on %s" % (jid, node))


def in_job(cgroup_text, jid):
    """Is some line of a /proc/PID/cgroup text inside jid's extern step?"""
    return "/job_%d/step_%d" % (jid, STEP_ID_EXTERN) in cgroup_text


def probed_cgroups(c, user=TEST_USER):
    return read(os.path.join(c.scratch, "cgroup." + user))


def both(p):
    return p.stdout + p.stderr


def contained_cluster(cluster, **kw):
    return cluster(2, PrologFlags="Contain", KillWait=2, **kw)


# ---- pamtester ------------------------------------------------------------

def test_login_is_adopted_and_dies_with_the_job(cluster, pam_module,
                                                pam_services):
    c = contained_cluster(cluster)
    jid = batch_job(c, "-N", "2")
    wait_extern(c, "node2", jid)
    name = service(c, pam_services, pam_module, "node2", probe=True)
    p = pamtester(name, TEST_USER, "acct_mgmt", "open_session")
    assert p.returncode == 0, both(p)
    assert in_job(probed_cgroups(c), jid), probed_cgroups(c)
    sleeper = wait_for(lambda: procs_matching("sleep 7337", anyone=True),
                       10, "the session's sleeper")
    assert in_job(read("/proc/%d/cgroup" % sleeper[0]), jid)
    assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
    wait_state(c, jid, "CANCELLED", 30)
    wait_for(lambda: not procs_matching("sleep 7337", anyone=True), 30,
             "the adopted session's sleeper to die with the job")


def test_no_job_is_denied_and_root_is_exempt(cluster, pam_module,
                                             pam_services):
    c = contained_cluster(cluster)
    name = service(c, pam_services, pam_module, "node1")
    p = pamtester(name, TEST_USER)
    assert p.returncode != 0, both(p)
    assert NO_JOBS in both(p)
    assert pamtester(name, "root").returncode == 0  # exempt: PAM_IGNORE
    # A job on node2 only is no job on node1.
    jid = batch_job(c, "-w", "node2")
    wait_extern(c, "node2", jid)
    p = pamtester(name, TEST_USER)
    assert p.returncode != 0 and NO_JOBS in both(p), both(p)
    ignoring = service(c, pam_services, pam_module, "node1",
                       "action_no_jobs=ignore")
    assert pamtester(ignoring, TEST_USER).returncode == 0
    strict = service(c, pam_services, pam_module, "node1", "ignore_root=0")
    p = pamtester(strict, "root")
    assert p.returncode != 0 and NO_JOBS in both(p), both(p)
    admins = service(c, pam_services, pam_module, "node1",
                     "admin_users=nobody,%s" % TEST_USER)
    assert pamtester(admins, TEST_USER).returncode == 0


def test_several_jobs_follow_action_unknown(cluster, pam_module,
                                            pam_services):
    c = contained_cluster(cluster, cpus=4)
    old = batch_job(c, "-w", "node1", "-n", "1")
    wait_extern(c, "node1", old)
    time.sleep(0.05)  # distinct start times
    new = batch_job(c, "-w", "node1", "-n", "1")
    wait_extern(c, "node1", new)
    newest = service(c, pam_services, pam_module, "node1", probe=True)
    assert pamtester(newest, TEST_USER, "acct_mgmt",
                     "open_session").returncode == 0
    assert in_job(probed_cgroups(c), new), probed_cgroups(c)
    p = pamtester(newest, TEST_USER, "acct_mgmt", "open_session",
                  env={"SLURM_JOB_ID": str(old)})
    assert p.returncode == 0, both(p)
    assert in_job(probed_cgroups(c), old), probed_cgroups(c)
    deny = service(c, pam_services, pam_module, "node1",
                   "action_unknown=deny")
    p = pamtester(deny, TEST_USER)
    assert p.returncode != 0, both(p)
    assert (DENIED + "you have more than one job on this node (%d, %d)"
            % (new, old)) in both(p)
    p = pamtester(deny, TEST_USER, env={"ARBOR_JOB_ID": str(new)})
    assert p.returncode == 0, both(p)
    allow = service(c, pam_services, pam_module, "node1",
                    "action_unknown=allow", probe=True, sleeper=False)
    p = pamtester(allow, TEST_USER, "acct_mgmt", "open_session")
    assert p.returncode == 0, both(p)
    assert "/job_" not in probed_cgroups(c), probed_cgroups(c)
    for jid in (old, new):
        c.run(["arbor", "cancel", str(jid)])
    wait_for(lambda: not procs_matching("sleep 7337", anyone=True), 30,
             "the sleepers")


def test_job_without_extern_step_follows_action_adopt_failure(
        cluster, pam_module, pam_services, syslog):
    c = cluster(1, KillWait=2)
    jid = batch_job(c)
    wait_for(lambda: os.path.exists(os.path.join(
        spool(c, "node1"), "stepd.%d.4294967291.sock" % jid)), 30,
        "the batch step")
    allow = service(c, pam_services, pam_module, "node1", probe=True,
                    sleeper=False)
    p = pamtester(allow, TEST_USER, "acct_mgmt", "open_session")
    assert p.returncode == 0, both(p)
    assert "/job_" not in probed_cgroups(c)
    syslog.assert_logged("job %d of %s has no extern step on node1 "
                         "(PrologFlags=Contain is not set)" % (jid, TEST_USER))
    deny = service(c, pam_services, pam_module, "node1",
                   "action_adopt_failure=deny")
    p = pamtester(deny, TEST_USER)
    assert p.returncode != 0, both(p)
    assert (DENIED + "cannot put this session into job %d" % jid) in both(p)


def test_pgid_cannot_adopt(cluster, pam_module, pam_services, syslog):
    c = cluster(1, PrologFlags="Contain", ProctrackType="proctrack/pgid")
    jid = batch_job(c)
    wait_extern(c, "node1", jid)
    deny = service(c, pam_services, pam_module, "node1",
                   "action_adopt_failure=deny")
    p = pamtester(deny, TEST_USER)
    assert p.returncode != 0, both(p)
    assert (DENIED + "cannot put this session into job %d" % jid) in both(p)
    syslog.assert_logged("ProctrackType=proctrack/pgid cannot adopt")


def test_noded_down_and_bad_options_follow_action_generic_failure(
        cluster, pam_module, pam_services, syslog):
    c = contained_cluster(cluster)
    jid = batch_job(c, "-w", "node1")
    wait_extern(c, "node1", jid)
    pid = c.daemon_pid("node1")
    ignore = service(c, pam_services, pam_module, "node1",
                     "timeout=1 action_generic_failure=ignore")
    deny = service(c, pam_services, pam_module, "node1",
                   "timeout=1 action_generic_failure=deny")
    default = service(c, pam_services, pam_module, "node1", "timeout=1")
    os.kill(pid, signal.SIGSTOP)  # down: it answers nothing
    try:
        assert pamtester(ignore, TEST_USER).returncode == 0  # PAM_IGNORE
        p = pamtester(deny, TEST_USER)
        # the default fails closed (issue 32): "cannot ask" is no "yes"
        d = pamtester(default, TEST_USER)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert d.returncode != 0, both(d)
    assert (DENIED + "cannot check your jobs on this node") in both(d)
    assert p.returncode != 0, both(p)
    assert (DENIED + "cannot check your jobs on this node") in both(p)
    syslog.assert_logged("cannot ask arbor-noded which jobs %s has here"
                         % TEST_USER)
    bad = service(c, pam_services, pam_module, "node1",
                  "action_generic_failure=deny action_unknown=sometimes")
    p = pamtester(bad, TEST_USER)
    assert p.returncode != 0, both(p)
    assert (DENIED + "the login service is misconfigured") in both(p)
    syslog.assert_logged("bad module option: action_unknown=sometimes")
    wrong_node = service(c, pam_services, pam_module, "node9",
                         "action_generic_failure=deny")
    p = pamtester(wrong_node, TEST_USER)
    assert p.returncode != 0, both(p)
    assert (DENIED + "cannot check your jobs on this node") in both(p)
    syslog.assert_logged("node9 is not a node of %s" % c.conf)
    # and with noded back, the login is adopted again; also by a noded
    # restarted since the job started (it finds the stepds again)
    assert pamtester(deny, TEST_USER).returncode == 0
    c.restart("node1")
    strict = service(c, pam_services, pam_module, "node1",
                     "action_generic_failure=deny action_adopt_failure=deny",
                     probe=True, sleeper=False)
    p = pamtester(strict, TEST_USER, "acct_mgmt", "open_session")
    assert p.returncode == 0, both(p)
    assert in_job(probed_cgroups(c), jid), probed_cgroups(c)


HOLDER = r"""
import os, socket, sys, time
path, n = sys.argv[1], int(sys.argv[2])
socks = []
def fill():
    while len(socks) < n:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
        except OSError:
            s.close()
            return
        s.setblocking(False)
        socks.append(s)
fill()
print("holding", len(socks), flush=True)
while True:  # reopen whatever the noded closes
    for s in list(socks):
        try:
            if s.recv(1) == b"":
                raise OSError
        except BlockingIOError:
            continue
        except OSError:
            pass
        s.close()
        socks.remove(s)
    fill()
    time.sleep(0.2)
"""


def test_one_user_cannot_hold_the_local_socket(cluster, pam_module,
                                              pam_services):
    """An ordinary user holding (and reopening) more connections to the
    noded's local socket than it takes in all (256) cannot stop the
    module from asking: the question is answered (a user without a job is
    refused for that reason, not let in), and root's own question too."""
    c = contained_cluster(cluster)
    sock = os.path.join(spool(c, "node1"), "noded.sock")
    name = service(c, pam_services, pam_module, "node1",
                   "timeout=2 action_generic_failure=ignore")
    holder = c.popen(["python3", "-c", HOLDER, sock, "300"],
                     stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert holder.stdout.readline().startswith(b"holding")
        time.sleep(1.5)
        for _ in range(3):
            p = pamtester(name, TEST_USER)
            assert p.returncode != 0 and NO_JOBS in both(p), both(p)
        tool = bin_path("arbor-test-local", c.build)
        p = c.run([tool, "jobs", sock, "0"], user="root")
        assert p.returncode == 0, both(p)
    finally:
        os.killpg(holder.pid, signal.SIGKILL)
        holder.wait()
    assert "local socket: connection refused" in c.logs("node1")


def test_who_may_ask_the_node(cluster, pam_module, test_user):
    """The noded's local socket tells users their own jobs only; a stepd's
    socket takes adoptions from root only; an adoption into a step that is
    not an extern step, or of a process that does not exist, is refused."""
    c = contained_cluster(cluster)
    tool = bin_path("arbor-test-local", c.build)
    jid = batch_job(c, "-w", "node1")
    wait_extern(c, "node1", jid)
    noded_sock = os.path.join(spool(c, "node1"), "noded.sock")
    mine = c.run([tool, "jobs", noded_sock, str(test_user.pw_uid)])
    assert mine.stdout.strip() == "jobs: %d extern: 1" % jid, both(mine)
    p = c.run([tool, "jobs", noded_sock, "0"])
    assert p.returncode == 1, both(p)
    assert "only root may ask about another user's jobs" in p.stdout
    p = c.run([tool, "adopt", extern_socket(c, "node1", jid),
               str(os.getpid())])
    assert p.returncode == 1 and "Permission denied" in p.stdout, both(p)
    batch_sock = os.path.join(spool(c, "node1"), "stepd.%d.4294967291.sock"
                              % jid)
    p = c.run([tool, "adopt", batch_sock, str(os.getpid())], user="root")
    assert p.returncode == 1, both(p)
    assert "step %d.batch is not an extern step" % jid in p.stdout
    p = c.run([tool, "adopt", extern_socket(c, "node1", jid), "999999999"],
              user="root")
    assert p.returncode == 1 and "no process 999999999" in p.stdout, both(p)


# ---- OpenSSH --------------------------------------------------------------

def free_port(addr):
    with socket.socket() as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


class Sshd:
    """Debian's sshd for one emulated node: loopback address and free port,
    its own host key, the test user's key, and a PAM service named after
    the link it runs as (sshd's PAM service is its program name)."""

    def __init__(self, c, node, addr, module, make):
        self.dir = os.path.join(c.dir, "sshd-" + node)
        os.makedirs(self.dir, mode=0o755)
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # privsep dir
        for key in ("host", "client"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "",
                            "-f", os.path.join(self.dir, key)], check=True)
        keys = os.path.join(self.dir, "authorized_keys")
        shutil.copy(os.path.join(self.dir, "client.pub"), keys)
        os.chmod(keys, 0o644)
        self.addr, self.port = addr, free_port(addr)
        name = "arbor-it-sshd-%s" % uuid.uuid4().hex[:10]
        make("auth required pam_deny.so\n"
             + adopt_line(c, module, node)
             + "session required pam_permit.so\n"
             "password required pam_deny.so\n", name)
        prog = os.path.join(self.dir, name)
        os.symlink(shutil.which("sshd") or "/usr/sbin/sshd", prog)
        cfg = os.path.join(self.dir, "sshd_config")
        with open(cfg, "w") as f:
            f.write("Port %d\nListenAddress %s\nHostKey %s/host\n"
                    "UsePAM yes\nAuthorizedKeysFile %s\nStrictModes no\n"
                    "PasswordAuthentication no\n"
                    "KbdInteractiveAuthentication no\n"
                    "PermitRootLogin no\nPidFile %s/sshd.pid\n"
                    % (self.port, addr, self.dir, keys, self.dir))
        self.log = os.path.join(self.dir, "sshd.log")
        env = dict(os.environ, **PRELOAD)
        if PRELOAD:
            # LeakSanitizer's exit-time check would run in sshd's
            # seccomp-sandboxed preauth child, which the sandbox kills
            # (SIGSYS) before the session can start.
            env["ASAN_OPTIONS"] = ":".join(
                filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
        self.proc = subprocess.Popen([prog, "-D", "-e", "-f", cfg], env=env,
                                     stdout=open(self.log, "w"),
                                     stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        wait_for(lambda: "Server listening" in read(self.log), 20,
                 "sshd to listen: " + read(self.log))

    def ssh(self, command, user=TEST_USER):
        return ["ssh", "-p", str(self.port), "-i",
                os.path.join(self.dir, "client"), "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null",
                "%s@%s" % (user, self.addr), command]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=20)


def test_ssh_session_lives_and_dies_in_the_job(cluster, pam_module,
                                               pam_services):
    if not shutil.which("sshd") and not os.path.exists("/usr/sbin/sshd"):
        skip_or_fail("openssh-server is not installed (scripts/setup.sh)")
    c = contained_cluster(cluster)
    sshd = Sshd(c, "node2", "127.0.1.2", pam_module, pam_services)
    try:
        p = subprocess.run(sshd.ssh("true"), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
        assert p.returncode == 255, both(p)  # refused: no job here
        assert NO_JOBS in p.stderr, p.stderr
        jid = batch_job(c, "-N", "2")
        wait_extern(c, "node2", jid)
        session = subprocess.Popen(sshd.ssh("exec sleep 7447"),
                                   stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        sleeper = wait_for(
            lambda: procs_matching("sleep 7447", anyone=True), 30,
            "the sleep started over ssh")
        assert in_job(read("/proc/%d/cgroup" % sleeper[0]), jid)
        assert c.run(["arbor", "cancel", str(jid)]).returncode == 0
        wait_for(lambda: not procs_matching("sleep 7447", anyone=True), 30,
                 "the ssh session's sleep to die with the job")
        session.communicate(timeout=30)
        assert session.returncode != 0
    finally:
        sshd.stop()
