"""arbor_cluster - drive an emulated Arbor cluster ("arbor local") from Python.

Used by the integration tests (test/integration/conftest.py) and the launch
benchmark (bench/launch.py). A Cluster starts

    BUILD/bin/arbor local -N n --dir DIR [--tree-width W] [--debug] [--set K=V]...

in the background (no CMD), waits for its "ready" line, runs commands
against it (as the unprivileged test user when we are root), and tears it
down with SIGTERM, then reports any Arbor process left behind that still
mentions DIR.

With netns=True (what ARBOR_TEST_NETNS=1 makes the integration tests'
default, see netns_mode) it adds --netns: every node and the ctld in its
own network and UTS namespace on a private bridge (docs/netns.md), the
commands still run here, in the host namespace. Teardown then also
reports (and removes) any namespace or link of the cluster left behind.
"""

import functools
import os
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
import time

TEST_USER = "arbortest"
TEST_USER2 = "arbortest2"  # a second unprivileged user (test_policy.py)
DAEMONS = ("arbor-ctld", "arbor-noded", "arbor-stepd")


def build_dir():
    """The build tree under test: $ARBOR_BUILD_DIR, else <repo>/build."""
    env = os.environ.get("ARBOR_BUILD_DIR")
    if env:
        return os.path.abspath(env)
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "build"))


def bin_path(name, build=None):
    return os.path.join(build or build_dir(), "bin", name)


def missing_programs(build=None, extra=()):
    names = ("arbor",) + DAEMONS + tuple(extra)
    return [n for n in names if not os.access(bin_path(n, build), os.X_OK)]


def find_munged():
    for p in ("/usr/sbin/munged", "/sbin/munged"):
        if os.access(p, os.X_OK):
            return p
    return shutil.which("munged")


def is_root():
    return os.geteuid() == 0


def expand_hostlist(expr):
    """node[1-3,7],x -> [node1, node2, node3, node7, x] (one bracket group)."""
    out = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]+)\])?", expr):
        prefix, ranges = m.group(1), m.group(2)
        if ranges is None:
            out.append(prefix)
            continue
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            width = len(lo) if lo.startswith("0") else 0
            for i in range(int(lo), int(hi or lo) + 1):
                out.append("%s%0*d" % (prefix, width, i))
    return out


def task_uid():
    """The uid the clusters' tasks run as: the test user's when we are
    root (Cluster runs commands as it), else ours."""
    if is_root():
        import pwd
        try:
            return pwd.getpwnam(TEST_USER).pw_uid
        except KeyError:
            pass
    return os.getuid()


def proc_cmdlines(uid=None):
    """{pid: [argv...]} of every process we can see; with 'uid', of that
    user's only (a task's command line, e.g. "sleep 300", may well be
    running elsewhere on the host)."""
    procs = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if uid is not None and os.stat("/proc/%s" % pid).st_uid != uid:
                continue
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                raw = f.read()
        except OSError:
            continue
        if raw:
            procs[int(pid)] = [a.decode(errors="replace")
                               for a in raw.rstrip(b"\0").split(b"\0")]
    return procs


def leftover_daemons(mark):
    """Arbor daemons whose command line mentions 'mark' (a cluster dir)."""
    left = []
    for pid, argv in proc_cmdlines().items():
        if pid == os.getpid():
            continue
        prog = os.path.basename(argv[0])
        if prog in DAEMONS and any(mark in a for a in argv):
            left.append((pid, " ".join(argv)))
    return left


def netns_mode():
    """Do the integration tests run on --netns clusters by default?
    ($ARBOR_TEST_NETNS=1)"""
    return os.environ.get("ARBOR_TEST_NETNS", "").lower() in ("1", "true",
                                                              "yes")


NETNS_PREFIX = "arbn"  # cli/local/local_netns.c: arbn<pid>-<node>, ...


def find_ip():
    for p in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"):
        if os.access(p, os.X_OK):
            return p
    return shutil.which("ip")


@functools.lru_cache(maxsize=None)
def netns_unavailable():
    """Why arbor local --netns cannot run here, or None: it needs root,
    iproute2, and the right to make a network namespace and a bridge
    (CAP_SYS_ADMIN and CAP_NET_ADMIN; a container may lack them). Tried
    for real, with a namespace and a bridge made and removed again."""
    if not is_root():
        return "--netns needs root"
    ip = find_ip()
    if not ip:
        return "iproute2 (ip) is not installed"
    tag = "%s%dprobe" % (NETNS_PREFIX, os.getpid())
    tries = [[ip, "netns", "add", tag + "-ns"],
             [ip, "link", "add", tag[:13] + "br", "type", "bridge"]]
    why = None
    for cmd in tries:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if p.returncode != 0:
            why = "cannot %s: %s" % (" ".join(cmd[1:3]),
                                     p.stdout.decode(errors="replace").strip())
            break
    for cmd in ([ip, "netns", "del", tag + "-ns"],
                [ip, "link", "del", tag[:13] + "br"]):
        subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return why


def netns_names(tag):
    """The namespaces and host links of cluster 'tag' ("arbn<pid>") that
    exist: [("netns", name) | ("link", name)]."""
    out = []
    try:
        out += [("netns", n) for n in os.listdir("/run/netns")
                if n.startswith(tag + "-")]
    except OSError:
        pass
    try:
        out += [("link", n) for n in os.listdir("/sys/class/net")
                if re.fullmatch(re.escape(tag) + r"(br|v\d+)", n)]
    except OSError:
        pass
    return out


def netns_remove(names):
    ip = find_ip()
    for kind, name in names:
        subprocess.run([ip, kind, "del", name], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def user_cmd(args, user, env):
    """Prefix args so they run as 'user' (when root) with 'env' set."""
    envargs = ["%s=%s" % kv for kv in sorted(env.items())]
    if is_root() and user and user != "root":
        return ["runuser", "-u", user, "--", "env"] + envargs + list(args)
    return ["env"] + envargs + list(args)


class ClusterError(Exception):
    pass


class Cluster:
    """One running "arbor local" cluster."""

    def __init__(self, n, tree_width=16, debug=False, settings=None,
                 build=None, ready_timeout=60, user=TEST_USER, cpus=None,
                 dir=None, netns=False, local_args=None):
        self.n = n
        self.netns = netns
        self.ns_tag = None  # "arbn<pid of arbor local>" with netns
        self.build = build or build_dir()
        self.user = user if is_root() else None
        # dir: an empty directory made by the caller (who then knows its
        # paths, e.g. DIR/munge/munge.sock, before the cluster starts).
        self.dir = os.path.realpath(dir or tempfile.mkdtemp(prefix="arbor-it-"))
        os.chmod(self.dir, 0o755)
        self.conf = os.path.join(self.dir, "arbor.conf")
        self.arbor = bin_path("arbor", self.build)
        # A place every user may write (output files, marker files).
        self.scratch = os.path.join(self.dir, "scratch")
        os.mkdir(self.scratch)
        os.chmod(self.scratch, 0o1777)
        args = [self.arbor, "local", "-N", str(n), "--dir", self.dir,
                "--tree-width", str(tree_width)]
        if debug:
            args.append("--debug")
        if cpus:
            args += ["--cpus", str(cpus)]
        if netns:
            args.append("--netns")
        args += list(local_args or [])  # e.g. ["--features", "ib"]
        for k, v in (settings or {}).items():
            args += ["--set", "%s=%s" % (k, v)]
        self.stderr_path = os.path.join(self.dir, "arbor-local.err")
        self._err = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self._err,
                                     start_new_session=True)
        if netns:
            self.ns_tag = "%s%d" % (NETNS_PREFIX, self.proc.pid)
        try:
            self._wait_ready(ready_timeout)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        buf = b""
        while b"nodes ready" not in buf or not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise ClusterError("arbor local not ready within %ds:\n%s"
                                   % (timeout, self.local_stderr()))
            if not sel.select(left):
                continue
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                self.proc.wait(timeout=30)
                raise ClusterError("arbor local exited with %s before ready:\n%s"
                                   % (self.proc.returncode, self.local_stderr()))
            buf += chunk
        sel.close()
        if ("ARBOR_CONF=%s" % self.conf).encode() not in buf:
            raise ClusterError("unexpected ready output: %r" % buf)
        # "arbor local: K nodes ready in S s": S, the registration time.
        m = re.search(rb"nodes ready in ([0-9.]+) s", buf)
        self.ready_seconds = float(m.group(1)) if m else None

    def local_stderr(self):
        try:
            with open(self.stderr_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def env(self, extra=None):
        env = {"ARBOR_CONF": self.conf}
        env.update(extra or {})
        return env

    def command(self, args, user=None, env=None):
        """argv that runs 'args' as 'user' (default: the test user)."""
        args = [self.arbor] + list(args[1:]) if args and args[0] == "arbor" \
            else list(args)
        return user_cmd(args, user or self.user, self.env(env))

    def run(self, args, user=None, input=None, timeout=120, env=None):
        """Run args ("arbor ..." uses the build's arbor); CompletedProcess."""
        if isinstance(input, str):
            input = input.encode()
        p = subprocess.run(self.command(args, user, env), input=input,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=None if input is not None
                           else subprocess.DEVNULL,
                           cwd=self.scratch, timeout=timeout)
        p.stdout = p.stdout.decode(errors="replace")
        p.stderr = p.stderr.decode(errors="replace")
        return p

    def popen(self, args, user=None, env=None, **kw):
        return subprocess.Popen(self.command(args, user, env), cwd=self.scratch,
                                **kw)

    def logs(self, node):
        """Text of a node's noded log ("ctld" for the controller's)."""
        name = "ctld.log" if node == "ctld" else "noded-%s.log" % node
        try:
            with open(os.path.join(self.dir, "log", name),
                      errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def all_logs(self, tail=40):
        out = []
        logdir = os.path.join(self.dir, "log")
        for name in sorted(os.listdir(logdir)):
            with open(os.path.join(logdir, name), errors="replace") as f:
                lines = f.read().splitlines()[-tail:]
            if lines:
                out.append("---- %s\n%s" % (name, "\n".join(lines)))
        return "\n".join(out)

    def daemon_pid(self, node):
        """pid of the arbor-noded of 'node' (or "ctld", or "munged": the
        cluster's own, serving DIR/munge)."""
        mdir = os.path.join(self.dir, "munge") + "/"
        for pid, argv in proc_cmdlines().items():
            prog = os.path.basename(argv[0])
            if node == "munged" and prog == "munged" \
                    and any(mdir in a for a in argv):
                return pid
            if self.conf not in argv:
                continue
            if node == "ctld" and prog == "arbor-ctld":
                return pid
            if prog == "arbor-noded" and "-n" in argv[:-1] \
                    and argv[argv.index("-n") + 1] == node:
                return pid
        raise ClusterError("no daemon for %s" % node)

    def restart(self, name, sig="TERM", timeout=90):
        """Restart the ctld ("ctld"), a node's noded or the cluster's own
        munged ("munged") inside the cluster
        (arbor local --restart): the old daemon gets 'sig' (KILL emulates
        a crash), a new one starts and serves before this returns. The new
        daemon is arbor local's child, torn down with the cluster."""
        p = subprocess.run([self.arbor, "local", "--dir", self.dir,
                            "--restart", name, "--signal", sig],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        if p.returncode != 0:
            raise ClusterError("restart %s failed (%d): %s"
                               % (name, p.returncode,
                                  p.stderr.decode(errors="replace")))
        return self.daemon_pid(name)

    def stop(self, timeout=60):
        """SIGTERM arbor local, wait; returns the leftover daemons."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self._err.close()
        left = []
        for _ in range(50):
            left = leftover_daemons(self.dir)
            if not left:
                break
            time.sleep(0.1)
        return left

    def leftover_netns(self):
        """After stop(): the cluster's namespaces and links still there
        (arbor local removes them at teardown), removed now so that they
        cannot disturb what follows; [] when all is well."""
        if not self.ns_tag:
            return []
        left = netns_names(self.ns_tag)
        netns_remove(left)
        return left

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)
